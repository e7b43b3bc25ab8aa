"""Shrink a failing multi-level program (text in the form random_programs.py writes) to a small
one that still fails, for regression tests and bug reports.

    python test/support/minimize_program.py --seed SEED [--max-ops 12] [--allreduce auto]
        [--ring-threshold 0] [--input-seed S]
    python test/support/minimize_program.py FILE.mlir [...same options]

Greedy: (1) keep only the ops one result depends on, trying every value as the single result;
(2) drop unused arguments; (3) drop results one at a time; (4) repeatedly replace an op's result by one of its operands of the
same type (dropping the op) while the program still verifies and still fails. "Fails" means
`pipeline_check.check_program` raises (the same stage or not: check the message).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from xdsl.dialects import func
from xdsl.parser import Parser

from xdsl_multi.dialects import make_context

_NAME = re.compile(r"%[A-Za-z_][\w]*")


class Prog:
    """A one-function program as lines: header, args, body ops, results."""

    def __init__(self, text: str):
        module = Parser(make_context(), text).parse_module()
        main = next(op for op in module.walk() if isinstance(op, func.FuncOp))
        self.header = next(ln for ln in text.splitlines() if ln.lstrip().startswith(("module", "builtin.module")))
        self.args = [(f"%{a.name_hint}", str(a.type)) for a in main.args]
        self.types: dict[str, str] = dict(self.args)
        lines = text.splitlines()
        self.body: list[str] = []
        self.results: list[str] = []
        for line in lines:
            s = line.strip()
            if s.startswith("func.return"):
                self.results = _NAME.findall(s.split(":")[0])
            elif s.startswith("%") and " = " in s:  # not a multi-line signature's arguments
                self.body.append(s)
        for op in main.body.ops:
            for r in op.results:
                self.types[f"%{r.name_hint}"] = str(r.type)

    @staticmethod
    def defined(line: str) -> str:
        return line.split("=", 1)[0].strip()

    @staticmethod
    def used(line: str) -> list[str]:
        rhs = line.split("=", 1)[1]
        return _NAME.findall(rhs.split(" : ")[0])

    def text(self) -> str:
        needed = set(self.results)
        keep: list[str] = []
        for line in reversed(self.body):
            if self.defined(line) in needed:
                keep.append(line)
                needed.update(self.used(line))
        keep.reverse()
        sig = ", ".join(f"{n}: {t}" for n, t in self.args)
        res = ", ".join(self.types[r] for r in self.results)
        return "\n".join([
            self.header,
            f"  func.func @main({sig}) -> ({res}) {{",
            *(f"    {line}" for line in keep),
            f"    func.return {', '.join(self.results)} : {res}",
            "  }",
            "}",
            "",
        ])

    def used_anywhere(self) -> set[str]:
        text = self.text()
        body = text.split(") {", 1)[1] if ") {" in text else text
        return set(_NAME.findall(body))


def minimize(text: str, fails: Callable[[str], bool]) -> str:
    assert fails(text), "the program does not fail"
    prog = Prog(text)
    # (1) one result
    best = prog.text()
    for name in [*prog.results, *(Prog.defined(line) for line in prog.body)]:
        if not prog.types.get(name, "").startswith("tensor<"):  # an index, or a name xDSL
            continue  # does not keep as a hint (%c0_0)
        prog.results = [name]
        candidate = prog.text()
        if len(candidate) < len(best) and fails(candidate):
            best = candidate
    changed = True
    while changed:
        changed = False
        prog = Prog(best)
        # (2) unused arguments
        used = prog.used_anywhere()
        if any(n not in used for n, _ in prog.args):
            prog.args = [(n, t) for n, t in prog.args if n in used]
            candidate = prog.text()
            if fails(candidate):
                best, changed = candidate, True
                continue
        # (3) drop one result (several results may be needed: kernels that share work)
        for i in range(len(prog.results) if len(prog.results) > 1 else 0):
            trial = Prog(best)
            del trial.results[i]
            candidate = trial.text()
            if fails(candidate):
                best, changed = candidate, True
                break
        if changed:
            continue
        # (4) bypass an op: its result becomes one of its operands of the same type
        for i, line in enumerate(prog.body):
            out = Prog.defined(line)
            for operand in dict.fromkeys(Prog.used(line)):
                if prog.types.get(operand) != prog.types[out]:
                    continue
                trial = Prog(best)
                trial.body = [
                    re.sub(rf"{re.escape(out)}\b", operand, b) for b in trial.body[i + 1 :]
                ]
                trial.body = prog.body[:i] + trial.body
                trial.results = [operand if r == out else r for r in trial.results]
                candidate = trial.text()
                try:
                    ok = fails(candidate)
                except Exception:  # noqa: BLE001 - a candidate that does not parse
                    ok = False
                if ok and len(candidate) < len(best):
                    best, changed = candidate, True
                    break
            if changed:
                break
    return best


def main() -> None:
    from pipeline_check import check_program
    from random_programs import random_program

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("file", nargs="?")
    ap.add_argument("--seed", type=int)
    ap.add_argument("--max-ops", type=int, default=12)
    ap.add_argument("--allreduce", default="auto")
    ap.add_argument("--ring-threshold", type=int, default=0)
    ap.add_argument("--input-seed", type=int)
    a = ap.parse_args()
    if a.file:
        text = Path(a.file).read_text()
    else:
        text = random_program(a.seed, a.max_ops).text
    input_seed = a.input_seed if a.input_seed is not None else (a.seed or 0)

    def fails(t: str) -> bool:
        try:
            Parser(make_context(), t).parse_module().verify()
        except Exception:  # noqa: BLE001
            return False
        try:
            check_program(t, a.allreduce, a.ring_threshold, input_seed)
        except AssertionError:
            return True
        return False

    small = minimize(text, fails)
    print(small)
    try:
        check_program(small, a.allreduce, a.ring_threshold, input_seed)
    except AssertionError as e:
        print(str(e).split("--- program")[0])


if __name__ == "__main__":
    main()

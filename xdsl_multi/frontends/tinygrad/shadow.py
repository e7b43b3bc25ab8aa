"""The shadow runner (SPEC §8): tinygrad's own multi-device tests, every multi-device graph
also run by xdsl-multi and compared with tinygrad's value.

```
python -m xdsl_multi.frontends.tinygrad.shadow [--baseline FILE] [--report FILE] TINYGRAD_CHECKOUT [pytest args]
```

1. Baseline: pytest on the checkout with shadow_plugin.py recording outcomes only (written to
   `--baseline FILE` if given; an existing FILE is read instead, with no baseline run).
2. Shadow run: the same tests with shadow_plugin.py wrapping `Tensor.realize`.
3. The summary: graphs matched, mismatched, errors, unsupported by reason, not compared by
   reason, tinygrad's outcomes against the baseline; the last line `N passed, N failed`
   (failed = mismatches + errors). Exit status 0 only when nothing failed and no outcome changed.

Both runs are pytest processes of their own, started from outside the checkout (`python -P`:
the installed tinygrad 0.14.0 is imported, not the checkout's sources), with `PARALLEL=0`
(tinygrad's compile workers would import the checkout's tinygrad) and `TEST_TIMEOUT=3600`
(the checkout's conftest aborts a test after 300 s; the shadow makes tests slower), unless the
environment sets them.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

DEFAULT_TESTS = (
    "test/unit/test_multitensor.py",
    "test/backend/test_multitensor.py",
    "test/null/test_multitensor.py",
    "test/unit/test_allreduce.py",
)
"""tinygrad's multi-device test files (SPEC §8), relative to the checkout."""

PLUGIN = "xdsl_multi.frontends.tinygrad.shadow_plugin"


def _names_tests(checkout: Path, args: Sequence[str]) -> bool:
    """Whether the pytest arguments name test files or node ids of their own."""
    return any(not a.startswith("-") and (checkout / a.split("::")[0]).exists() for a in args)


def run_pytest(checkout: Path, args: Sequence[str], report: Path, mode: str) -> int:
    """One pytest process on the checkout with the plugin; its exit status."""
    tests = [] if _names_tests(checkout, args) else list(DEFAULT_TESTS)
    env = dict(os.environ)
    env.setdefault("PARALLEL", "0")
    env.setdefault("TEST_TIMEOUT", "3600")
    command = [
        sys.executable, "-P", "-m", "pytest", "-p", PLUGIN,
        f"--xdsl-shadow-report={report}", f"--xdsl-shadow-mode={mode}",
        "-p", "no:cacheprovider", f"--rootdir={checkout}", *args, *tests,
    ]  # fmt: skip
    return subprocess.run(command, cwd=checkout, env=env, check=False).returncode


def read_report(path: Path) -> tuple[list[dict[str, object]], dict[str, str]]:
    """(graph records, outcome by test) of a JSON-lines report."""
    graphs: list[dict[str, object]] = []
    outcomes: dict[str, str] = {}
    if not path.exists():
        return graphs, outcomes
    for text in path.read_text().splitlines():
        line = json.loads(text)
        if line.get("line") == "outcome":
            outcomes[str(line["test"])] = ",".join(line["outcome"]) or "passed"  # type: ignore[arg-type]
        else:
            graphs.append(line)
    return graphs, outcomes


def _outcome_counts(outcomes: dict[str, str]) -> str:
    counts = collections.Counter(o.split(",")[-1].split(":")[-1] for o in outcomes.values())
    return ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "no tests"


def summarize(
    graphs: list[dict[str, object]], outcomes: dict[str, str], baseline: dict[str, str]
) -> tuple[list[str], bool]:
    """The summary lines, and whether the run is clean (no failure, no outcome changed)."""
    kinds = collections.Counter(str(g["kind"]) for g in graphs)
    lines = [
        (
            f"graphs: {len(graphs)} multi-device graphs: {kinds['matched']} matched, "
            f"{kinds['mismatch']} mismatched, {kinds['error']} errors, "
            f"{kinds['unsupported']} unsupported, {kinds['not-compared']} not compared"
        )
    ]
    for kind, title in (("unsupported", "unsupported"), ("not-compared", "not compared")):
        reasons = collections.Counter(str(g["reason"]) for g in graphs if g["kind"] == kind)
        if reasons:
            lines.append(f"{title}, by reason:")
            lines += [f"  {n:5d}  {r}" for r, n in reasons.most_common()]
    for kind in ("mismatch", "error"):
        bad = [g for g in graphs if g["kind"] == kind]
        if bad:
            lines.append(f"{kind}es:" if kind == "mismatch" else "errors:")
        for g in bad[:30]:
            detail = str(g["detail"]).strip().splitlines()
            lines.append(f"  {g['test']} #{g['index']} {g['graph']}: {g['reason']}")
            if detail:
                lines.append(f"      {detail[-1][:300]}")
        if len(bad) > 30:
            lines.append(f"  ... and {len(bad) - 30} more (see the report)")
    changed = sorted(t for t in set(baseline) | set(outcomes) if baseline.get(t) != outcomes.get(t))
    lines.append(
        f"tinygrad's outcomes: {_outcome_counts(outcomes)} (baseline: {_outcome_counts(baseline)})"
    )
    lines.append(f"outcomes changed against the baseline: {len(changed)} of {len(outcomes)} tests")
    for t in changed[:30]:
        lines.append(
            f"  {t}: baseline {baseline.get(t, 'absent')}, shadow {outcomes.get(t, 'absent')}"
        )
    failed = kinds["mismatch"] + kinds["error"]
    lines.append(f"{kinds['matched']} passed, {failed} failed")
    return lines, failed == 0 and not changed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m xdsl_multi.frontends.tinygrad.shadow",
        description="Run tinygrad's multi-device tests with every multi-device graph also run "
        "by xdsl-multi and compared with tinygrad's value.",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="tinygrad's own outcomes: read from this report if it exists (no baseline run), "
        "else the baseline run writes it",
    )
    parser.add_argument(
        "--report", type=Path, help="where to write the shadow run's JSON-lines report"
    )
    parser.add_argument(
        "checkout",
        type=Path,
        help="a tinygrad checkout (its tests run against the installed tinygrad)",
    )
    parser.add_argument("pytest_args", nargs=argparse.REMAINDER, help="passed to pytest")
    args = parser.parse_args(argv)
    checkout: Path = args.checkout.resolve()
    if not (checkout / "test").is_dir():
        parser.error(f"{args.checkout}: not a tinygrad checkout (it has no test/ folder)")
    with tempfile.TemporaryDirectory(prefix="xdsl-shadow-") as tmp:
        # absolute: pytest runs in the checkout, which would put a relative path there
        baseline_path: Path = (args.baseline or Path(tmp) / "baseline.jsonl").resolve()
        if not baseline_path.exists():
            print("== baseline: tinygrad's tests alone", flush=True)
            run_pytest(checkout, args.pytest_args, baseline_path, "outcomes")
        report: Path = (args.report or Path(tmp) / "shadow.jsonl").resolve()
        report.unlink(missing_ok=True)
        print(
            "== shadow: tinygrad's tests, every multi-device graph also run by xdsl-multi",
            flush=True,
        )
        status = run_pytest(checkout, args.pytest_args, report, "shadow")
        _, baseline = read_report(baseline_path)
        graphs, outcomes = read_report(report)
    lines, clean = summarize(graphs, outcomes, baseline)
    print("== xdsl-multi shadow of tinygrad's tests")
    if status not in (0, 1):  # 0, 1: the tests ran (and some failed); else pytest itself failed
        lines.insert(-1, f"the shadow run's pytest exited with status {status}")
        clean = False
    print("\n".join(lines))
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())

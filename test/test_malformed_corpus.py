"""multi-opt on every file of test/corpus/malformed: a clean diagnostic, never a traceback.

For each file (one pytest test per file) multi-opt must exit with code 1, print an `error:`
line, and print no Python traceback on stdout or stderr. When the failure is in the file itself,
the error names `FILE:LINE:COL` with a line inside the file.

A file may start with header comments:
- `// ARGS: <arguments>`: extra multi-opt arguments, split like a shell would
  (e.g. `// ARGS: -p 'multi-to-devidx{allreduce=bogus}'`);
- `// NOLOC: <why>`: the failure has no location in the file (a bad pass option, target or
  flag, text that is not UTF-8), so only the `error:` line is required.

Files with a known bug are listed in KNOWN_BUGS: they are strict xfails, so a fix shows up as
a failure that asks for the entry to be removed.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from tool_server import tool_command, tool_server

# Under pytest-xdist (`-n auto --dist loadgroup`) the corpus runs once, on one worker.
pytestmark = pytest.mark.xdist_group("malformed-corpus")

CORPUS = Path(__file__).resolve().parent / "corpus" / "malformed"
FILES = sorted(p.name for p in CORPUS.glob("*.mlir"))
TIMEOUT_SECONDS = 120

KNOWN_BUGS: dict[str, str] = {}


def _multi_opt() -> list[str]:
    """The multi-opt of the Python running the tests (as lit.cfg.py picks it)."""
    script = Path(sys.executable).parent / "multi-opt"
    if os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "xdsl_multi.tools.multi_opt"]


@dataclass(frozen=True)
class Case:
    path: Path
    args: list[str]
    located: bool
    """The failure is in the file: the error must name FILE:LINE:COL."""
    lines: int


def _case(name: str) -> Case:
    path = CORPUS / name
    data = path.read_bytes()
    args: list[str] = []
    located = True
    for line in data.decode("utf-8", errors="replace").splitlines()[:5]:
        if not line.startswith("//"):
            break
        if line.startswith("// ARGS:"):
            args = shlex.split(line.removeprefix("// ARGS:"))
        elif line.startswith("// NOLOC"):
            located = False
    return Case(path, args, located, data.count(b"\n") + 1)


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str


def _run(case: Case, env: dict[str, str] | None = None) -> Run:
    """multi-opt on the case: the console script, or in the tool server that `env` names."""
    command = tool_command("multi-opt") if env is not None else _multi_opt()
    try:
        done = subprocess.run(
            [*command, str(case.path), *case.args],
            capture_output=True,
            check=False,
            timeout=TIMEOUT_SECONDS,
            stdin=subprocess.DEVNULL,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return Run(-1, "", f"multi-opt did not finish within {TIMEOUT_SECONDS} s")
    return Run(
        done.returncode,
        done.stdout.decode("utf-8", errors="replace"),
        done.stderr.decode("utf-8", errors="replace"),
    )


@pytest.fixture(scope="module")
def runs(request: pytest.FixtureRequest) -> dict[str, Run]:
    """Run multi-opt on every selected corpus file, in parallel (one process each, forked
    by the tool server, test/support/tool_server.py: the imports are done once)."""
    selected: list[str] = [
        str(item.callspec.params["name"])
        for item in request.session.items
        if isinstance(item, pytest.Function)
        and hasattr(item, "callspec")
        and "name" in item.callspec.params
        and item.module is not None
        and item.module.__name__ == __name__
    ] or FILES
    with tool_server() as env, ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return dict(zip(selected, pool.map(lambda n: _run(_case(n), env), selected), strict=True))


def _params() -> list[object]:
    return [
        pytest.param(name, marks=pytest.mark.xfail(reason=KNOWN_BUGS[name], strict=True))
        if name in KNOWN_BUGS
        else name
        for name in FILES
    ]


@pytest.mark.parametrize("name", _params())
def test_malformed_input_gets_a_clean_diagnostic(name: str, runs: dict[str, Run]) -> None:
    case = _case(name)
    run = runs[name] if name in runs else _run(case)
    shown = (
        f"exit code {run.returncode}\n--- stdout\n{run.stdout[:3000]}\n"
        f"--- stderr\n{run.stderr[:3000]}"
    )
    assert "Traceback" not in run.stdout + run.stderr, shown
    assert run.returncode == 1, shown
    assert re.search(r"(^|: )error: ", run.stderr, re.MULTILINE), shown
    if case.located:
        located = re.findall(
            rf"^{re.escape(str(case.path))}:(\d+):(\d+): error: ", run.stderr, re.MULTILINE
        )
        assert located, f"no `{case.path}:LINE:COL: error:` line\n{shown}"
        line, col = (int(v) for v in located[0])
        assert 1 <= line <= case.lines and col >= 1, shown


def test_corpus_is_large_enough() -> None:
    """An emptied folder would make the corpus pass vacuously."""
    assert len(FILES) >= 30, FILES


def test_every_known_bug_is_in_the_corpus() -> None:
    assert set(KNOWN_BUGS) <= set(FILES), set(KNOWN_BUGS) - set(FILES)

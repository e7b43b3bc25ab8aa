"""The lit tests under test/lit, one pytest test per lit test file.

Discovery is lit's own (`lit --show-tests`, so suffixes and excludes come from
test/lit/lit.cfg.py). lit runs once per session, in parallel, on every selected lit test
(`pytest -k parse-error` runs only that one); each pytest test then reports its file's result,
with lit's output when it fails. multi-opt, multi-run and filecheck run in a fork server
(test/support/tool_server.py), which imports them once for all RUN lines.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from tool_server import tool_server

# Under pytest-xdist (`-n auto --dist loadgroup`) lit runs once per session, on the worker
# that gets the lit tests.
pytestmark = pytest.mark.xdist_group("lit")

LIT_DIR = Path(__file__).resolve().parent / "lit"
LIT = [sys.executable, "-c", "import sys, lit.main; sys.argv[0] = 'lit'; lit.main.main()"]
LIT_TIMEOUT_SECONDS = 900
"""For the whole lit run; a hanging test fails every lit test instead of hanging CI."""


def _discover() -> list[str]:
    """Test names relative to test/lit, e.g. `tools/parse-error.mlir`."""
    result = subprocess.run(
        [*LIT, "--show-tests", str(LIT_DIR)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if result.returncode != 0:
        raise RuntimeError(f"lit --show-tests failed:\n{result.stdout}\n{result.stderr}")
    return sorted(
        line.split(" :: ", 1)[1].strip() for line in result.stdout.splitlines() if " :: " in line
    )


LIT_TESTS = _discover()


@dataclass(frozen=True)
class LitResult:
    code: str
    output: str
    elapsed: float


@pytest.fixture(scope="session")
def lit_results(request: pytest.FixtureRequest) -> dict[str, LitResult]:
    """Run lit once on every lit test that this pytest session selected."""
    selected = [
        item.callspec.params["lit_test"]
        for item in request.session.items
        if isinstance(item, pytest.Function)
        and hasattr(item, "callspec")
        and "lit_test" in item.callspec.params
    ]
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "lit.json"
        command = [
            *LIT,
            "-q",
            f"-j{os.cpu_count() or 1}",
            f"--output={report}",
            *(str(LIT_DIR / name) for name in selected),
        ]
        try:
            with (Path(tmp) / "server.log").open("w") as log, tool_server(log) as env:
                run = subprocess.run(
                    command,
                    check=False,
                    capture_output=True,
                    text=True,
                    timeout=LIT_TIMEOUT_SECONDS,
                    env=env,
                )
        except subprocess.TimeoutExpired:
            pytest.fail(f"lit did not finish within {LIT_TIMEOUT_SECONDS} s", pytrace=False)
        if not report.exists():
            pytest.fail(f"lit wrote no report:\n{run.stdout}\n{run.stderr}", pytrace=False)
        tests = json.loads(report.read_text())["tests"]
    return {
        test["name"].split(" :: ", 1)[1]: LitResult(test["code"], test["output"], test["elapsed"])
        for test in tests
    }


@pytest.mark.parametrize("lit_test", LIT_TESTS)
def test_lit(lit_test: str, lit_results: dict[str, LitResult]) -> None:
    result = lit_results.get(lit_test)
    if result is None:
        pytest.fail(f"lit reported no result for {lit_test}", pytrace=False)
    if result.code == "UNSUPPORTED":
        pytest.skip(f"lit: UNSUPPORTED {lit_test}")
    if result.code not in ("PASS", "XFAIL"):
        pytest.fail(f"lit: {result.code} {lit_test}\n{result.output}", pytrace=False)


def test_lit_discovers_tests() -> None:
    """An empty list would make the lit tests pass vacuously."""
    assert any(name.startswith("tools/") for name in LIT_TESTS), LIT_TESTS


def test_lit_tests_share_one_worker(request: pytest.FixtureRequest) -> None:
    """Under pytest-xdist with `--dist loadgroup` the lit group must really be one group: two
    lit runs at once share test/lit's Output folders, and one's `rm -f %t.out.mlir` deletes
    the other's file (tools/output-file.mlir failed that way with pytest 9.2, whose node ids
    pytest-xdist 3.8 can no longer tag with the group; pyproject.toml pins pytest below it)."""
    if not os.environ.get("PYTEST_XDIST_WORKER") or not request.config.getvalue("loadgroup"):
        pytest.skip("not under pytest-xdist --dist loadgroup")
    assert request.node.nodeid.endswith("@lit"), request.node.nodeid

"""The tool server (test/support/tool_server.py), which lit and the malformed corpus use for
multi-opt, multi-run and filecheck: a tool run through it must be the tool run as a process.
Same stdout, stderr and exit code as the console script, with the caller's stdin, working
folder and environment."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from tool_server import tool_command, tool_server

GOOD = """\
!on01 = tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
func.func @main(%x: !on01) -> !on01 {
  %y = arith.addf %x, %x : !on01
  func.return %y : !on01
}
"""
BAD = GOOD.replace("%x, %x", "%x, %z")


def _script(tool: str) -> list[str]:
    return [str(Path(sys.executable).parent / tool)]


@pytest.fixture(scope="module")
def served() -> Iterator[dict[str, str]]:
    with tool_server() as env:
        yield env


def _both(command: list[str], cwd: Path, served: dict[str, str], stdin: str = ""):
    """(the console script's run, the served run) of `multi-opt` + command."""
    runs = []
    for prefix, env in ((_script("multi-opt"), None), (tool_command("multi-opt"), served)):
        runs.append(
            subprocess.run(
                [*prefix, *command],
                input=stdin,
                cwd=cwd,
                env=env,
                capture_output=True,
                text=True,
                check=False,
                timeout=120,
            )
        )
    return runs


def test_served_multi_opt_prints_what_the_script_prints(
    served: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "bad.mlir").write_text(BAD)
    direct, through = _both(["bad.mlir"], tmp_path, served)
    assert direct.returncode == through.returncode == 1
    assert "bad.mlir:3:" in through.stderr, through.stderr
    assert (through.stdout, through.stderr) == (direct.stdout, direct.stderr)

    direct, through = _both([], tmp_path, served, stdin=GOOD)  # the module on stdin
    assert direct.returncode == through.returncode == 0, through.stderr
    assert "arith.addf %x, %x" in through.stdout
    assert (through.stdout, through.stderr) == (direct.stdout, direct.stderr)


def _served(tool: str, args: list[str], cwd: Path, env: dict[str, str], stdin: str = ""):
    return subprocess.run(
        [*tool_command(tool), *args],
        input=stdin, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip


def test_served_tools_get_the_callers_folder_and_environment(
    served: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / "good.mlir").write_text(GOOD)
    wrote = _served("multi-opt", ["good.mlir", "-o", "out.mlir"], tmp_path, served)
    assert wrote.returncode == 0, wrote.stderr
    assert "arith.addf" in (tmp_path / "out.mlir").read_text()

    cache = tmp_path / "objects"  # multi-run keeps object code where the caller's env says
    env = {**served, "XDSL_MULTI_CACHE_DIR": str(cache)}
    ran = _served("multi-run", ["good.mlir", "--random-inputs", "--check"], tmp_path, env)
    assert ran.returncode == 0, ran.stderr
    assert list(cache.glob("*.o")), ran.stdout

    (tmp_path / "check.txt").write_text("CHECK: addf\n")
    assert _served("filecheck", ["check.txt"], tmp_path, served, "arith.addf\n").returncode == 0
    failed = _served("filecheck", ["check.txt"], tmp_path, served, "nothing\n")
    assert failed.returncode == 1 and "error" in failed.stderr, failed.stderr

"""The layering of DESIGN.md ("What each part may touch") holds: `lint-imports` checks the
import-linter contracts of pyproject.toml (`[tool.importlinter]`).

pyproject maps the top-level folders into the one package (`xdsl_multi.dialects` is
dialects/), which import-linter cannot follow through the editable install; so the test lays
the package out as it is installed (a copy of its `.py` files, and of bench/) in a temporary
folder and runs `lint-imports` there.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")
pytest.importorskip("importlinter")

ROOT = Path(__file__).resolve().parents[1]


def lay_out_package(target: Path) -> None:
    """Copy every package folder of pyproject's `package-dir` to where it is installed, and
    bench/, under `target`."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    for package, folder in config["tool"]["setuptools"]["package-dir"].items():
        dest = target.joinpath(*package.split("."))
        dest.mkdir(parents=True, exist_ok=True)
        for source in (ROOT / folder).glob("*.py"):
            shutil.copy(source, dest / source.name)
    shutil.copytree(ROOT / "bench", target / "bench", ignore=shutil.ignore_patterns("*.mlir"))


def run_lint_imports(target: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(target)}
    script = "import sys; from importlinter.cli import lint_imports_command as c; sys.exit(c())"
    return subprocess.run(
        [sys.executable, "-c", script, "--no-cache", str(ROOT / "pyproject.toml")],
        check=False, cwd=target, env=env, capture_output=True, text=True, timeout=300,
    )


def test_import_contracts_are_kept(tmp_path: Path) -> None:
    lay_out_package(tmp_path)
    result = run_lint_imports(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_a_broken_contract_is_reported(tmp_path: Path) -> None:
    """The check can fail: a dialect that imports the runtime breaks the layers."""
    lay_out_package(tmp_path)
    tg = tmp_path / "xdsl_multi" / "dialects" / "tg.py"
    tg.write_text(tg.read_text() + "\nimport xdsl_multi.runtime.values  # noqa\n")
    result = run_lint_imports(tmp_path)
    assert result.returncode != 0
    assert "xdsl_multi.dialects.tg -> xdsl_multi.runtime.values" in result.stdout

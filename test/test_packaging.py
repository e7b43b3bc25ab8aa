"""The package installs from a wheel into a clean virtual environment and works there.

Builds a wheel from a copy of the project's files, installs it with its dependencies into a
plain `python -m venv` (no system site-packages, so nothing comes from this checkout or the
editable install), and runs from a folder outside the project:
- `multi-opt --help` and an import of `xdsl_multi.dialects.multi`, which must come from the
  venv's site-packages;
- stock `xdsl-opt` on a module using the `multi` dialect: it finds our dialect only through the
  `xdsl.universe` entry point declared in pyproject.toml;
- `multi-opt` on the same module, and its diagnostic for a bad one.
About 15-25 s with the package index's files cached.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# Under pytest-xdist (`-n auto --dist loadgroup`) the tests share one worker, so the venv (a
# module-scoped fixture) is built once, not once per worker.
pytestmark = pytest.mark.xdist_group("packaging")

ROOT = Path(__file__).resolve().parents[1]

MULTI_MODULE = """\
!on01 = tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
!on1 = tensor<4x4xf32, #multi.on<["CPU:1"]>>
func.func @f(%x: !on01) -> !on1 {
  %s = multi.mselect %x[1] : !on01 -> !on1
  func.return %s : !on1
}
"""
BAD_MULTI_MODULE = MULTI_MODULE.replace("%x[1]", "%x[3]")

# What a fresh checkout holds; generated folders would leak stale files into the wheel.
_NOT_SOURCE = shutil.ignore_patterns(
    ".git", "build", "dist", "*.egg-info", "__pycache__", "Output", ".pytest_cache", ".venv*"
)


def _run(command: list[str | Path], cwd: Path, env: dict[str, str], timeout: float = 300):
    result = subprocess.run(
        [str(c) for c in command],
        cwd=cwd,
        env=env,
        check=False,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert result.returncode == 0, (
        f"{' '.join(map(str, command))} exited with {result.returncode}\n"
        f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    )
    return result


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    """(bin folder of a fresh venv with the wheel installed, a work folder, its environment)."""
    tmp = tmp_path_factory.mktemp("packaging")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env.pop("VIRTUAL_ENV", None)

    source = tmp / "source"
    shutil.copytree(ROOT, source, ignore=_NOT_SOURCE)
    dist = tmp / "dist"
    _run([sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "-q", "-w", dist], source, env)
    wheels = list(dist.glob("xdsl_multi-*.whl"))
    assert len(wheels) == 1, wheels

    # Without pip of its own (bootstrapping one costs ~7 s of CPU): this Python's pip
    # installs into it (`pip --python`, pip >= 22.3).
    venv_dir = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv_dir], tmp, env)
    bin_dir = venv_dir / ("Scripts" if os.name == "nt" else "bin")
    python = bin_dir / "python"
    _run([sys.executable, "-m", "pip", "--python", python, "install", "-q", wheels[0]], tmp, env)

    work = tmp / "work"  # outside the project: nothing resolves to the checkout
    work.mkdir()
    return bin_dir, work, env


@pytest.mark.slow
def test_wheel_installs_and_imports_from_venv(venv) -> None:
    bin_dir, work, env = venv
    help_text = _run([bin_dir / "multi-opt", "--help"], work, env).stdout
    assert "usage: multi-opt" in help_text

    location = _run(
        [
            bin_dir / "python",
            "-c",
            "import xdsl_multi.dialects.multi as m, xdsl_multi.tools.multi_opt; print(m.__file__)",
        ],
        work,
        env,
    ).stdout.strip()
    site_packages = (bin_dir.parent / "lib").resolve()
    assert Path(location).resolve().is_relative_to(site_packages), location
    assert not Path(location).resolve().is_relative_to(ROOT), location


@pytest.mark.slow
def test_stock_xdsl_opt_finds_our_dialect(venv) -> None:
    bin_dir, work, env = venv
    program = work / "multi.mlir"
    program.write_text(MULTI_MODULE)
    printed = _run([bin_dir / "xdsl-opt", program], work, env).stdout
    assert "multi.mselect %x[1]" in printed


@pytest.mark.slow
def test_installed_multi_opt_parses_and_diagnoses(venv) -> None:
    bin_dir, work, env = venv
    good = work / "good.mlir"
    good.write_text(MULTI_MODULE)
    assert "multi.mselect" in _run([bin_dir / "multi-opt", good], work, env).stdout

    bad = work / "bad.mlir"
    bad.write_text(BAD_MULTI_MODULE)
    result = subprocess.run(
        [str(bin_dir / "multi-opt"), str(bad)],
        cwd=work,
        env=env,
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert result.stderr.startswith(
        f"{bad}:4:3: error: multi.mselect: index 3 is out of range for 2 devices\n"
    ), result.stderr
    assert "Traceback" not in result.stderr

"""Starting MPI jobs from tests: the `mpiexec` of this Python's environment (the MPICH wheel of
the `mpi` extra puts it next to the interpreter), and a skip marker for when MPI is genuinely
not installed."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SUPPORT = Path(__file__).resolve().parent


def _mpiexec() -> str | None:
    beside = Path(sys.executable).parent / "mpiexec"
    return str(beside) if beside.exists() else shutil.which("mpiexec")


MPIEXEC = _mpiexec()
needs_mpi = pytest.mark.skipif(
    MPIEXEC is None or importlib.util.find_spec("mpi4py") is None,
    reason="mpiexec or mpi4py is not installed (pip install 'xdsl-multi[mpi]')",
)


def mpirun(n: int, *args: object, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`mpiexec -n N python ARGS...`, captured."""
    assert MPIEXEC is not None
    return subprocess.run(
        [MPIEXEC, "-n", str(n), sys.executable, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )

"""The mpi backend under a real `mpiexec` (the MPICH wheel's, from the `mpi` extra): results
identical to threads on 2 and 3 ranks, bad inputs ending every rank, and a failing kernel, a
receive that times out and a dead rank each ending the whole job quickly.

Each case starts one MPI job (about 2 s), so there are few. Skipped only when mpiexec or mpi4py
is genuinely missing."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from kernel_programs import exchange_program
from mpi_jobs import SUPPORT, mpirun, needs_mpi

pytestmark = needs_mpi


def multi_run_cmd() -> list[str]:
    return ["-m", "xdsl_multi.tools.multi_run"]


@pytest.mark.parametrize("n", [2, 3])
def test_mpi_gives_the_results_of_threads(tmp_path: Path, n: int) -> None:
    prog = tmp_path / "prog.mlir"
    prog.write_text(exchange_program(n, 4 * n))
    rng = np.random.default_rng(n)
    x = rng.standard_normal(4 * n).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    common = [prog, "--input", f"x={tmp_path / 'x.npy'}", "--random-inputs", "--seed", "1"]
    r = mpirun(
        n,
        *multi_run_cmd(),
        *common,
        "--backend",
        "mpi",
        "--output",
        tmp_path / "mpi.npz",
        "--check",
        "--time",
    )
    assert r.returncode == 0, r.stderr
    assert "check: mpi matches interp (2 results)" in r.stdout
    assert "time: first run (with scatter and gather)" in r.stderr
    assert "time: steady run min (5 runs)" in r.stderr
    assert "memory: peak live buffers: device 0 " in r.stderr
    from xdsl_multi.tools.multi_run import run_multi_run

    assert run_multi_run([*map(str, common), "--output", str(tmp_path / "threads.npz")]) == 0
    with np.load(tmp_path / "mpi.npz") as mpi, np.load(tmp_path / "threads.npz") as threads:
        assert sorted(mpi) == sorted(threads) == ["result0", "result1"]
        for key in mpi:
            np.testing.assert_array_equal(mpi[key], threads[key])


def test_bad_input_and_wrong_rank_count_end_every_rank(tmp_path: Path) -> None:
    prog = tmp_path / "prog.mlir"
    prog.write_text(exchange_program(2))
    np.save(tmp_path / "x.npy", np.zeros(8, np.float64))
    start = time.perf_counter()
    r = mpirun(
        2,
        *multi_run_cmd(),
        prog,
        "--backend",
        "mpi",
        "--input",
        f"x={tmp_path / 'x.npy'}",
        "--random-inputs",
    )
    assert r.returncode == 1, r.stderr
    assert r.stderr.count("expected dtype float32") == 1, r.stderr  # rank 0 says it, once
    r = mpirun(3, *multi_run_cmd(), prog, "--backend", "mpi", "--random-inputs")
    assert r.returncode == 1, r.stderr
    assert r.stderr.count("the program runs on 2 devices, but there are 3 MPI ranks") == 1
    assert "Traceback" not in r.stderr
    assert time.perf_counter() - start < 30


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("raise", "rank 1: device 1 failed at step 1 (call @kernel0): ValueError: bad buffer"),
        (
            "slow",
            (
                "rank 1: device 1 failed at step 3 (recv from device 0 channel 0): no message "
                "from device 0 on channel 0 after 0.5 s"
            ),
        ),
        ("die", ""),
    ],
)
def test_a_failing_rank_ends_the_job(mode: str, message: str) -> None:
    """A kernel that raises and a receive that times out end the job with MPI_Abort and a
    line naming the rank and step; a rank that dies (os._exit) is ended by mpiexec, which
    ends the other rank, waiting on a receive from it."""
    start = time.perf_counter()
    r = mpirun(2, SUPPORT / "mpi_driver.py", mode, timeout=60)
    assert r.returncode != 0, r.stdout + r.stderr
    assert "ok" not in r.stdout
    assert f"mpi-driver: error: {message}" in r.stderr if message else True, r.stderr
    assert time.perf_counter() - start < 20  # not the driver's 30 s sleep, nor a hang

"""Every example and a set of random programs give the reference interpreter's results on the
compiled backends: threads here, mpi on 2 and 3 ranks in one MPI job each
(support/mpi_corpus_driver.py); with the kernels specialized per device and in SPMD mode
(built once, the device number an argument). More random programs run on threads only
(compiled_runs.THREADS_RANDOM_SEEDS; environment variables raise the count for a soak)."""

from __future__ import annotations

import re

import pytest
from compiled_runs import (
    MODES,
    RANDOM_SEEDS,
    THREADS_RANDOM_SEEDS,
    compare_with_interp,
    corpus,
    device_count,
    inputs_for,
    lowered,
)
from mpi_jobs import SUPPORT, mpirun, needs_mpi
from random_programs import random_program

from xdsl_multi.runtime.program import Program

CORPUS = corpus()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("name", "text", "seed"), CORPUS, ids=[c[0] for c in CORPUS])
def test_threads_matches_interp(name: str, text: str, seed: int, mode: str) -> None:
    inputs = inputs_for(text, seed)
    with Program(lowered(text, mode)) as program:
        first = program(inputs)
        again = program(inputs)  # steady state: reused device memory gives the same results
    assert compare_with_interp(text, inputs, first, "threads") is None
    assert compare_with_interp(text, inputs, again, "threads") is None


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("seed", THREADS_RANDOM_SEEDS)
def test_random_program_threads_matches_interp(seed: int, mode: str) -> None:
    """Random programs (Invalid lanes meeting every kind of op, encodings on any subset of the
    devices in any order) compiled with the real JIT give the interpreter's results."""
    text = random_program(seed).text
    inputs = inputs_for(text, seed)
    with Program(lowered(text, mode)) as program:
        mismatch = compare_with_interp(text, inputs, program(inputs), "threads")
    assert mismatch is None, f"{mismatch}\n--- random_program({seed}), input seed {seed}:\n{text}"


def test_random_programs_probe_invalid_lanes() -> None:
    """Most of CI's random programs return a value that may hold Invalid lanes and also read it
    by an op where a 0 read there gives another answer (issue 9), returning that op's result:
    with the form-kernels fix reverted, about a third of them then mismatch."""
    seeds = [*RANDOM_SEEDS, *THREADS_RANDOM_SEEDS]
    probed = 0
    for seed in seeds:
        program = random_program(seed)
        lines = program.text.splitlines()
        returned = set(re.findall(r"%\w+", next(t for t in lines if "func.return" in t)))
        for value, reader in program.probes:
            assert {value, reader} <= returned, (seed, value, reader)
            assert any(re.search(rf"= .*{value}\b", t) for t in lines), (seed, value)
        probed += bool(program.probes)
    assert probed >= 0.75 * len(seeds), f"{probed} of {len(seeds)} programs probe Invalid lanes"


@needs_mpi
@pytest.mark.parametrize(("ranks", "mode"), [(2, "specialized"), (3, "specialized"), (3, "spmd")])
def test_mpi_matches_interp(ranks: int, mode: str) -> None:
    r = mpirun(ranks, SUPPORT / "mpi_corpus_driver.py", mode, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "MISMATCH" not in r.stdout, r.stdout
    wanted = sum(1 for _, text, _ in CORPUS if device_count(text) <= ranks)
    assert f"ran {wanted} programs" in r.stdout, r.stdout
    assert wanted >= 8

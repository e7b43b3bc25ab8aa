"""Random programs on device meshes (random_programs.random_mesh_program), compiled on the
threads backend, per device and in SPMD mode, give the reference interpreter's results and the
numpy oracle's (issue 15)."""

from __future__ import annotations

import os

import numpy as np
import pytest
from compiled_runs import MODES, compare_with_interp
from random_programs import random_mesh_program

import xdsl_multi as xm

MESH_SEEDS = range(
    int(os.environ.get("XDSL_MULTI_MESH_SEED", "100")),
    int(os.environ.get("XDSL_MULTI_MESH_SEED", "100"))
    + int(os.environ.get("XDSL_MULTI_MESH_PROGRAMS", "12")),
)
"""Seeds 100..111 in CI; for a local soak, e.g.
`XDSL_MULTI_MESH_PROGRAMS=300 XDSL_MULTI_MESH_SEED=1000 pytest -k random_mesh` (as
compiled_runs.THREADS_RANDOM_SEEDS)."""


def compiled(text: str, mode: str) -> xm.Program:
    return xm.compile(text, backend="threads", spmd=mode == "spmd")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("seed", MESH_SEEDS)
def test_random_mesh_program_threads_matches_interp(seed: int, mode: str) -> None:
    p = random_mesh_program(seed)
    with compiled(p.text, mode) as program:
        got = program(*p.inputs)
    mismatch = compare_with_interp(p.text, p.inputs, got, "threads")
    assert mismatch is None, f"{mismatch}\n--- random_mesh_program({seed}):\n{p.text}"
    for i, (g, want) in enumerate(zip(got, p.expected, strict=True)):
        np.testing.assert_allclose(g, want, rtol=1e-4, atol=p.mesh_atol(i), err_msg=p.text)

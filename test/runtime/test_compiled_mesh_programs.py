"""Random programs on device meshes (random_programs.random_mesh_program), compiled on the
threads backend, per device and in SPMD mode, give the reference interpreter's results and the
numpy oracle's. The compiled pipeline does not lower meshes yet: while compiling raises exactly
multi-to-devidx's "device meshes are not lowered yet" diagnostic, each case is skipped; any
other error fails, and the cases run by themselves once the lowering lands (issue 15)."""

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
NOT_LOWERED = "device meshes are not lowered yet (SPEC §1.1)"


def compiled(text: str, mode: str) -> xm.Program:
    try:
        return xm.compile(text, backend="threads", spmd=mode == "spmd")
    except xm.CompileError as e:
        if NOT_LOWERED in e.message:
            pytest.skip("meshes are not lowered yet (issue 15)")
        raise


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

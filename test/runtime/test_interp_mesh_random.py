"""Random programs on device meshes (test/support/random_programs.py `random_mesh_program`:
meshes 2x2, 2x3, 1x4, 4x1 and 2x2x2, random split axes with `none` dims, even and uneven
lengths, elementwise and movement ops, reduces over random subsets of the axes, copies between
encodings and mesh shapes) in the reference interpreter, against the numpy oracle the
generator computes from the logical program."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from random_programs import MESH_SHAPES, random_mesh_program

import xdsl_multi as xm

SEEDS = range(40)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_mesh_program_matches_numpy(seed: int) -> None:
    p = random_mesh_program(seed)
    with xm.compile(p.text, backend="interp") as program:
        got = program(*p.inputs)
    assert len(got) == len(p.expected)
    for i, (g, want) in enumerate(zip(got, p.expected, strict=True)):
        g = np.asarray(g)
        assert g.shape == want.shape, f"result {i}: {g.shape} != {want.shape}\n{p.text}"
        np.testing.assert_allclose(g, want, rtol=1e-4, atol=p.mesh_atol(i), err_msg=p.text)


def test_the_mesh_programs_cover_every_mesh_and_op_family() -> None:
    """The seeds above meet every mesh, uneven lengths, `none` dims, a copy to another mesh
    shape, and every op the generator has."""
    programs = [random_mesh_program(seed) for seed in SEEDS]
    assert {p.mesh for p in programs} == set(MESH_SHAPES)
    ops = Counter(name for p in programs for name in p.op_names)
    for name in (
        "arith.addf",
        "arith.mulf",
        "arith.maximumf",
        "arith.negf",
        "tg.reduce",
        "tg.permute",
        "tg.shrink",
        "tg.flip",
        "tg.pad",
        "tg.reshape",
        "multi.copy",
    ):
        assert ops[name] >= 3, (name, ops)
    texts = "\n".join(p.text for p in programs)
    assert "none" in texts and "#multi.on" in texts
    uneven = [
        p
        for p in programs
        if any(any(n % m for n in x.shape for m in p.mesh if m > 1) for x in p.inputs)
    ]
    assert len(uneven) >= 10
    meshes_in_copies = {
        line.split("mesh = ")[-1].split("]")[0]
        for line in texts.splitlines()
        if "multi.copy" in line and "mesh = " in line
    }
    assert len(meshes_in_copies) >= 6, meshes_in_copies

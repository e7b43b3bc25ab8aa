"""Device meshes at EVERY level (issue 15, done-when): each program runs in the reference
interpreter at the multi level and after each pass, and every level must give the multi
level's outputs:

    multi-to-devidx (default form) -> devidx-simplify -> specialize-devices -> form-kernels
                                      devidx-simplify -> form-kernels{spmd=true}
    multi-to-devidx{collectives=ops} -> devidx-simplify -> form-kernels{spmd=true}

(the corpus's machinery, support/pipeline_check.py, plus the collectives=ops chain of SPEC's
SPMD pipeline), and a subset compiled on threads in both modes. The cases are
test_interp_mesh.py's (meshes 2x2, 2x3, 1x4, 4x1, 2x2x2; each dim its own axis, every dim on
axis 0, replicated on all dims but the last; even and uneven lengths), whose numpy oracles pin
the multi level; the programs here hold every op family: elementwise, movement ops on split and
unsplit axes, reduces over each subset of the split axes, multi.multi/local, and copies between
every pair of a set of encodings. See docs/mesh-test-audit.md.
"""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from pipeline_check import _check_stage, check_program_on, compare, parse, stages
from random_programs import random_mesh_program
from xdsl.dialects.builtin import ModuleOp, f32

import xdsl_multi as xm
from xdsl_multi.dialects.multi import MeshAxis, OnAttr, ShardAttr
from xdsl_multi.runtime.interpreter.interpreter import run_module

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
from test_interp_mesh import CASES, case_id, multi_local_program, names, oracle_block

Case = tuple[tuple[int, ...], tuple[MeshAxis, ...], tuple[int, ...]]


def check_every_level(
    module: ModuleOp, inputs: list[np.ndarray], allreduce: str = "auto", specialize: bool = True
) -> None:
    """The multi-level program and the module after every pass of both pipelines (and of the
    collectives=ops form) give the same outputs. `specialize=False` checks SPEC's SPMD pipeline
    only (multi-to-devidx{collectives=ops}, devidx-simplify, form-kernels{spmd}) and the default
    form through devidx-simplify: specialize-devices and per-device form-kernels are the slow
    passes (seconds per program), so they run on a subset of the cases."""
    text = str(module)
    where = f"\n--- allreduce={allreduce}\n--- program:\n{text}"
    want = run_module(parse(text), inputs)
    if specialize:
        check_program_on(text, allreduce, 8, inputs, where)
    else:
        default_form = parse(text)
        for spec in stages(allreduce, 8)[:2]:
            _check_stage(spec, default_form, inputs, want, where)
    ops_form = parse(text)
    for spec in stages(allreduce, 8, spmd=True):
        _check_stage(spec, ops_form, inputs, want, where)


def check_compiled(module: ModuleOp, inputs: list[np.ndarray]) -> None:
    text = str(module)
    want = run_module(parse(text), inputs)
    for spmd in (False, True):
        with xm.compile(text, backend="threads", spmd=spmd) as prog:
            diff = compare([np.asarray(g) for g in prog(*inputs)], want)
        assert diff is None, f"threads, spmd={spmd}: {diff}\n{text}"


def every_family(mesh: Sequence[int], axes: Sequence[MeshAxis], shape: Sequence[int]) -> ModuleOp:
    """One program with every op family on a value of this encoding: elementwise; reduces over
    each subset of the split axes (add and max) and over an unsplit axis; permute; a reshape
    adding a unit axis, expanded, padded and flipped there; a shrink to the first block of each
    split axis and of an unsplit axis."""
    devices = names(int(np.prod(mesh)))
    enc = xm.Builder.shard(devices, mesh=list(mesh), axes=list(axes))
    split = sorted({a for a in axes if a is not None})
    rank = len(shape)
    b = xm.Builder(devices=devices)
    (x,) = b.function("main", args=[xm.Builder.tensor(list(shape), f32, enc)])
    y = b.addf(b.mulf(x, x), b.negf(x))
    outs = [y]
    subsets = [s for r in range(1, len(split) + 1) for s in itertools.combinations(split, r)]
    for i, s in enumerate(subsets):
        outs.append(b.reduce("add" if i % 2 == 0 else "max", y, list(s)))
    outs.append(b.permute(y, list(reversed(range(rank)))))
    u = b.reshape(y, [*shape, 1])  # keeps every split axis whole
    e = b.expand(u, [*shape, 3])
    p = b.pad(e, [(0, 0)] * rank + [(1, 2)], 0.0)
    outs += [b.flip(p, [rank]), b.reduce("add", p, [rank, *split[:1]])]
    first = oracle_block(shape, mesh, axes, 0)
    bounds = [(s.start, s.stop) if i in split else (0, shape[i]) for i, s in enumerate(first)]
    outs.append(b.shrink(y, bounds))
    unsplit = [i for i in range(rank) if i not in split]
    if unsplit:
        a = unsplit[0]
        cut = [(0, n) for n in shape]
        cut[a] = (1, shape[a])
        outs.append(b.flip(b.shrink(y, cut), [a]))
    b.ret(*outs)
    return b.finish()


def arrays(shape: Sequence[int], seed: int) -> list[np.ndarray]:
    return [np.random.default_rng(seed).standard_normal(list(shape)).astype(np.float32)]


def picked() -> list[int]:
    """Two cases per mesh, one even and one uneven, the axes choice rotating with the mesh
    (CASES is ordered mesh, axes choice, even/uneven); 2x2x2 uneven only (8 devices: slow)."""
    return [m * 6 + 2 * ((m + k) % 3) + k for m in range(5) for k in (0, 1)][:-2] + [29]


PICKED = picked()
SPECIALIZED = {0, 16, 21}
"""The picked cases also run through specialize-devices and per-device form-kernels (the slow
passes, seconds per program): 2x2, 1x4, 4x1, even and uneven (test_mesh_lowering.py runs
every case specialized in the interpreter, test_every_op_family_compiled a 2x2x2 one)."""


@pytest.mark.parametrize("i", PICKED, ids=[case_id(CASES[i]) for i in PICKED])
def test_every_op_family_at_every_level(i: int) -> None:
    c = CASES[i]
    allreduce = ("naive", "ring", "all2all")[i % 3]
    check_every_level(every_family(*c), arrays(c[2], 11), allreduce, i in SPECIALIZED)


@pytest.mark.parametrize("i", PICKED, ids=[case_id(CASES[i]) for i in PICKED])
def test_multi_and_local_at_every_level(i: int) -> None:
    module, loc = multi_local_program(*CASES[i])
    n = int(np.prod(CASES[i][0]))
    check_every_level(module, arrays((n, *loc), 12), specialize=i in SPECIALIZED | {29})


COMPILED = [CASES[13], CASES[29]]


@pytest.mark.parametrize("c", COMPILED, ids=case_id)
def test_every_op_family_compiled(c: Case) -> None:
    check_compiled(every_family(*c), arrays(c[2], 13))


# ---------------------------------------------------------------------------------------------
# Copies between every pair of a set of encodings of the same four devices
# ---------------------------------------------------------------------------------------------

D4 = names(4)


def mesh(m: Sequence[int], axes: Sequence[MeshAxis]) -> ShardAttr:
    return xm.Builder.shard(D4, mesh=list(m), axes=list(axes))


ENCODINGS: list[ShardAttr | OnAttr] = [
    xm.Builder.shard(D4, 0),  # the one-axis shard
    xm.Builder.on(D4),
    mesh([2, 2], [0, 1]),
    mesh([2, 2], [1, 0]),
    mesh([2, 2], [0, None]),
    mesh([2, 2], [None, 1]),
    mesh([4, 1], [0, 1]),
    mesh([1, 4], [None, 1]),
]


def copies_from(src: ShardAttr | OnAttr, shape: Sequence[int]) -> ModuleOp:
    b = xm.Builder(devices=D4)
    (x,) = b.function("main", args=[xm.Builder.tensor(list(shape), f32, src)])
    b.ret(*[b.copy(x, d) for d in ENCODINGS])
    return b.finish()


COPY_CASES = [(src, (5, 7)) for src in range(len(ENCODINGS))]
"""Every source to every encoding, uneven lengths (the SPMD levels: specialized copies and
their traffic are test_mesh_lowering.py's)."""


@pytest.mark.parametrize(("src", "shape"), COPY_CASES)
def test_copies_between_every_pair_at_every_level(src: int, shape: tuple[int, int]) -> None:
    module = copies_from(ENCODINGS[src], shape)
    (a,) = arrays(shape, 14 + src)
    # a #multi.on source is a buffer per device: each holds the same value here
    inputs = [np.stack([a] * 4) if isinstance(ENCODINGS[src], OnAttr) else a]
    want = run_module(module, inputs)
    for got, dst in zip(want, ENCODINGS, strict=True):  # every copy holds the logical value
        np.testing.assert_array_equal(got, np.stack([a] * 4) if isinstance(dst, OnAttr) else a)
    check_every_level(module, inputs, specialize=False)


def test_copies_compiled() -> None:
    for src in (5,):  # 2x2 [none, 1] to every encoding
        check_compiled(copies_from(ENCODINGS[src], (5, 7)), arrays((5, 7), 15))


# ---------------------------------------------------------------------------------------------
# Random mesh programs at every level (the compiled path: test_compiled_mesh_programs.py)
# ---------------------------------------------------------------------------------------------

LEVEL_SEEDS = range(
    int(os.environ.get("XDSL_MULTI_MESH_LEVEL_SEED", "200")),
    int(os.environ.get("XDSL_MULTI_MESH_LEVEL_SEED", "200"))
    + int(os.environ.get("XDSL_MULTI_MESH_LEVEL_PROGRAMS", "6")),
)
"""Random mesh programs checked at every level: 6 in CI; for a soak, e.g.
`XDSL_MULTI_MESH_LEVEL_PROGRAMS=300 XDSL_MULTI_MESH_LEVEL_SEED=2000 pytest -k random`."""


@pytest.mark.parametrize("seed", LEVEL_SEEDS)
def test_random_mesh_program_at_every_level(seed: int) -> None:
    p = random_mesh_program(seed)
    where = f"\n--- random_mesh_program({seed})"
    check_program_on(p.text, ("naive", "ring", "all2all", "auto")[seed % 4], 8, list(p.inputs),
                     where)
    want = run_module(parse(p.text), list(p.inputs))
    ops_form = parse(p.text)
    for spec in stages("auto", 8, spmd=True):
        _check_stage(spec, ops_form, list(p.inputs), want, where)

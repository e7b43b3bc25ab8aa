"""Device meshes at the multi level (SPEC §1.1), in the reference interpreter, numpy the oracle.

Programs are built with `xm.Builder` (result types inferred by the verifiers' rules), printed and
parsed back (the syntax round-trips), then run. The oracle's bounds are written here from the
SPEC text (`oracle_block`), not taken from the dialect.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp, TensorType, f32

import xdsl_multi as xm
from xdsl_multi.dialects import make_context
from xdsl_multi.dialects.multi import (
    MeshAxis,
    OnAttr,
    ShardAttr,
    split_bounds,
    split_local_length,
)
from xdsl_multi.dialects.parsing import parse_mlir
from xdsl_multi.runtime.interpreter.interpreter import run_module

MESHES = [(2, 2), (2, 3), (1, 4), (4, 1), (2, 2, 2)]


def names(n: int) -> list[str]:
    return [f"CPU:{i}" for i in range(n)]


def ceil_parts(lo: int, hi: int, p: int) -> list[tuple[int, int]]:
    """§1's rule on rows [lo, hi): p parts of ceil((hi - lo) / p) rows, the last ones short."""
    s = -(-(hi - lo) // p)
    return [(min(lo + i * s, hi), min(lo + (i + 1) * s, hi)) for i in range(p)]


def oracle_block(
    shape: Sequence[int], mesh: Sequence[int], axes: Sequence[MeshAxis], k: int
) -> tuple[slice, ...]:
    """Device k's rows of every axis: coordinates row-major, each split axis cut by its mesh
    dims in order (major first), each part by the ceil rule (SPEC §1.1)."""
    coords = np.unravel_index(k, mesh)
    out = []
    for axis, length in enumerate(shape):
        lo, hi = 0, length
        for dim, a in enumerate(axes):
            if a == axis:
                lo, hi = ceil_parts(lo, hi, mesh[dim])[coords[dim]]
        out.append(slice(lo, hi))
    return tuple(out)


def local_shape(shape: Sequence[int], mesh: Sequence[int], axes: Sequence[MeshAxis]) -> list[int]:
    return [
        max(
            s.stop - s.start
            for s in (oracle_block(shape, mesh, axes, k)[i] for k in range(int(np.prod(mesh))))
        )
        for i in range(len(shape))
    ]


def reparsed(module: ModuleOp) -> ModuleOp:
    return parse_mlir(make_context(), str(module))


def run(module: ModuleOp, *inputs: np.ndarray) -> list[np.ndarray]:
    return run_module(reparsed(module), list(inputs))


def axis_choices(mesh: Sequence[int]) -> list[tuple[MeshAxis, ...]]:
    """A few encodings per mesh: each dim its own axis, two dims on one axis, a none."""
    r = len(mesh)
    out: list[tuple[MeshAxis, ...]] = [tuple(range(r))]
    out.append((0,) * r)  # every dim splits axis 0 (major first)
    out.append((None,) * (r - 1) + (r - 1,))  # replicated on every dim but the last
    return out


def cases() -> list[tuple[tuple[int, ...], tuple[MeshAxis, ...], tuple[int, ...]]]:
    out = []
    for mesh in MESHES:
        r = len(mesh)
        for axes in axis_choices(mesh):
            for shape in [tuple(4 * m for m in mesh[:r]), (7, 5, 3)[:r]]:  # even, uneven
                out.append((mesh, axes, tuple(shape)))
    return out


def case_id(c: tuple[tuple[int, ...], tuple[MeshAxis, ...], tuple[int, ...]]) -> str:
    mesh, axes, shape = c
    axes_text = ",".join("n" if a is None else str(a) for a in axes)
    return f"mesh{'x'.join(map(str, mesh))}-axes{axes_text}-shape{'x'.join(map(str, shape))}"


CASES = cases()


# ---------------------------------------------------------------------------------------------
# Bounds (the one helper)
# ---------------------------------------------------------------------------------------------


def test_split_bounds_from_the_spec_text() -> None:
    # 7 rows over (2, 2): parts of 4 and 3, then 2+2 and 2+1.
    assert [split_bounds(7, (2, 2), c) for c in itertools.product(range(2), range(2))] == [
        (0, 2),
        (2, 4),
        (4, 6),
        (6, 7),
    ]
    # 5 rows over (2, 2): parts of 3 and 2, then 2+1 and 1+1 (each part by its own length).
    assert [split_bounds(5, (2, 2), c) for c in itertools.product(range(2), range(2))] == [
        (0, 2),
        (2, 3),
        (3, 4),
        (4, 5),
    ]
    # 4 rows over (3, 2): parts 2, 2, 0; empty shards stay empty.
    assert [split_bounds(4, (3, 2), c) for c in itertools.product(range(3), range(2))] == [
        (0, 1),
        (1, 2),
        (2, 3),
        (3, 4),
        (4, 4),
        (4, 4),
    ]
    assert split_local_length(7, (2, 2)) == 2
    assert split_local_length(5, (2, 2)) == 2
    assert split_local_length(7, (3,)) == 3


@pytest.mark.parametrize("c", CASES, ids=case_id)
def test_blocks_and_local_shape_match_the_oracle(c) -> None:
    mesh, axes, shape = c
    enc = ShardAttr(names(int(np.prod(mesh))), mesh=mesh, axes=axes)
    for k in range(enc.num_devices):
        want = oracle_block(shape, mesh, axes, k)
        assert tuple(slice(lo, hi) for lo, hi in enc.block(shape, k)) == want
    assert list(enc.local_shape(shape)) == local_shape(shape, mesh, axes)


def test_one_axis_form_is_the_one_dim_mesh() -> None:
    a = ShardAttr(names(3), 1)
    b = ShardAttr(names(3), mesh=[3], axes=[1])
    assert a == b and a.axis_index == 1 and not a.is_mesh
    assert "axis = 1" in str(b) and "mesh" not in str(b)


# ---------------------------------------------------------------------------------------------
# multi.multi, multi.local
# ---------------------------------------------------------------------------------------------


def multi_local_program(mesh, axes, shape) -> tuple[ModuleOp, list[int]]:
    devices = names(int(np.prod(mesh)))
    loc = local_shape(shape, mesh, axes)
    b = xm.Builder(devices=devices)
    (x,) = b.function("main", args=[xm.Builder.tensor(loc, f32, xm.Builder.on(devices))])
    g = b.multi(x, list(axes), list(shape), mesh=list(mesh))
    b.ret(g, b.local(g))
    return b.finish(), loc


@pytest.mark.parametrize("c", CASES, ids=case_id)
def test_multi_then_local(c) -> None:
    mesh, axes, shape = c
    module, loc = multi_local_program(mesh, axes, shape)
    n = int(np.prod(mesh))
    buffers = np.random.default_rng(0).standard_normal((n, *loc)).astype(np.float32)
    logical, local = run(module, buffers)
    # MULTI: each device's leading block; replicas along `none` dims: the first stands.
    want = np.zeros(shape, np.float32)
    for k in reversed(range(n)):  # reversed: the first replica is written last and wins
        block = oracle_block(shape, mesh, axes, k)
        want[block] = buffers[k][tuple(slice(0, s.stop - s.start) for s in block)]
    np.testing.assert_array_equal(logical, want)
    # local: each device's block of the logical value, padding (Invalid) written as 0.
    for k in range(n):
        block = oracle_block(shape, mesh, axes, k)
        lead = tuple(slice(0, s.stop - s.start) for s in block)
        expect = np.zeros(loc, np.float32)
        expect[lead] = want[block]
        np.testing.assert_array_equal(local[k], expect)


# ---------------------------------------------------------------------------------------------
# Elementwise and reduce over each subset of split axes
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("c", CASES, ids=case_id)
def test_elementwise_and_reduce_over_each_subset(c) -> None:
    mesh, axes, shape = c
    devices = names(int(np.prod(mesh)))
    enc = xm.Builder.shard(devices, mesh=mesh, axes=axes)
    split = sorted({a for a in axes if a is not None})
    subsets = [s for r in range(1, len(split) + 1) for s in itertools.combinations(split, r)]
    b = xm.Builder(devices=devices)
    (x,) = b.function("main", args=[xm.Builder.tensor(list(shape), f32, enc)])
    y = b.addf(b.mulf(x, x), x)
    outs = [y] + [b.reduce("add", y, list(s)) for s in subsets]
    b.ret(*outs)
    module = b.finish()
    # The result encodings: reduced axes' mesh dims become none; all none is #multi.on.
    for s, r in zip(subsets, outs[1:], strict=True):
        assert isinstance(r.type, TensorType)
        kept = [None if a in s else a for a in axes]
        if all(a is None for a in kept):
            assert r.type.encoding == OnAttr(devices)
        else:
            assert r.type.encoding == ShardAttr(devices, mesh=mesh, axes=kept)
    arr = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    got = run(module, arr)
    yv = arr * arr + arr
    np.testing.assert_allclose(got[0], yv, rtol=1e-6)
    for s, g in zip(subsets, got[1:], strict=True):
        want = yv.sum(axis=s, keepdims=True)
        if all(a is None or a in s for a in axes):  # on every device
            assert g.shape == (len(devices), *want.shape)
            for buf in g:
                np.testing.assert_allclose(buf, want, rtol=1e-5, atol=1e-5)
        else:
            np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------------------------
# multi.copy between pairs of encodings (2x2 and 2x3 meshes, uneven lengths)
# ---------------------------------------------------------------------------------------------

COPY_ENCODINGS: list[tuple[MeshAxis, ...]] = [(0, 1), (1, 0), (0, None), (None, 1), (0, 0), (1, 1)]


def _encoding(devices: list[str], mesh, axes) -> ShardAttr:
    return xm.Builder.shard(devices, mesh=mesh, axes=axes)


@pytest.mark.parametrize("mesh", [(2, 2), (2, 3)])
def test_copy_between_every_pair(mesh) -> None:
    shape = (5, 7)
    devices = names(int(np.prod(mesh)))
    encs: list[ShardAttr | OnAttr] = [_encoding(devices, mesh, a) for a in COPY_ENCODINGS]
    encs += [xm.Builder.shard(devices, 0), xm.Builder.shard(devices, 1)]
    # Meshes of other shapes over the same devices.
    n = len(devices)
    encs += [
        xm.Builder.shard(devices, mesh=[n, 1], axes=[1, 0]),
        xm.Builder.shard(devices, mesh=[1, n], axes=[None, 0]),
        xm.Builder.shard(devices, mesh=[mesh[1], mesh[0]], axes=[0, 1]),
    ]
    targets = encs + [xm.Builder.on(devices), xm.Builder.on(devices[:1])]
    arr = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    for src in encs:
        b = xm.Builder(devices=devices)
        (x,) = b.function("main", args=[xm.Builder.tensor(list(shape), f32, src)])
        outs = []
        for dst in targets:
            c = b.copy(x, dst)
            outs.append(b.local(c) if isinstance(dst, ShardAttr) else c)
        b.ret(*outs)
        got = run(b.finish(), arr)
        for dst, g in zip(targets, got, strict=True):
            if isinstance(dst, OnAttr):
                want = arr if dst.num_devices == 1 else np.stack([arr] * dst.num_devices)
                np.testing.assert_array_equal(g, want, err_msg=f"{src} -> {dst}")
                continue
            for k in range(len(devices)):
                block = oracle_block(shape, dst.mesh_shape, dst.mesh_axes, k)
                loc = local_shape(shape, dst.mesh_shape, dst.mesh_axes)
                expect = np.zeros(loc, np.float32)
                expect[tuple(slice(0, s.stop - s.start) for s in block)] = arr[block]
                np.testing.assert_array_equal(g[k], expect, err_msg=f"{src} -> {dst}, {k}")


def test_copy_keeps_own_slices_of_an_on_value() -> None:
    """`#multi.on` -> a mesh on the same devices: every device keeps its block of its OWN
    buffer; along `none` dims the first replica's block stands for the logical value."""
    mesh, shape = (2, 2), (5, 6)
    devices = names(4)
    for axes in [(0, 1), (0, None), (None, 0)]:
        dst = _encoding(devices, mesh, axes)
        b = xm.Builder(devices=devices)
        (x,) = b.function(
            "main", args=[xm.Builder.tensor(list(shape), f32, xm.Builder.on(devices))]
        )
        c = b.copy(x, dst)
        b.ret(c, b.local(c))
        buffers = np.random.default_rng(3).standard_normal((4, *shape)).astype(np.float32)
        logical, local = run(b.finish(), buffers)
        want = np.zeros(shape, np.float32)
        for k in reversed(range(4)):
            block = oracle_block(shape, mesh, axes, k)
            want[block] = buffers[k][block]
        np.testing.assert_array_equal(logical, want, err_msg=str(axes))
        for k in range(4):
            block = oracle_block(shape, mesh, axes, k)
            lead = tuple(slice(0, s.stop - s.start) for s in block)
            np.testing.assert_array_equal(local[k][lead], want[block], err_msg=f"{axes} {k}")


# ---------------------------------------------------------------------------------------------
# Movement ops per split axis
# ---------------------------------------------------------------------------------------------


def test_movement_ops_on_a_mesh() -> None:
    devices = names(6)
    enc = xm.Builder.shard(devices, mesh=[2, 3], axes=[0, 2])
    b = xm.Builder(devices=devices)
    (x,) = b.function("main", args=[xm.Builder.tensor([5, 1, 7], f32, enc)])
    p = b.permute(x, [2, 0, 1])
    e = b.expand(x, [5, 4, 7])
    r = b.reshape(x, [5, 7])
    s = b.shrink(x, [(0, 3), (0, 1), (0, 7)])  # one block of axis 0: mesh dim 0 replicates
    f = b.flip(x, [1])
    assert p.type.encoding == ShardAttr(devices, mesh=[2, 3], axes=[1, 0])  # type: ignore[union-attr]
    assert r.type.encoding == ShardAttr(devices, mesh=[2, 3], axes=[0, 1])  # type: ignore[union-attr]
    assert s.type.encoding == ShardAttr(devices, mesh=[2, 3], axes=[None, 2])  # type: ignore[union-attr]
    b.ret(p, e, r, s, f)
    arr = np.random.default_rng(4).standard_normal((5, 1, 7)).astype(np.float32)
    got = run(b.finish(), arr)
    for g, w in zip(
        got,
        [arr.transpose(2, 0, 1), np.broadcast_to(arr, (5, 4, 7)), arr.reshape(5, 7), arr[:3], arr],
        strict=True,
    ):
        np.testing.assert_array_equal(g, w)
    with pytest.raises(Exception, match="cannot flip the shard axis 2"):
        b2 = xm.Builder(devices=devices)
        (y,) = b2.function("main", args=[xm.Builder.tensor([5, 1, 7], f32, enc)])
        b2.flip(y, [2])


# ---------------------------------------------------------------------------------------------
# Compiled: the same values as the interpreter (the levels: test/transforms/test_mesh_lowering.py)
# ---------------------------------------------------------------------------------------------


def test_compile_runs_a_mesh_program() -> None:
    module, loc = multi_local_program((2, 2), (0, 1), (4, 6))
    buffers = np.random.default_rng(5).standard_normal((4, *loc)).astype(np.float32)
    want = run(module, buffers)
    with xm.compile(str(module)) as prog:
        got = prog(buffers)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)

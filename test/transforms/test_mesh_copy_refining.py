"""`CopyRefiningMeshKeepsBlocks` (mesh_rules.py): a copy between two encodings of one mesh whose
destination splits refine the source's moves nothing and has no fetch already in the SPMD form
(before, shifted pieces of the whole value were fetched and only dropped by specialize-devices,
which for W8's expanded 1024^3 operands ran out of memory). The values are the multi level's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import f32

import xdsl_multi as xm
from xdsl_multi.dialects import make_context
from xdsl_multi.dialects.parsing import parse_mlir
from xdsl_multi.runtime.interpreter.interpreter import run_module
from xdsl_multi.transforms.multi_to_devidx.multi_to_devidx import MultiToDevidx

D4 = [f"CPU:{i}" for i in range(4)]
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mesh_matmul.mlir"


def fetch_shapes(text: str) -> list[tuple[int, ...]]:
    module = parse_mlir(make_context(), text)
    MultiToDevidx().apply(make_context(), module)
    return [
        tuple(op.results[0].type.get_shape())  # type: ignore[attr-defined]
        for op in module.walk()
        if op.name == "devidx.fetch"
    ]


def test_mesh_matmul_fetches_only_for_the_all_gather() -> None:
    """The operand copies ([0, none] -> [0, 1], [none, 1] -> [0, 1] of the 7x10x6 products)
    fetch nothing: every fetch is of the 7x10 result (the all-gather's)."""
    assert set(fetch_shapes(EXAMPLE.read_text())) == {(7, 10)}


@pytest.mark.parametrize(
    "src,dst",
    [
        ([0, None], [0, 1]),
        ([None, 1], [0, 1]),
        ([1, None], [1, 1]),
        ([0, None], [0, 0]),
    ],
)
def test_refining_copies_keep_blocks(src: list, dst: list) -> None:
    shape = [5, 7]
    b = xm.Builder(devices=D4)
    (x,) = b.function(
        "main", args=[xm.Builder.tensor(shape, f32, xm.Builder.shard(D4, mesh=[2, 2], axes=src))]
    )
    y = b.copy(b.mulf(x, x), xm.Builder.shard(D4, mesh=[2, 2], axes=dst))
    b.ret(y, b.reduce("add", y, [0, 1]))
    text = str(b.finish())
    assert {s for s in fetch_shapes(text) if s == (5, 7)} == set()
    arr = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    want = run_module(parse_mlir(make_context(), text), [arr])
    np.testing.assert_allclose(want[0], arr * arr, rtol=1e-6)
    module = parse_mlir(make_context(), text)
    MultiToDevidx().apply(make_context(), module)
    for got, w in zip(run_module(module, [arr]), want, strict=True):
        np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-5)
    with xm.compile(text, backend="threads") as prog:
        for got, w in zip(prog(arr), want, strict=True):
            np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-5)

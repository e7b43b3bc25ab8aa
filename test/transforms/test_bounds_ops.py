"""devidx-simplify's `tg.pad` / `tg.shrink` builders (bounds_ops.py, issue 14: compile time)
make the op that the constructor makes: same operands, result type, properties in the same
order, same printed text."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import FloatAttr, IndexType, TensorType, f32
from xdsl.ir import Block, Operation

from xdsl_multi.dialects import tg
from xdsl_multi.transforms.devidx_simplify.bounds_ops import pad_op, shrink_op

SRC = TensorType(f32, [4, 8])
BIG = TensorType(f32, [8, 8])


def same(a: Operation, b: Operation) -> None:
    assert type(a) is type(b)
    assert list(a.operands) == list(b.operands)
    assert [r.type for r in a.results] == [r.type for r in b.results]
    assert list(a.properties.items()) == list(b.properties.items())
    assert a.attributes == b.attributes
    assert str(a) == str(b)
    a.verify()


@pytest.mark.parametrize("fill", [None, FloatAttr(0.0, f32)])
@pytest.mark.parametrize("symbolic", [False, True])
def test_pad_op_is_the_constructors_op(fill: FloatAttr | None, symbolic: bool) -> None:
    block = Block(arg_types=[SRC, IndexType(), IndexType()])
    x, lo, hi = block.args
    bounds = [(lo, hi) if symbolic else (4, 0), (0, 0)]
    same(pad_op(x, bounds, BIG, fill), tg.PadOp(x, bounds, BIG, fill))


@pytest.mark.parametrize("symbolic", [False, True])
def test_shrink_op_is_the_constructors_op(symbolic: bool) -> None:
    block = Block(arg_types=[BIG, IndexType(), IndexType()])
    x, lo, hi = block.args
    bounds = [(lo, hi) if symbolic else (4, 8), (0, 8)]
    same(shrink_op(x, bounds, SRC), tg.ShrinkOp(x, bounds, SRC))
    mixed = [(lo, 8), (0, 8)]
    same(shrink_op(x, mixed, SRC), tg.ShrinkOp(x, mixed, SRC))

"""`tg.PadOp` and `tg.ShrinkOp` are built with `Operation.__init__` directly (tg.py
`_BoundsOp._build`, issue 14: the simplification rules build hundreds per program), not
through xDSL's checked `IRDLOperation.__init__`: the op must be the one that checked path
makes (operands, result type, properties in the same order, printed text) and verify."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IndexType,
    TensorType,
    UnitAttr,
    f32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.irdl import IRDLOperation

from xdsl_multi.dialects import tg

SRC = TensorType(f32, [4, 8])
BIG = TensorType(f32, [8, 8])


def checked(
    cls: type[IRDLOperation],
    x: SSAValue,
    bounds: list[tuple[tg.Bound, tg.Bound]],
    t: Attribute,
    extra: dict[str, Attribute],
) -> Operation:
    """The op as xDSL's checked constructor path builds it."""
    flat = [b for pair in bounds for b in pair]
    static = [b if isinstance(b, int) else tg.DYNAMIC for b in flat]
    dynamic = [b for b in flat if not isinstance(b, int)]
    op = cls.__new__(cls)
    IRDLOperation.__init__(
        op,
        operands=[x, dynamic],
        result_types=[t],
        properties={"static_bounds": DenseArrayBase.from_list(i64, static), **extra},
    )
    return op


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
def test_pad_is_the_checked_constructors_op(fill: FloatAttr | None, symbolic: bool) -> None:
    block = Block(arg_types=[SRC, IndexType(), IndexType()])
    x, lo, hi = block.args
    bounds: list[tuple[tg.Bound, tg.Bound]] = [(lo, hi) if symbolic else (4, 0), (0, 0)]
    extra: dict[str, Attribute] = {"invalid": UnitAttr()} if fill is None else {"value": fill}
    pad = tg.PadOp(x, bounds, BIG, fill)
    same(pad, checked(tg.PadOp, x, bounds, BIG, extra))
    assert pad.bounds == bounds and pad.is_invalid == (fill is None)


@pytest.mark.parametrize("symbolic", [False, True])
def test_shrink_is_the_checked_constructors_op(symbolic: bool) -> None:
    block = Block(arg_types=[BIG, IndexType(), IndexType()])
    x, lo, hi = block.args
    for bounds in ([(lo, hi) if symbolic else (4, 8), (0, 8)], [(lo, 8), (0, 8)]):
        shrink = tg.ShrinkOp(x, bounds, SRC)
        same(shrink, checked(tg.ShrinkOp, x, bounds, SRC, {}))
        assert shrink.bounds == bounds

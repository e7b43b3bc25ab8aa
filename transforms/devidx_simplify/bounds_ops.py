"""`tg.pad` and `tg.shrink` built without xDSL's generic op builder.

The window rules (invalid_windows.py) and the pad/shrink folding (pad_shrink_folding.py)
build a pad or a shrink for most ops they rewrite: C1's device copies ~300 each.
`tg.PadOp(...)` goes through xDSL's `irdl_op_init`, which checks every argument against the op
definition: ~65 us per op, against ~10 us for `Op.create` with the same operands, result type
and properties in the constructor's order. test/transforms/test_bounds_ops.py checks each
builder against the constructor.

| function | constructor |
|---|---|
| `pad_op(x, bounds, t, value)` | `tg.PadOp(x, bounds, t, value)` (value None: an Invalid pad) |
| `shrink_op(x, bounds, t)` | `tg.ShrinkOp(x, bounds, t)` |
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, UnitAttr, i64
from xdsl.ir import Attribute, SSAValue

from xdsl_multi.dialects import tg

_INVALID = UnitAttr()


def _split(bounds: Sequence[tuple[tg.Bound, tg.Bound]]) -> tuple[DenseArrayBase, list[SSAValue]]:
    """`static_bounds` and the `dyn_bounds` operands, as the constructors split them."""
    static, dynamic = tg.PadOp._split_bounds(bounds)  # pyright: ignore[reportPrivateUsage]
    return DenseArrayBase.from_list(i64, static), dynamic


def pad_op(
    source: SSAValue,
    bounds: Sequence[tuple[tg.Bound, tg.Bound]],
    result_type: Attribute,
    value: Attribute | None = None,
) -> tg.PadOp:
    """`tg.PadOp(source, bounds, result_type, value)`: `value` None pads with Invalid."""
    static, dynamic = _split(bounds)
    props: dict[str, Attribute] = {"static_bounds": static}
    if value is None:
        props["invalid"] = _INVALID
    else:
        props["value"] = value
    return tg.PadOp.create(
        operands=[source, *dynamic], result_types=[result_type], properties=props
    )


def shrink_op(
    source: SSAValue, bounds: Sequence[tuple[tg.Bound, tg.Bound]], result_type: Attribute
) -> tg.ShrinkOp:
    """`tg.ShrinkOp(source, bounds, result_type)`."""
    static, dynamic = _split(bounds)
    return tg.ShrinkOp.create(
        operands=[source, *dynamic],
        result_types=[result_type],
        properties={"static_bounds": static},
    )


__all__ = ["pad_op", "shrink_op"]

"""What the simplification patterns can tell about an SSA value without running it.

- `int_constant` / `splat_constant`: the value of a scalar `arith.constant` or the single value of
  a splat `dense<...>` tensor constant.
- `index_range`: a small interval analysis for integer and `index` values, where the device
  number d lies in [0, N) (N = length of the module's `multi.devices`).
- `is_invalid` / `may_hold_invalid`: whether a tensor is Invalid everywhere, or may hold Invalid
  lanes (SPEC §4, "Invalid semantics").
- builders for constants of a given type (`constant_like`), dense attrs use the tensor's own
  element type.

Shared by the pattern files of `devidx-simplify` (invalid_rules.py, invalid_windows.py,
index_folding.py, algebra_folding.py, pad_shrink_folding.py), by `specialize-devices` and by
form-kernels' helpers (spmd_builder.py, tensor_elements.py). Element types and integer division
are dialects/element_types.py's."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue

from xdsl_multi.dialects import devidx, tg
from xdsl_multi.dialects.element_types import bit_width, is_float, trunc_div
from xdsl_multi.dialects.multi import ReduceKind, listed_devices
from xdsl_multi.dialects.splat import splat_attr, splat_value

OpTypes = tuple[type[Operation], ...] | Callable[[type[Operation]], bool]
"""A pattern's `op_types`: the op classes it can act on, or a test of the class. The applier of
devidx-simplify (devidx_simplify.py) tries a pattern only on ops it may act on."""


_RANGE_DEPTH = 12
"""How far `index_range` follows operands; deeper expressions are treated as unknown."""


# --------------------------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------------------------


def int_constant(value: SSAValue) -> int | None:
    """The value of a scalar integer or index `arith.constant`, else None."""
    op = value.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    return None


def splat_constant(value: SSAValue) -> int | float | None:
    """The single element value of a splat tensor `arith.constant` (ints, floats, i1), else None.
    (`AttrCache.splat` remembers the answer per attribute.)"""
    op = value.owner
    if not isinstance(op, arith.ConstantOp):
        return None
    return splat_value(op.value)


def constant_value(value: SSAValue) -> int | float | None:
    """A scalar constant or the element of a splat tensor constant."""
    got = int_constant(value)
    return got if got is not None else splat_constant(value)


class AttrCache:
    """What a pass learns about attributes, and attributes it builds, each once. Attributes are
    immutable and the copies of a program that `specialize-devices` makes share them, so one
    cache serves a whole pass:
    - splat values of dense constants: a compact splat (dialects/splat.py) is read in O(1), an
      expanded one (every element stored) is compared byte by byte; constants made by
      `constant_like` share their attribute with every equal constant;
    - tensor types of a given element type, encoding and shape (`tensor_like`)."""

    def __init__(self) -> None:
        self._seen: dict[int, tuple[Attribute, int | float | None]] = {}
        self._made: dict[tuple[Attribute, type, float, float], DenseIntOrFPElementsAttr] = {}
        self._types: dict[tuple[TensorType, tuple[int, ...]], TensorType] = {}

    def value_of(self, attr: Attribute) -> int | float | None:
        """`splat_value(attr)`, remembered."""
        hit = self._seen.get(id(attr))
        if hit is None:
            hit = (attr, splat_value(attr))
            self._seen[id(attr)] = hit
        return hit[1]

    def splat(self, value: SSAValue) -> int | float | None:
        """`splat_constant`, remembered."""
        op = value.owner
        if not isinstance(op, arith.ConstantOp):
            return None
        return self.value_of(op.value)

    def constant(self, value: SSAValue) -> int | float | None:
        """`constant_value`, remembered."""
        got = int_constant(value)
        return got if got is not None else self.splat(value)

    def constant_like(self, t: Attribute, v: float) -> arith.ConstantOp:
        """`constant_like(t, v)`; a tensor constant's attribute is made once per (t, v)."""
        if not isinstance(t, TensorType):
            return constant_like(t, v)
        if isinstance(v, float) and math.isnan(v):
            return constant_like(t, v)  # NaN is no key
        key = (t, type(v), v, math.copysign(1.0, v))  # -0.0 is not 0.0
        attr = self._made.get(key)
        if attr is None:
            op = constant_like(t, v)
            attr = op.value
            assert isinstance(attr, DenseIntOrFPElementsAttr)
            self._seen[id(attr)] = (attr, splat_value(attr))
            self._made[key] = attr
            return op
        # arith.ConstantOp(attr, t) without xDSL's generic op builder (~24 -> ~7 us): the
        # window rules make one per narrowed operand
        return arith.ConstantOp.create(result_types=[t], properties={"value": attr})

    def tensor_like(self, t: TensorType, shape: Sequence[int]) -> TensorType:
        """`t` with another shape (same element type and encoding)."""
        key = (t, tuple(shape))
        found = self._types.get(key)
        if found is None:
            found = TensorType(t.element_type, shape, t.encoding)
            self._types[key] = found
        return found


def wrap_signed(v: int, width: int) -> int:
    """Two's complement wrap-around of `v` to a signed `width`-bit value (i1: 0 or -1 -> 0/1)."""
    if width == 1:
        return v & 1
    v &= (1 << width) - 1
    return v - (1 << width) if v >= 1 << (width - 1) else v


def constant_like(t: Attribute, v: float) -> arith.ConstantOp:
    """`arith.constant v : t`, for a scalar or (as a dense splat) a tensor type.

    A tensor constant uses the tensor's own element type (f16 stays f16, i1 stays i1), and is
    a compact splat (dialects/splat.py): O(1) however large the tensor."""
    if isinstance(t, TensorType):
        element = t.element_type
        value = float(v) if isinstance(element, AnyFloat) else int(v)
        return arith.ConstantOp(splat_attr(t, value), t)  # type: ignore[arg-type]
    if isinstance(t, AnyFloat):
        return arith.ConstantOp(FloatAttr(float(v), t), t)
    assert isinstance(t, IntegerType | IndexType), t
    return arith.ConstantOp(IntegerAttr(wrap_signed(int(v), bit_width(t)), t), t)


def reduce_identity(kind: ReduceKind, t: Attribute) -> int | float:
    """The identity of `tg.reduce kind` for the element type of `t`: add 0, mul 1, max the
    element type's minimum (-inf for floats, the signed minimum for ints, false for i1)."""
    if kind == ReduceKind.ADD:
        return 0
    if kind == ReduceKind.MUL:
        return 1
    assert kind == ReduceKind.MAX, kind
    if is_float(t):
        return float("-inf")
    width = bit_width(t)
    return 0 if width == 1 else -(1 << (width - 1))


# --------------------------------------------------------------------------------------------
# Index ranges
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Range:
    """The closed interval [lo, hi] of an integer value; None means unbounded on that side."""

    lo: int | None = None
    hi: int | None = None

    @property
    def point(self) -> int | None:
        """The only possible value, if there is just one."""
        return self.lo if self.lo is not None and self.lo == self.hi else None

    def union(self, other: Range) -> Range:
        lo = None if self.lo is None or other.lo is None else min(self.lo, other.lo)
        hi = None if self.hi is None or other.hi is None else max(self.hi, other.hi)
        return Range(lo, hi)


UNKNOWN = Range()


def num_devices_of(module: Operation) -> int | None:
    """N = length of the nearest enclosing (or own) `multi.devices` attribute, if any."""
    op: Operation | None = module
    while op is not None:
        if isinstance(op, ModuleOp) and (devices := listed_devices(op)) is not None:
            return len(devices)
        op = op.parent_op()
    return None


def _add(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a + b


def index_range(value: SSAValue, num_devices: int | None, depth: int = _RANGE_DEPTH) -> Range:
    """The interval of an integer/index value: constants, d in [0, N), and + - * / mod min max
    select of those. Anything else (block arguments, loads, ...) is unbounded.

    Only `index` arithmetic is analysed (integer types may wrap around)."""
    if not isinstance(value.type, IndexType):
        c = int_constant(value)
        return Range(c, c) if c is not None else UNKNOWN
    op = value.owner
    if isinstance(op, arith.ConstantOp):
        c = int_constant(value)
        return Range(c, c) if c is not None else UNKNOWN
    if isinstance(op, devidx.DeviceNumOp):
        return Range(0, None if num_devices is None else num_devices - 1)
    if depth <= 0 or not isinstance(op, Operation):
        return UNKNOWN

    def rng(v: SSAValue) -> Range:
        return index_range(v, num_devices, depth - 1)

    if isinstance(op, devidx.LookupOp):  # the entries the index's range can reach
        table, i = op.values, rng(op.index)
        reach = table[max(i.lo or 0, 0) : len(table) if i.hi is None else max(i.hi + 1, 0)]
        return Range(min(reach), max(reach)) if reach else UNKNOWN
    if isinstance(op, arith.AddiOp):
        a, b = rng(op.lhs), rng(op.rhs)
        return Range(_add(a.lo, b.lo), _add(a.hi, b.hi))
    if isinstance(op, arith.SubiOp):
        a, b = rng(op.lhs), rng(op.rhs)
        neg_b = Range(None if b.hi is None else -b.hi, None if b.lo is None else -b.lo)
        return Range(_add(a.lo, neg_b.lo), _add(a.hi, neg_b.hi))
    if isinstance(op, arith.MuliOp):
        a, b = rng(op.lhs), rng(op.rhs)
        if None in (a.lo, a.hi, b.lo, b.hi):
            return UNKNOWN
        corners = [x * y for x in (a.lo, a.hi) for y in (b.lo, b.hi)]  # type: ignore[operator]
        return Range(min(corners), max(corners))
    if isinstance(op, arith.DivSIOp | arith.FloorDivSIOp):
        m = int_constant(op.rhs)
        a = rng(op.lhs)
        if m is None or m <= 0:
            return UNKNOWN
        div = trunc_div if isinstance(op, arith.DivSIOp) else (lambda x, y: x // y)
        return Range(
            None if a.lo is None else div(a.lo, m), None if a.hi is None else div(a.hi, m)
        )
    if isinstance(op, arith.RemSIOp):
        m = int_constant(op.rhs)
        a = rng(op.lhs)
        if m is None or m == 0:
            return UNKNOWN
        m = abs(m)
        if a.lo is not None and a.hi is not None and trunc_div(a.lo, m) == trunc_div(a.hi, m):
            q = trunc_div(a.lo, m)
            return Range(a.lo - q * m, a.hi - q * m)
        if a.lo is not None and a.lo >= 0:
            return Range(0, m - 1)
        return Range(-(m - 1), m - 1)
    if isinstance(op, arith.MinSIOp | arith.MaxSIOp):
        a, b = rng(op.lhs), rng(op.rhs)
        pick = min if isinstance(op, arith.MinSIOp) else max
        if isinstance(op, arith.MinSIOp):
            lo = None if a.lo is None or b.lo is None else pick(a.lo, b.lo)
            hi = b.hi if a.hi is None else a.hi if b.hi is None else pick(a.hi, b.hi)
        else:
            lo = b.lo if a.lo is None else a.lo if b.lo is None else pick(a.lo, b.lo)
            hi = None if a.hi is None or b.hi is None else pick(a.hi, b.hi)
        return Range(lo, hi)
    if isinstance(op, arith.SelectOp):
        return rng(op.lhs).union(rng(op.rhs))
    return UNKNOWN


# --------------------------------------------------------------------------------------------
# Invalid
# --------------------------------------------------------------------------------------------


def is_invalid(value: SSAValue) -> bool:
    """True when the value is Invalid in every lane (made by `devidx.invalid`)."""
    return isinstance(value.owner, devidx.InvalidOp)


def invalid_arm(op: Operation) -> tuple[SSAValue, int] | None:
    """For `arith.select`/`tg.where` with exactly one Invalid arm: (the other arm, the Invalid
    arm's position: 1 for the true arm, 2 for the false arm)."""
    if not isinstance(op, arith.SelectOp | tg.WhereOp):
        return None
    t, f = op.operands[1], op.operands[2]
    if is_invalid(f) and not is_invalid(t):
        return t, 2
    if is_invalid(t) and not is_invalid(f):
        return f, 1
    return None


_NEVER_INVALID = (
    arith.ConstantOp,
    *devidx.COLLECTIVES,
    devidx.FetchOp,
    devidx.RecvOp,
    tg.ContiguousOp,
    tg.ReduceOp,
)
"""Ops whose result never holds Invalid: constants and materializations (rule 3); a reduction
skips Invalid lanes and gives the identity over an all-Invalid range."""


def may_hold_invalid(value: SSAValue, depth: int = _RANGE_DEPTH) -> bool:
    """Conservative: False only when no lane of the value can be Invalid (function arguments,
    constants, materializations and ops computed from those alone)."""
    op = value.owner
    if not isinstance(op, Operation):
        return False  # block arguments hold data
    if isinstance(op, _NEVER_INVALID):
        return False
    if isinstance(op, devidx.InvalidOp | devidx.IndexOp):
        return True
    if isinstance(op, tg.PadOp) and op.is_invalid:
        return True
    if depth <= 0:
        return True
    return any(
        may_hold_invalid(v, depth - 1) for v in op.operands if isinstance(v.type, TensorType)
    )


__all__ = [
    "UNKNOWN",
    "AttrCache",
    "OpTypes",
    "Range",
    "constant_like",
    "constant_value",
    "index_range",
    "int_constant",
    "invalid_arm",
    "is_invalid",
    "may_hold_invalid",
    "num_devices_of",
    "reduce_identity",
    "splat_constant",
    "splat_value",
    "wrap_signed",
]

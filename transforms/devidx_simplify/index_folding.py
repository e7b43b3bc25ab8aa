"""Folding of scalar integer and `index` arithmetic (used by `devidx-simplify`).

The device number d lies in [0, N) (N = length of the module's `multi.devices`); a small
interval analysis (`value_facts.index_range`) carries that through + - * / mod min max select.
Every pattern here works on scalars only; tensors are left to the other pattern files.

| pattern | rewrite |
|---|---|
| `ConstantFoldIntegerArithmetic` | addi/subi/muli/divsi/remsi/floordivsi/minsi/maxsi/divui/remui of constants |
| `IndexWithSinglePointRange` | an index value whose range is one point (d with N = 1) -> constant |
| `CmpiDecidedByRanges` | cmpi whose operand ranges decide it (constants, d < N, d >= 0) -> true/false |
| `RemOfValueInOneBlock` | remsi(x, m) with trunc(x / m) = q fixed by x's range -> x - q*m, e.g. (d + 0) mod N = d |
| `DivOfValueInOneBlock` | divsi/floordivsi(x, m) fixed by x's range -> constant |
| `MinMaxDecidedByRanges` | minsi/maxsi whose operand ranges are ordered -> that operand |
| `AddOfAddConstantsFolds` | (x + c1) + c2 -> x + (c1 + c2), also with subi |
| `LookupOfConstantFolds` | `devidx.lookup %c in [...]` of a constant c (d once specialized) -> table[c]; also when every entry the index can reach is one value |
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from xdsl_multi.dialects import devidx
from xdsl_multi.dialects.element_types import bit_width, trunc_div, trunc_rem
from xdsl_multi.transforms.value_facts import (
    OpTypes,
    Range,
    constant_like,
    index_range,
    int_constant,
    wrap_signed,
)


def _is_scalar_int(value: SSAValue) -> bool:
    return isinstance(value.type, IntegerType | IndexType)


def _no_div_by_zero(f: Callable[[int, int], int]) -> Callable[[int, int], int | None]:
    return lambda a, b: None if b == 0 else f(a, b)


_BINARY: dict[type[Operation], Callable[[int, int], int | None]] = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b,
    arith.DivSIOp: _no_div_by_zero(trunc_div),
    arith.RemSIOp: _no_div_by_zero(trunc_rem),
    arith.FloorDivSIOp: _no_div_by_zero(lambda a, b: a // b),
    arith.MinSIOp: min,
    arith.MaxSIOp: max,
    arith.DivUIOp: _no_div_by_zero(lambda a, b: a // b),
    arith.RemUIOp: _no_div_by_zero(lambda a, b: a % b),
}
_UNSIGNED_OPERANDS = (arith.DivUIOp, arith.RemUIOp)
"""The ops of `_BINARY` that read their operands as unsigned values of the type's width."""


class ConstantFoldIntegerArithmetic(RewritePattern):
    """`arith.addi %c2, %c3 : index` -> `arith.constant 5 : index` (and subi, muli, divsi, remsi,
    floordivsi, minsi, maxsi, divui, remui), wrapping around at the type's width; divui and
    remui read the constants as unsigned (-1 : i32 is 4294967295); division by zero stays."""

    op_types: ClassVar[OpTypes] = tuple(_BINARY)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        fold = _BINARY.get(type(op))
        if fold is None or not _is_scalar_int(op.results[0]):
            return
        a, b = int_constant(op.operands[0]), int_constant(op.operands[1])
        if a is None or b is None:
            return
        width = bit_width(op.results[0].type)
        if isinstance(op, _UNSIGNED_OPERANDS):
            a, b = a % (1 << width), b % (1 << width)
        overflows = width > 1 and a == -(1 << (width - 1)) and b == -1
        if overflows and isinstance(op, arith.DivSIOp | arith.FloorDivSIOp):
            return  # undefined behaviour: leave it
        result = fold(a, b)
        if result is not None:
            rewriter.replace(op, constant_like(op.results[0].type, wrap_signed(result, width)))


def _arith_or_device_num(op_type: type[Operation]) -> bool:
    name = getattr(op_type, "name", None)
    if not isinstance(name, str):
        return True
    return op_type is devidx.DeviceNumOp or (
        name.startswith("arith.") and op_type is not arith.ConstantOp
    )


@dataclass(frozen=True)
class IndexWithSinglePointRange(RewritePattern):
    """An `index` value whose range is a single point becomes a constant: `devidx.device_num`
    on one device is 0, `remsi(d, 1)` is 0, ..."""

    op_types: ClassVar[OpTypes] = staticmethod(_arith_or_device_num)

    num_devices: int | None

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, arith.ConstantOp) or len(op.results) != 1:
            return
        if not (op.name.startswith("arith.") or isinstance(op, devidx.DeviceNumOp)):
            return
        result = op.results[0]
        if not isinstance(result.type, IndexType):
            return
        point = index_range(result, self.num_devices).point
        if point is not None:
            rewriter.replace(op, constant_like(result.type, point))


def _decide(pred: str, a: Range, b: Range) -> bool | None:
    """The value of `a pred b` for every a, b in the ranges (signed), or None."""
    lo_a, hi_a, lo_b, hi_b = a.lo, a.hi, b.lo, b.hi

    def lt(x_hi: int | None, y_lo: int | None) -> bool:  # every x < every y
        return x_hi is not None and y_lo is not None and x_hi < y_lo

    def le(x_hi: int | None, y_lo: int | None) -> bool:
        return x_hi is not None and y_lo is not None and x_hi <= y_lo

    if pred in ("slt", "ult"):
        return True if lt(hi_a, lo_b) else False if le(hi_b, lo_a) else None
    if pred in ("sle", "ule"):
        return True if le(hi_a, lo_b) else False if lt(hi_b, lo_a) else None
    if pred in ("sgt", "ugt"):
        return _decide("slt", b, a)
    if pred in ("sge", "uge"):
        return _decide("sle", b, a)
    if pred in ("eq", "ne"):
        if a.point is not None and a.point == b.point:
            return pred == "eq"
        if lt(hi_a, lo_b) or lt(hi_b, lo_a):
            return pred == "ne"
        return None
    return None


_CMPI_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")


@dataclass(frozen=True)
class CmpiDecidedByRanges(RewritePattern):
    """`arith.cmpi` on constants, or on values whose ranges decide it, becomes a constant i1:
    `cmpi eq, %d, %c5` with N = 4 is false, `cmpi slt, %d, %c4` is true, `cmpi ult` of two
    constants compares their unsigned values. Unsigned predicates on ranges need both sides
    non-negative. Signed ranges are only known for `index` (integer types may wrap)."""

    op_types: ClassVar[OpTypes] = (arith.CmpiOp,)

    num_devices: int | None

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.CmpiOp, rewriter: PatternRewriter, /) -> None:
        if not _is_scalar_int(op.lhs):
            return
        pred = _CMPI_PREDICATES[op.predicate.value.data]
        a = index_range(op.lhs, self.num_devices)
        b = index_range(op.rhs, self.num_devices)
        if pred.startswith("u"):
            if a.point is not None and b.point is not None:
                width = bit_width(op.lhs.type)
                a = Range(a.point % (1 << width), a.point % (1 << width))
                b = Range(b.point % (1 << width), b.point % (1 << width))
            elif a.lo is None or a.lo < 0 or b.lo is None or b.lo < 0:
                return
        decided = _decide(pred, a, b)
        if decided is not None:
            rewriter.replace(op, constant_like(IntegerType(1), int(decided)))


@dataclass(frozen=True)
class RemOfValueInOneBlock(RewritePattern):
    """`arith.remsi %x, %m` with a constant m where x's range fixes q = trunc(x / m):
    -> x - q*|m|, and just x when q = 0. So `(d + 0) mod N`, `d mod N` -> d and
    `(d + N) mod N` -> (d + N) - N (folded further to d)."""

    op_types: ClassVar[OpTypes] = (arith.RemSIOp,)

    num_devices: int | None

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.RemSIOp, rewriter: PatternRewriter, /) -> None:
        m = int_constant(op.rhs)
        if m is None or m == 0 or not isinstance(op.result.type, IndexType):
            return
        m = abs(m)
        r = index_range(op.lhs, self.num_devices)
        if r.lo is None or r.hi is None or trunc_div(r.lo, m) != trunc_div(r.hi, m):
            return
        q = trunc_div(r.lo, m)
        if q == 0:
            rewriter.replace(op, [], [op.lhs])
            return
        offset = constant_like(op.result.type, q * m)
        rewriter.replace(op, [offset, arith.SubiOp(op.lhs, offset.result)])


@dataclass(frozen=True)
class DivOfValueInOneBlock(RewritePattern):
    """`arith.divsi`/`arith.floordivsi` of x by a positive constant, where x's range gives one
    quotient -> that constant (`d floordiv N` -> 0)."""

    op_types: ClassVar[OpTypes] = (arith.DivSIOp, arith.FloorDivSIOp)

    num_devices: int | None

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.DivSIOp | arith.FloorDivSIOp):
            return
        if not isinstance(op.result.type, IndexType):
            return
        m = int_constant(op.rhs)
        if m is None or m <= 0:
            return
        r = index_range(op.lhs, self.num_devices)
        if r.lo is None or r.hi is None:
            return
        div = trunc_div if isinstance(op, arith.DivSIOp) else (lambda x, y: x // y)
        if div(r.lo, m) == div(r.hi, m):
            rewriter.replace(op, constant_like(op.result.type, div(r.lo, m)))


@dataclass(frozen=True)
class MinMaxDecidedByRanges(RewritePattern):
    """`arith.minsi %x, %y` -> x when every x <= every y (and the mirrored cases, and maxsi)."""

    op_types: ClassVar[OpTypes] = (arith.MinSIOp, arith.MaxSIOp)

    num_devices: int | None

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.MinSIOp | arith.MaxSIOp):
            return
        if not isinstance(op.result.type, IndexType):
            return
        a = index_range(op.lhs, self.num_devices)
        b = index_range(op.rhs, self.num_devices)
        a_le_b = a.hi is not None and b.lo is not None and a.hi <= b.lo
        b_le_a = b.hi is not None and a.lo is not None and b.hi <= a.lo
        take_min = isinstance(op, arith.MinSIOp)
        if a_le_b:
            rewriter.replace(op, [], [op.lhs if take_min else op.rhs])
        elif b_le_a:
            rewriter.replace(op, [], [op.rhs if take_min else op.lhs])


def _split_offset(value: SSAValue) -> tuple[SSAValue, int] | None:
    """`x + c`, `c + x` or `x - c` (c constant) as (x, ±c); None for anything else."""
    op = value.owner
    if isinstance(op, arith.AddiOp):
        if (c := int_constant(op.rhs)) is not None:
            return op.lhs, c
        if (c := int_constant(op.lhs)) is not None:
            return op.rhs, c
    if isinstance(op, arith.SubiOp) and (c := int_constant(op.rhs)) is not None:
        return op.lhs, -c
    return None


class AddOfAddConstantsFolds(RewritePattern):
    """`(x + c1) + c2` -> `x + (c1 + c2)` on `index` (also `(x - c1) + c2`, `(x + c1) - c2`),
    and `x + 0` when the constants cancel."""

    op_types: ClassVar[OpTypes] = (arith.AddiOp, arith.SubiOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.AddiOp | arith.SubiOp):
            return
        if not isinstance(op.result.type, IndexType):
            return
        outer = _split_offset(op.result)
        if outer is None:
            return
        inner_value, c2 = outer
        inner = _split_offset(inner_value)
        if inner is None or int_constant(inner_value) is not None:
            return
        x, c1 = inner
        total = c1 + c2
        if total == 0:
            rewriter.replace(op, [], [x])
            return
        c = constant_like(op.result.type, total)
        rewriter.replace(op, [c, arith.AddiOp(x, c.result)])


@dataclass(frozen=True)
class LookupOfConstantFolds(RewritePattern):
    """`devidx.lookup %c2 in [2, 0, 1]` -> `arith.constant 1 : index` (specialize-devices has
    made d a constant), and any lookup whose reachable entries are all one value; an index out
    of the table stays (the interpreter reports it)."""

    op_types: ClassVar[OpTypes] = (devidx.LookupOp,)
    num_devices: int | None

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: devidx.LookupOp, rewriter: PatternRewriter, /) -> None:
        point = index_range(op.result, self.num_devices).point
        if point is not None:
            rewriter.replace(op, constant_like(op.result.type, point))


def index_folding_patterns(num_devices: int | None) -> list[RewritePattern]:
    """Every pattern of this file; `num_devices` is N (None when the module has no
    `multi.devices`: then only d >= 0 is known)."""
    return [
        ConstantFoldIntegerArithmetic(),
        IndexWithSinglePointRange(num_devices),
        CmpiDecidedByRanges(num_devices),
        RemOfValueInOneBlock(num_devices),
        DivOfValueInOneBlock(num_devices),
        MinMaxDecidedByRanges(num_devices),
        AddOfAddConstantsFolds(),
        LookupOfConstantFolds(num_devices),
    ]

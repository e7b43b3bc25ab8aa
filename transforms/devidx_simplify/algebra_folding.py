"""Select folding and tinygrad's constant rules (used by `devidx-simplify`).

Constants are scalar `arith.constant`s or splat `dense<...>` tensor constants.

| pattern | rewrite |
|---|---|
| `SelectOfConstantCondition` | `arith.select true, x, y` -> x, `false` -> y |
| `WhereOfSplatCondition` | `tg.where dense<true>, x, y` -> x, `dense<false>` -> y |
| `SelectOfSameValues` | `select(c, x, x)` / `tg.where(c, x, x)` -> x |
| `AddZeroIsIdentity` | x + 0 and 0 + x -> x (addi, addf; also -0.0) |
| `SubZeroIsIdentity` | x - 0 -> x (subi, subf) |
| `MulOneIsIdentity` | x * 1 and 1 * x -> x (muli, mulf) |
| `IntMulZeroIsZero` | x * 0 -> 0 for integers only, and only when x holds no Invalid lane |
| `DoubleNegationCancels` | negf(negf(x)) -> x |

Not done on purpose: x * 0.0 -> 0.0 for floats (NaN * 0 and inf * 0 are NaN, -x * 0 is -0.0).
x + 0.0 -> x is tinygrad's rule and is kept although (-0.0) + 0.0 is +0.0 (equal as numbers).
x * 0 for integers is not done when x may hold Invalid lanes: Invalid * 0 is Invalid, and a
reduction that skips those lanes would otherwise see zeros.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.dialects import arith
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from xdsl_multi.dialects import tg
from xdsl_multi.transforms.value_facts import (
    AttrCache,
    OpTypes,
    int_constant,
    may_hold_invalid,
)


def _forward(op: Operation, value: SSAValue, rewriter: PatternRewriter) -> None:
    """Replace `op` by an existing value of the same type."""
    rewriter.replace(op, [], [value])


class SelectOfConstantCondition(RewritePattern):
    """`arith.select %true, %x, %y` -> `%x`; `arith.select %false, %x, %y` -> `%y`."""

    op_types: ClassVar[OpTypes] = (arith.SelectOp,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SelectOp, rewriter: PatternRewriter, /) -> None:
        c = int_constant(op.cond)
        if c is not None:
            _forward(op, op.lhs if c & 1 else op.rhs, rewriter)


@dataclass(frozen=True)
class _WithConstants(RewritePattern):
    """A pattern that reads constants; `attrs` remembers facts about constants."""

    attrs: AttrCache = field(default_factory=AttrCache, compare=False)

    def is_zero(self, value: SSAValue) -> bool:
        c = self.attrs.constant(value)
        return c is not None and c == 0  # also -0.0

    def is_one(self, value: SSAValue) -> bool:
        c = self.attrs.constant(value)
        return c is not None and c == 1


class WhereOfSplatCondition(_WithConstants):
    """`tg.where dense<true>, %x, %y` -> `%x`; `dense<false>` -> `%y`."""

    op_types: ClassVar[OpTypes] = (tg.WhereOp,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.WhereOp, rewriter: PatternRewriter, /) -> None:
        c = self.attrs.splat(op.cond)
        if c is not None:
            _forward(op, op.true_value if int(c) & 1 else op.false_value, rewriter)


class SelectOfSameValues(RewritePattern):
    """`select(c, x, x)` -> x, for `arith.select` and `tg.where`, unless the condition may hold
    Invalid lanes (an Invalid condition lane makes the result lane Invalid)."""

    op_types: ClassVar[OpTypes] = (arith.SelectOp, tg.WhereOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.SelectOp | tg.WhereOp) or op.operands[1] is not op.operands[2]:
            return
        if isinstance(op, tg.WhereOp) and may_hold_invalid(op.cond):
            return
        _forward(op, op.operands[1], rewriter)


class AddZeroIsIdentity(_WithConstants):
    """`x + 0` and `0 + x` -> x (`arith.addi`, `arith.addf`; scalars and splat tensors)."""

    op_types: ClassVar[OpTypes] = (arith.AddiOp, arith.AddfOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.AddiOp | arith.AddfOp):
            return
        if self.is_zero(op.rhs):
            _forward(op, op.lhs, rewriter)
        elif self.is_zero(op.lhs):
            _forward(op, op.rhs, rewriter)


class SubZeroIsIdentity(_WithConstants):
    """`x - 0` -> x (`arith.subi`, `arith.subf`)."""

    op_types: ClassVar[OpTypes] = (arith.SubiOp, arith.SubfOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, arith.SubiOp | arith.SubfOp) and self.is_zero(op.rhs):
            _forward(op, op.lhs, rewriter)


class MulOneIsIdentity(_WithConstants):
    """`x * 1` and `1 * x` -> x (`arith.muli`, `arith.mulf`)."""

    op_types: ClassVar[OpTypes] = (arith.MuliOp, arith.MulfOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.MuliOp | arith.MulfOp):
            return
        if self.is_one(op.rhs):
            _forward(op, op.lhs, rewriter)
        elif self.is_one(op.lhs):
            _forward(op, op.rhs, rewriter)


class IntMulZeroIsZero(_WithConstants):
    """`arith.muli x, 0` (either side) -> 0, integers only (for floats NaN * 0 is NaN), and only
    when the other operand holds no Invalid lane."""

    op_types: ClassVar[OpTypes] = (arith.MuliOp,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.MuliOp, rewriter: PatternRewriter, /) -> None:
        for zero, other in ((op.rhs, op.lhs), (op.lhs, op.rhs)):
            if self.is_zero(zero) and not may_hold_invalid(other):
                rewriter.replace(op, self.attrs.constant_like(op.result.type, 0))
                return


class DoubleNegationCancels(RewritePattern):
    """`arith.negf (arith.negf x)` -> x."""

    op_types: ClassVar[OpTypes] = (arith.NegfOp,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.NegfOp, rewriter: PatternRewriter, /) -> None:
        inner = op.operand.owner
        if isinstance(inner, arith.NegfOp):
            _forward(op, inner.operand, rewriter)


def algebra_folding_patterns(attrs: AttrCache | None = None) -> list[RewritePattern]:
    """Every pattern of this file; `attrs` is shared with the other patterns of a pass."""
    attrs = attrs or AttrCache()
    return [
        SelectOfConstantCondition(),
        WhereOfSplatCondition(attrs),
        SelectOfSameValues(),
        AddZeroIsIdentity(attrs),
        SubZeroIsIdentity(attrs),
        MulOneIsIdentity(attrs),
        IntMulZeroIsZero(attrs),
        DoubleNegationCancels(),
    ]

"""The Invalid rules of SPEC §4 as rewrite patterns (used by `devidx-simplify`).

| rule | pattern |
|---|---|
| 1. f(select(c, x, inv)) = select(c, f(x), inv) | `ElementwiseOfSelectWithInvalid` |
|    f(..., inv, ...) = inv (rule 1 with c false) | `ElementwiseOfInvalidIsInvalid` |
| 2. reduce(select(c, x, inv)) = reduce(select(c, x, identity)) | `ReduceOfInvalidUsesIdentity` |
|    reduce(inv) = identity | `ReduceOfAllInvalidIsIdentity` |
| 3. materialized Invalid reads back as 0 | `ContiguousOfInvalidIsZero`, `FetchOfInvalidIsZero`, |
|    | `SendOfInvalidSendsZero`, `ReturnOfInvalidReturnsZero` |
| 4. pad(inv) invalid / shrink(inv) = inv | `PadOfInvalidIsInvalid`, `ShrinkOfInvalidIsInvalid` |
|    reshape/permute/expand/flip of inv = inv | `MovementOfInvalidIsInvalid` |
| 5. select(c, select(c, t, f), f2) = select(c, t, f2) (and mirrored) | `SelectOfSameCondition` |
| 6. index(stack(v0..vn), k) = vk, out of range: inv | `IndexOfStackWithConstant` |
|    index(inv, i) = inv | `IndexOfInvalidIsInvalid` |

"select" is the scalar-i1 `arith.select` on tensors or the elementwise `tg.where`; "f" is an
elementwise op: `arith`/`math` ops whose operands and result are tensors of one shape, `tg.cmp`,
`tg.cast` and `tg.threefry`. `tg.where` itself is not an f: Invalid in its unselected arm does
not poison it.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from xdsl_multi.dialects import devidx, tg
from xdsl_multi.transforms.value_facts import (
    OpTypes,
    constant_like,
    index_range,
    int_constant,
    invalid_arm,
    is_invalid,
    reduce_identity,
)

_NOT_ELEMENTWISE = (arith.ConstantOp, arith.SelectOp, arith.CmpiOp, arith.CmpfOp)


def is_elementwise(op: Operation) -> bool:
    """An elementwise op for rule 1: tg.cmp, tg.cast, tg.threefry, or an arith/math op on tensors of one shape."""
    if isinstance(op, tg.CmpOp | tg.CastOp | tg.ThreefryOp):
        return True
    if not op.name.startswith(("arith.", "math.")) or isinstance(op, _NOT_ELEMENTWISE):
        return False
    results = op.results
    if len(results) != 1 or not op.operands:
        return False
    res = results[0].type
    if not isinstance(res, TensorType):
        return False
    shape = res.shape  # the shape attribute: compared without building tuples
    for v in op.operands:
        t = v.type
        if not isinstance(t, TensorType) or t.shape != shape:
            return False
    return True


def is_elementwise_type(op_type: type[Operation]) -> bool:
    """Whether ops of this class may be elementwise (`is_elementwise` decides for each op)."""
    if issubclass(op_type, tg.CmpOp | tg.CastOp | tg.ThreefryOp):
        return True
    name = getattr(op_type, "name", None)
    if not isinstance(name, str):
        return True  # a class without a fixed name: ask each op
    return name.startswith(("arith.", "math.")) and not issubclass(op_type, _NOT_ELEMENTWISE)


def _rebuild(op: Operation, operands: list[SSAValue]) -> Operation:
    """A copy of `op` (same kind, properties, attributes and result types) on new operands."""
    return type(op).create(
        operands=operands,
        result_types=[r.type for r in op.results],
        properties=dict(op.properties),
        attributes=dict(op.attributes),
    )


def _select_like(template: Operation, cond: SSAValue, t: SSAValue, f: SSAValue) -> Operation:
    """A select of the same kind as `template` (arith.select or tg.where)."""
    if isinstance(template, tg.WhereOp):
        return tg.WhereOp(cond, t, f)
    return arith.SelectOp(cond, t, f)


def _replace_with_invalid(op: Operation, rewriter: PatternRewriter) -> None:
    rewriter.replace(op, devidx.InvalidOp(op.results[0].type))


# --------------------------------------------------------------------------------------------
# Rule 1: Invalid poisons elementwise ops
# --------------------------------------------------------------------------------------------


class ElementwiseOfSelectWithInvalid(RewritePattern):
    """Rule 1: `f(select(c, x, inv), y)` -> `select(c, f(x, y), inv)` (also with the Invalid arm
    first), so the select moves out towards the consumers, where d folds it away."""

    op_types: ClassVar[OpTypes] = staticmethod(is_elementwise_type)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        for i, operand in enumerate(op.operands):
            sel = operand.owner
            if not isinstance(sel, Operation) or (arm := invalid_arm(sel)) is None:
                continue
            if not is_elementwise(op):
                return
            value, invalid_pos = arm
            operands = list(op.operands)
            operands[i] = value
            inner = _rebuild(op, operands)
            inv = devidx.InvalidOp(op.results[0].type)
            if invalid_pos == 2:
                outer = _select_like(sel, sel.operands[0], inner.results[0], inv.result)
            else:
                outer = _select_like(sel, sel.operands[0], inv.result, inner.results[0])
            rewriter.replace(op, [inner, inv, outer])
            return


class ElementwiseOfInvalidIsInvalid(RewritePattern):
    """Rule 1 with an always-false condition: `f(inv, y)` -> `inv`."""

    op_types: ClassVar[OpTypes] = staticmethod(is_elementwise_type)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if any(is_invalid(v) for v in op.operands) and is_elementwise(op):
            _replace_with_invalid(op, rewriter)


# --------------------------------------------------------------------------------------------
# Rule 2: reductions skip Invalid lanes
# --------------------------------------------------------------------------------------------


class ReduceOfInvalidUsesIdentity(RewritePattern):
    """Rule 2: `reduce(select(c, x, inv))` -> `reduce(select(c, x, identity))` with the identity of
    the reduction (add 0, mul 1, max the element type's minimum) as a dense splat.

    The identity is used whatever the condition depends on: a lane-uniform condition that is
    false makes the whole reduced range Invalid, and SPEC §4 gives the identity for that too."""

    op_types: ClassVar[OpTypes] = (tg.ReduceOp,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.ReduceOp, rewriter: PatternRewriter, /) -> None:
        sel = op.source.owner
        if not isinstance(sel, Operation) or (arm := invalid_arm(sel)) is None:
            return
        value, invalid_pos = arm
        ident = constant_like(value.type, reduce_identity(op.reduce_kind, value.type))
        if invalid_pos == 2:
            new_sel = _select_like(sel, sel.operands[0], value, ident.result)
        else:
            new_sel = _select_like(sel, sel.operands[0], ident.result, value)
        rewriter.insert([ident, new_sel])
        rewriter.replace_uses_with_if(
            op.source, new_sel.results[0], lambda use: use.operation is op
        )


class ReduceOfAllInvalidIsIdentity(RewritePattern):
    """A reduction over an entirely Invalid range gives the identity: `reduce(inv)` -> splat."""

    op_types: ClassVar[OpTypes] = (tg.ReduceOp,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.ReduceOp, rewriter: PatternRewriter, /) -> None:
        if is_invalid(op.source):
            t = op.result.type
            rewriter.replace(op, constant_like(t, reduce_identity(op.reduce_kind, t)))


# --------------------------------------------------------------------------------------------
# Rule 3: a stored Invalid reads back as 0
# --------------------------------------------------------------------------------------------


class ContiguousOfInvalidIsZero(RewritePattern):
    """Rule 3: `tg.contiguous inv` -> `arith.constant dense<0>`."""

    op_types: ClassVar[OpTypes] = (tg.ContiguousOp,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.ContiguousOp, rewriter: PatternRewriter, /) -> None:
        if is_invalid(op.source):
            rewriter.replace(op, constant_like(op.result.type, 0))


class FetchOfInvalidIsZero(RewritePattern):
    """Rule 3: `devidx.fetch inv from j` -> `arith.constant dense<0>` (Invalid on every device)."""

    op_types: ClassVar[OpTypes] = (devidx.FetchOp,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: devidx.FetchOp, rewriter: PatternRewriter, /) -> None:
        if is_invalid(op.value):
            rewriter.replace(op, constant_like(op.result.type, 0))


class SendOfInvalidSendsZero(RewritePattern):
    """Rule 3: `devidx.send inv` sends zeros (the receiver reads the stored value)."""

    op_types: ClassVar[OpTypes] = (devidx.SendOp,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: devidx.SendOp, rewriter: PatternRewriter, /) -> None:
        if is_invalid(op.value):
            zero = constant_like(op.value.type, 0)
            rewriter.insert(zero)
            rewriter.replace_uses_with_if(op.value, zero.result, lambda use: use.operation is op)


class ReturnOfInvalidReturnsZero(RewritePattern):
    """Rule 3: a function result is stored: `func.return inv` returns zeros."""

    op_types: ClassVar[OpTypes] = (func.ReturnOp,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.ReturnOp, rewriter: PatternRewriter, /) -> None:
        for value in dict.fromkeys(op.arguments):  # in order: a deterministic output
            if is_invalid(value) and isinstance(value.type, TensorType):
                zero = constant_like(value.type, 0)
                rewriter.insert(zero)
                rewriter.replace_uses_with_if(
                    value, zero.result, lambda use: use.operation is op
                )


# --------------------------------------------------------------------------------------------
# Rule 4: movement of Invalid
# --------------------------------------------------------------------------------------------


class PadOfInvalidIsInvalid(RewritePattern):
    """Rule 4: `tg.pad inv [...] invalid` -> `inv`. (A pad with a fill value V is not: its
    padding holds V.)"""

    op_types: ClassVar[OpTypes] = (tg.PadOp,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.PadOp, rewriter: PatternRewriter, /) -> None:
        if op.is_invalid and is_invalid(op.source):
            _replace_with_invalid(op, rewriter)


class ShrinkOfInvalidIsInvalid(RewritePattern):
    """Rule 4: `tg.shrink inv [...]` -> `inv`."""

    op_types: ClassVar[OpTypes] = (tg.ShrinkOp,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.ShrinkOp, rewriter: PatternRewriter, /) -> None:
        if is_invalid(op.source):
            _replace_with_invalid(op, rewriter)


class MovementOfInvalidIsInvalid(RewritePattern):
    """reshape, permute, expand and flip of `inv` -> `inv`."""

    op_types: ClassVar[OpTypes] = (tg.ReshapeOp, tg.PermuteOp, tg.ExpandOp, tg.FlipOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, tg.ReshapeOp | tg.PermuteOp | tg.ExpandOp | tg.FlipOp) and is_invalid(
            op.source
        ):
            _replace_with_invalid(op, rewriter)


# --------------------------------------------------------------------------------------------
# Rule 5: nested selects on one condition
# --------------------------------------------------------------------------------------------


class SelectOfSameCondition(RewritePattern):
    """Rule 5: `select(c, select(c, t, f), f2)` -> `select(c, t, f2)` and
    `select(c, t2, select(c, t, f))` -> `select(c, t2, f)`, for `arith.select` and `tg.where`
    (the inner select of the same kind and on the same condition value)."""

    op_types: ClassVar[OpTypes] = (arith.SelectOp, tg.WhereOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.SelectOp | tg.WhereOp):
            return
        cond, t, f = op.operands
        inner_t, inner_f = t.owner, f.owner
        if isinstance(inner_t, type(op)) and inner_t.operands[0] is cond:
            rewriter.replace(op, _select_like(op, cond, inner_t.operands[1], f))
        elif isinstance(inner_f, type(op)) and inner_f.operands[0] is cond:
            rewriter.replace(op, _select_like(op, cond, t, inner_f.operands[2]))


# --------------------------------------------------------------------------------------------
# Rule 6: indexing a stack
# --------------------------------------------------------------------------------------------


class IndexOfStackWithConstant(RewritePattern):
    """Rule 6: `index(stack(v0..vn), k)` -> `vk` for a constant k; an index that is out of range
    (a constant, or a range of d that lies outside [0, n]) gives `inv`."""

    op_types: ClassVar[OpTypes] = (devidx.IndexOp,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: devidx.IndexOp, rewriter: PatternRewriter, /) -> None:
        stack = op.source.owner
        if not isinstance(stack, devidx.StackOp):
            return
        n = len(stack.sources)
        k = int_constant(op.index)
        if k is not None:
            if 0 <= k < n:
                rewriter.replace(op, [], [stack.sources[k]])
            else:
                _replace_with_invalid(op, rewriter)
            return
        r = index_range(op.index, None)
        if (r.hi is not None and r.hi < 0) or (r.lo is not None and r.lo >= n):
            _replace_with_invalid(op, rewriter)


class IndexOfInvalidIsInvalid(RewritePattern):
    """`index(inv, i)` -> `inv`."""

    op_types: ClassVar[OpTypes] = (devidx.IndexOp,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: devidx.IndexOp, rewriter: PatternRewriter, /) -> None:
        if is_invalid(op.source):
            _replace_with_invalid(op, rewriter)


def invalid_rule_patterns() -> list[RewritePattern]:
    """Every pattern of this file, in the order the greedy applier should try them."""
    return [
        ElementwiseOfInvalidIsInvalid(),
        ElementwiseOfSelectWithInvalid(),
        ReduceOfAllInvalidIsIdentity(),
        ReduceOfInvalidUsesIdentity(),
        ContiguousOfInvalidIsZero(),
        FetchOfInvalidIsZero(),
        SendOfInvalidSendsZero(),
        ReturnOfInvalidReturnsZero(),
        PadOfInvalidIsInvalid(),
        ShrinkOfInvalidIsInvalid(),
        MovementOfInvalidIsInvalid(),
        SelectOfSameCondition(),
        IndexOfStackWithConstant(),
        IndexOfInvalidIsInvalid(),
    ]

"""Folding of `tg.pad` and `tg.shrink` (used by `devidx-simplify`).

| pattern | rewrite |
|---|---|
| `ConstantBoundsBecomeStatic` | a bound given by a constant `index` value becomes a static bound |
| `PadWithZeroBoundsIsIdentity` | `pad x [[0, 0], ...]` -> x |
| `ShrinkOfFullRangeIsIdentity` | `shrink x [[0, L0], ...]` -> x |
| `ShrinkOfPadComposes` | `shrink(pad(x))` with static bounds -> `pad(shrink(x))` with composed bounds; a shrink that keeps only padding -> `devidx.invalid` (invalid pad) or the fill splat |
| `ShrinkOfPadRecoversSource` | `shrink(pad(x, [[p, q]]), [[p, p + L]])` for x of length L, bounds static or SSA (the same `p`) -> x on that axis (SPMD mode's `shrink(pad(x, 4d), 4d)`) |
| `ShrinkOfShrinkComposes` | `shrink(shrink(x, [a, b]), [c, d])` -> `shrink(x, [a + c, a + d])` |
| `PadOfPadComposes` | `pad(pad(x, b1, V), b2, V)` with the same fill -> `pad(x, b1 + b2, V)` |

The composing patterns only touch unplaced tensors (no `#multi` encoding), where no shard rule
applies. New ops are built with the tg constructors (mixed static/SSA bounds).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, NoneAttr, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from xdsl_multi.dialects import devidx, tg
from xdsl_multi.transforms.value_facts import OpTypes, constant_like, int_constant

StaticBounds = list[tuple[int, int]]


def _static_bounds(op: tg.PadOp | tg.ShrinkOp) -> StaticBounds | None:
    """The op's bounds when every one of them is static."""
    out: StaticBounds = []
    for lo, hi in op.bounds:
        if not (isinstance(lo, int) and isinstance(hi, int)):
            return None
        out.append((lo, hi))
    return out


def _shape(value: SSAValue) -> tuple[int, ...]:
    t = value.type
    assert isinstance(t, TensorType)
    return t.get_shape()


def _no_encoding(t: object) -> bool:
    """An unplaced tensor type (no `#multi` encoding): no shard rule constrains its bounds."""
    return isinstance(t, TensorType) and isinstance(t.encoding, NoneAttr)


def _tensor_like(value: SSAValue, shape: Sequence[int]) -> TensorType:
    t = value.type
    assert isinstance(t, TensorType)
    return TensorType(t.element_type, shape, t.encoding)


def _valid_static(op: tg.PadOp | tg.ShrinkOp, bounds: Sequence[tuple[int, int]]) -> bool:
    """Whether the op would verify with these static bounds."""
    old, new = _shape(op.source), _shape(op.result)
    for (lo, hi), o, n in zip(bounds, old, new, strict=True):
        if isinstance(op, tg.PadOp):
            if lo < 0 or hi < 0 or o + lo + hi != n:
                return False
        elif not (0 <= lo <= hi <= o and hi - lo == n):
            return False
    return True


class ConstantBoundsBecomeStatic(RewritePattern):
    """`tg.pad %x [[%c1, %c2]]` with constant `%c1`, `%c2` -> `tg.pad %x [[1, 2]]` (also shrink).
    Bounds that would not verify (a negative pad, a shrink out of range: a lane that is Invalid
    anyway on this device) are left as SSA values."""

    op_types: ClassVar[OpTypes] = (tg.PadOp, tg.ShrinkOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, tg.PadOp | tg.ShrinkOp) or not op.dyn_bounds:
            return
        changed = False
        bounds: list[tuple[tg.Bound, tg.Bound]] = []
        for lo, hi in op.bounds:
            pair: list[tg.Bound] = []
            for b in (lo, hi):
                c = None if isinstance(b, int) else int_constant(b)
                if c is not None:
                    changed = True
                    pair.append(c)
                else:
                    pair.append(b)
            bounds.append((pair[0], pair[1]))
        if not changed:
            return
        all_static = all(isinstance(b, int) for pair in bounds for b in pair)
        if all_static and not _valid_static(op, bounds):  # type: ignore[arg-type]
            return
        rewriter.replace(op, _rebuild(op, op.source, bounds))


def _rebuild(
    op: tg.PadOp | tg.ShrinkOp, source: SSAValue, bounds: Sequence[tuple[tg.Bound, tg.Bound]]
) -> Operation:
    if isinstance(op, tg.PadOp):
        new: Operation = tg.PadOp(source, bounds, op.result.type, op.value)
    else:
        new = tg.ShrinkOp(source, bounds, op.result.type)
    new.attributes |= op.attributes
    return new


class PadWithZeroBoundsIsIdentity(RewritePattern):
    """`tg.pad %x [[0, 0], [0, 0]] ...` -> `%x`."""

    op_types: ClassVar[OpTypes] = (tg.PadOp,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.PadOp, rewriter: PatternRewriter, /) -> None:
        bounds = _static_bounds(op)
        zero = bounds is not None and all(b == (0, 0) for b in bounds)
        if zero and op.source.type == op.result.type:
            rewriter.replace(op, [], [op.source])


class ShrinkOfFullRangeIsIdentity(RewritePattern):
    """`tg.shrink %x [[0, L0], [0, L1]]` for x of shape L0 x L1 -> `%x`."""

    op_types: ClassVar[OpTypes] = (tg.ShrinkOp,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.ShrinkOp, rewriter: PatternRewriter, /) -> None:
        bounds = _static_bounds(op)
        if bounds is None or op.source.type != op.result.type:
            return
        if all(b == (0, n) for b, n in zip(bounds, _shape(op.source), strict=True)):
            rewriter.replace(op, [], [op.source])


def _fill_constant(pad: tg.PadOp, t: TensorType) -> Operation:
    """What a region made only of the pad's padding is: Invalid, or a splat of the fill."""
    if pad.value is None:
        return devidx.InvalidOp(t)
    assert isinstance(pad.value, FloatAttr | IntegerAttr)
    return constant_like(t, pad.value.value.data)


class ShrinkOfPadComposes(RewritePattern):
    """`shrink(pad(x, P), S)` with static bounds: per axis the shrink keeps rows of x
    [max(s_lo - p_lo, 0), min(s_hi - p_lo, L)) and padding max(p_lo - s_lo, 0) before and
    max(s_hi - (p_lo + L), 0) after, so it becomes `pad(shrink(x))` (either side dropped when it
    is the identity). When on some axis the shrink keeps only padding, the result is all fill:
    `devidx.invalid` for an invalid pad, the fill value's splat otherwise."""

    op_types: ClassVar[OpTypes] = (tg.ShrinkOp,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.ShrinkOp, rewriter: PatternRewriter, /) -> None:
        pad = op.source.owner
        if not isinstance(pad, tg.PadOp) or not _no_encoding(pad.source.type):
            return
        shrink_b, pad_b = _static_bounds(op), _static_bounds(pad)
        if shrink_b is None or pad_b is None:
            return
        x = pad.source
        x_shape = _shape(x)
        inner: StaticBounds = []
        outer: StaticBounds = []
        for (s_lo, s_hi), (p_lo, _), length in zip(shrink_b, pad_b, x_shape, strict=True):
            if s_hi > s_lo and (s_hi <= p_lo or s_lo >= p_lo + length):
                rewriter.replace(op, _fill_constant(pad, op.result.type))  # type: ignore[arg-type]
                return
            lo = min(max(s_lo - p_lo, 0), length)
            hi = max(min(s_hi - p_lo, length), lo)
            inner.append((lo, hi))
            outer.append((max(p_lo - s_lo, 0), max(s_hi - (p_lo + length), 0)))
        new_ops: list[Operation] = []
        value = x
        if any(b != (0, n) for b, n in zip(inner, x_shape, strict=True)):
            shrink = tg.ShrinkOp(x, inner, _tensor_like(x, [hi - lo for lo, hi in inner]))
            new_ops.append(shrink)
            value = shrink.result
        if any(b != (0, 0) for b in outer):
            new_pad = tg.PadOp(value, outer, op.result.type, pad.value)
            new_ops.append(new_pad)
            value = new_pad.result
        rewriter.replace(op, new_ops, [value])


def _same_bound(a: tg.Bound, b: tg.Bound) -> bool:
    return a == b if isinstance(a, int) and isinstance(b, int) else a is b


class ShrinkOfPadRecoversSource(RewritePattern):
    """`shrink(pad(x, P), S)` where on some axes the shrink starts where the pad put x (the
    same static bound or the same SSA value) and keeps x's length, and covers every other axis
    whole: those axes are x's own, so the result is `pad(x)` without their padding (x itself
    when no padding is left). The bounds may be symbolic: at the SPMD level the mesh bounds
    are `4 * d`-like values, and without this the value would be kept at its padded logical
    shape (BENCH W8's matmul in SPMD mode was a masked 1024 x 1024 kernel per device)."""

    op_types: ClassVar[OpTypes] = (tg.ShrinkOp,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.ShrinkOp, rewriter: PatternRewriter, /) -> None:
        pad = op.source.owner
        if not isinstance(pad, tg.PadOp) or not _no_encoding(pad.source.type):
            return
        x_shape, padded, out = _shape(pad.source), _shape(op.source), _shape(op.result)
        bounds: list[tuple[tg.Bound, tg.Bound]] = []
        recovered = False
        for (s_lo, s_hi), (p_lo, p_hi), length, full, n in zip(
            op.bounds, pad.bounds, x_shape, padded, out, strict=True
        ):
            if _same_bound(s_lo, p_lo) and n == length:
                bounds.append((0, 0))
                recovered = True
            elif s_lo == 0 and s_hi == full:
                bounds.append((p_lo, p_hi))
            else:
                return
        if not recovered:
            return
        if all(b == (0, 0) for b in bounds):
            rewriter.replace(op, [], [pad.source])
        else:
            rewriter.replace(op, tg.PadOp(pad.source, bounds, op.result.type, pad.value))


class ShrinkOfShrinkComposes(RewritePattern):
    """`shrink(shrink(x, [[a, b]]), [[c, d]])` -> `shrink(x, [[a + c, a + d]])` (static bounds)."""

    op_types: ClassVar[OpTypes] = (tg.ShrinkOp,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.ShrinkOp, rewriter: PatternRewriter, /) -> None:
        inner = op.source.owner
        if not isinstance(inner, tg.ShrinkOp) or not _no_encoding(inner.source.type):
            return
        outer_b, inner_b = _static_bounds(op), _static_bounds(inner)
        if outer_b is None or inner_b is None:
            return
        bounds = [(a + c, a + d) for (a, _), (c, d) in zip(inner_b, outer_b, strict=True)]
        rewriter.replace(op, tg.ShrinkOp(inner.source, bounds, op.result.type))


def _same_fill(a: tg.PadOp, b: tg.PadOp) -> bool:
    if a.is_invalid or b.is_invalid:
        return a.is_invalid and b.is_invalid
    return a.value == b.value


class PadOfPadComposes(RewritePattern):
    """`pad(pad(x, [[a, b]], V), [[c, d]], V)` -> `pad(x, [[a + c, b + d]], V)` for the same fill
    (both invalid or the same value). A sum with an SSA bound becomes an `arith.addi`."""

    op_types: ClassVar[OpTypes] = (tg.PadOp,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tg.PadOp, rewriter: PatternRewriter, /) -> None:
        inner = op.source.owner
        if not isinstance(inner, tg.PadOp) or not _same_fill(op, inner):
            return
        if not _no_encoding(inner.source.type):
            return
        new_ops: list[Operation] = []

        def add(a: tg.Bound, b: tg.Bound) -> tg.Bound:
            if isinstance(a, int) and isinstance(b, int):
                return a + b
            if a == 0:
                return b
            if b == 0:
                return a
            operands: list[SSAValue] = []
            for v in (a, b):
                if isinstance(v, int):
                    c = constant_like(IndexType(), v)
                    new_ops.append(c)
                    operands.append(c.result)
                else:
                    operands.append(v)
            s = arith.AddiOp(operands[0], operands[1])
            new_ops.append(s)
            return s.result

        bounds = [
            (add(ilo, olo), add(ihi, ohi))
            for (ilo, ihi), (olo, ohi) in zip(inner.bounds, op.bounds, strict=True)
        ]
        new_ops.append(tg.PadOp(inner.source, bounds, op.result.type, op.value))
        rewriter.replace(op, new_ops)


def pad_shrink_folding_patterns() -> list[RewritePattern]:
    """Every pattern of this file."""
    return [
        ConstantBoundsBecomeStatic(),
        PadWithZeroBoundsIsIdentity(),
        ShrinkOfFullRangeIsIdentity(),
        ShrinkOfPadComposes(),
        ShrinkOfPadRecoversSource(),
        ShrinkOfShrinkComposes(),
        PadOfPadComposes(),
    ]

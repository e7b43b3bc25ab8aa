"""Narrowing computations to the lanes that hold data: what lets a device compute only its share.

After `specialize-devices` folds d, the SPMD form's shard values are `tg.pad ... invalid` with
static bounds: data in a window, Invalid around it. Two families of sound rewrites move the work
into the window:

| rule | rewrite | why it is sound |
|---|---|---|
| `ElementwiseOfInvalidPad` | f(pad_inv(x, w), c) -> pad_inv(f(x, c[w]), w) | Invalid poisons elementwise ops (SPEC §4 rule 1) |
| `SelectOfInvalidPads` | where(c, pad_inv(x, w), pad_inv(y, w)) -> pad_inv(where(c[w], x, y), w) | a lane outside w is Invalid whichever side is chosen |
| `ExpandOfInvalidPad` | expand(pad_inv(x, w)) -> pad_inv(expand(x), w) when no padded axis expands | lanes move with their data |
| `PermuteOfInvalidPad` | permute(pad_inv(x, w)) -> pad_inv(permute(x), permuted w) | lanes move with their data |
| `ContiguousOfInvalidPad` | contiguous(pad_inv(x, w)) -> pad(contiguous(x), w) value 0 | a store writes Invalid as 0 (rule 3) |
| `ReduceOverInvalidPadding` | reduce(pad_inv(x, w), axes) -> reduce(x, axes) when only reduced axes are padded | the padding reduces as the identity (rule 2) |
| `ShrinkOfElementwise` | shrink(f(a, b), s) -> f(shrink(a, s), shrink(b, s)) | lane-wise ops commute with shrink |
| `ShrinkOfReduce` | shrink(reduce(x, axes), s) -> reduce(shrink(x, s'), axes), s' full on reduced axes | each kept lane reduces the same inputs |
| `ShrinkOfExpand` | shrink(expand(x), s) -> expand(shrink(x, s')) | expand copies lanes |

A reduce is never pushed through a pad: a reduction over an all-Invalid range is the identity, a
valid value, so `reduce(pad_inv(x))` is not `pad_inv(reduce(x))`. The shrink that the SPMD form
places after it (`clean`, `local`) is pushed up instead (`ShrinkOfReduce`). Shrinks are pushed
through an op only when the shrink is its one use, so no work is duplicated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.dialects import arith
from xdsl.dialects.builtin import NoneAttr, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from xdsl_multi.dialects import devidx, tg
from xdsl_multi.transforms.devidx_simplify.invalid_rules import is_elementwise, is_elementwise_type
from xdsl_multi.transforms.value_facts import AttrCache, OpTypes

Window = list[tuple[int, int]]
"""Per axis, the [lo, hi) range of lanes that may hold data."""


@dataclass(frozen=True)
class _WithConstants(RewritePattern):
    """A pattern that may narrow splat constants; `attrs` remembers which constants are."""

    attrs: AttrCache = field(default_factory=AttrCache, compare=False)


def _shape(v: SSAValue) -> tuple[int, ...]:
    t = v.type
    assert isinstance(t, TensorType)
    return t.get_shape()


def _plain(v: SSAValue) -> bool:
    t = v.type
    return isinstance(t, TensorType) and isinstance(t.encoding, NoneAttr)


def invalid_pad(v: SSAValue) -> tuple[SSAValue, Window] | None:
    """(x, window) when v is `tg.pad x [...] invalid` with static bounds on a plain tensor."""
    op = v.owner
    if not isinstance(op, tg.PadOp) or not op.is_invalid or not _plain(v):
        return None
    window: Window = []
    for (lo, hi), n in zip(op.bounds, _shape(op.source), strict=True):
        if not isinstance(lo, int) or not isinstance(hi, int):
            return None
        window.append((lo, lo + n))
    return op.source, window


def _full(shape: Sequence[int]) -> Window:
    return [(0, n) for n in shape]


def _intersect(a: Window, b: Window) -> Window:
    return [(max(l1, l2), min(h1, h2)) for (l1, h1), (l2, h2) in zip(a, b, strict=True)]


def _pad_bounds(window: Window, shape: Sequence[int]) -> list[tuple[tg.Bound, tg.Bound]]:
    return [(lo, n - hi) for (lo, hi), n in zip(window, shape, strict=True)]


def _size(window: Window) -> list[int]:
    return [hi - lo for lo, hi in window]


class _Emit:
    """Inserts new ops before the op being rewritten."""

    def __init__(self, rewriter: PatternRewriter, attrs: AttrCache):
        self.rewriter = rewriter
        self.attrs = attrs

    def op(self, op: Operation) -> SSAValue:
        self.rewriter.insert(op)
        return op.results[0]

    def retyped(self, v: SSAValue, shape: Sequence[int]) -> TensorType:
        """v's tensor type with another shape."""
        t = v.type
        assert isinstance(t, TensorType)
        return self.attrs.tensor_like(t, shape)

    def lanewise(
        self, op: Operation, operands: Sequence[SSAValue], shape: Sequence[int]
    ) -> SSAValue:
        """Lane-wise `op` again on `operands`, its result of `shape`."""
        return self.op(
            type(op).create(
                operands=list(operands),
                result_types=[self.retyped(op.results[0], shape)],
                properties=dict(op.properties),
                attributes=dict(op.attributes),
            )
        )

    def shrink(self, x: SSAValue, window: Window) -> SSAValue:
        if window == _full(_shape(x)):
            return x
        bounds: list[tuple[tg.Bound, tg.Bound]] = [(lo, hi) for lo, hi in window]
        return self.op(tg.ShrinkOp(x, bounds, self.retyped(x, _size(window))))

    def content(self, v: SSAValue, window: Window) -> SSAValue:
        """The lanes of v inside `window`, without materializing v's padding."""
        padded = invalid_pad(v)
        if padded is not None:
            x, w = padded
            inside = _intersect(window, w)
            if any(hi <= lo for lo, hi in inside):
                return self.op(devidx.InvalidOp(self.retyped(v, _size(window))))
            data = self.shrink(x, [(lo - wl, hi - wl) for (lo, hi), (wl, _) in zip(inside, w)])
            # the part of the window that lies in v's padding stays Invalid
            margins = [(lo - wlo, whi - hi) for (lo, hi), (wlo, whi) in zip(inside, window)]
            if all(m == (0, 0) for m in margins):
                return data
            return self.op(tg.PadOp(data, margins, self.retyped(v, _size(window))))
        value = self.attrs.splat(v)
        if value is not None:
            return self.op(self.attrs.constant_like(self.retyped(v, _size(window)), value))
        return self.shrink(v, window)

    def pad(self, x: SSAValue, window: Window, shape: Sequence[int], zero: bool) -> SSAValue:
        if window == _full(shape):
            return x
        fill = None
        if zero:
            t = x.type
            assert isinstance(t, TensorType)
            fill = tg.pad_value_attr(0, t.element_type)
        return self.op(tg.PadOp(x, _pad_bounds(window, shape), self.retyped(x, shape), fill))


def _window_of(v: SSAValue) -> Window:
    padded = invalid_pad(v)
    return padded[1] if padded is not None else _full(_shape(v))


def _narrow_lanewise(
    op: Operation,
    operands: Sequence[SSAValue],
    window: Window,
    rewriter: PatternRewriter,
    attrs: AttrCache,
) -> None:
    """Rebuild lane-wise `op` on the window's content of `operands` and pad the result back."""
    emit = _Emit(rewriter, attrs)
    shape = _shape(op.results[0])
    if any(hi <= lo for lo, hi in window):
        return  # an all-Invalid result: invalid_rules handle it
    contents = [
        emit.content(v, window) if isinstance(v.type, TensorType) and _shape(v) == shape else v
        for v in operands
    ]
    inner = emit.lanewise(op, contents, _size(window))
    rewriter.replace(op, [], [emit.pad(inner, window, shape, zero=False)])


class ElementwiseOfInvalidPad(_WithConstants):
    """f(pad_inv(x, w), c) -> pad_inv(f(x, c restricted to w), w), w the operands' common window."""

    op_types: ClassVar[OpTypes] = staticmethod(is_elementwise_type)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not any(invalid_pad(v) is not None for v in op.operands):
            return
        if not is_elementwise(op) or not _plain(op.results[0]):
            return
        window = _full(_shape(op.results[0]))
        for v in op.operands:
            window = _intersect(window, _window_of(v))
        _narrow_lanewise(op, list(op.operands), window, rewriter, self.attrs)


class SelectOfInvalidPads(_WithConstants):
    """where(c, pad_inv(x, w), pad_inv(y, w)) -> pad_inv(where(c[w], x, y), w); also the scalar
    `arith.select` on tensors."""

    op_types: ClassVar[OpTypes] = (tg.WhereOp, arith.SelectOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, tg.WhereOp):
            cond: SSAValue | None = op.cond
            values = (op.true_value, op.false_value)
        elif isinstance(op, arith.SelectOp) and isinstance(op.result.type, TensorType):
            cond, values = None, (op.lhs, op.rhs)
        else:
            return
        if not _plain(op.results[0]):
            return
        padded = [invalid_pad(v) for v in values]
        if any(p is None for p in padded):
            return
        windows = [p[1] for p in padded if p is not None]
        if windows[0] != windows[1]:
            return
        window = windows[0] if cond is None else _intersect(windows[0], _window_of(cond))
        _narrow_lanewise(op, list(op.operands), window, rewriter, self.attrs)


class ExpandOfInvalidPad(_WithConstants):
    """expand(pad_inv(x, w)) -> pad_inv(expand(x), w) when every padded axis keeps its size."""

    op_types: ClassVar[OpTypes] = (tg.ExpandOp,)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, tg.ExpandOp) or not _plain(op.result):
            return
        padded = invalid_pad(op.source)
        if padded is None:
            return
        x, window = padded
        old, new = _shape(op.source), _shape(op.result)
        if any((lo, hi) != (0, o) and o != n for (lo, hi), o, n in zip(window, old, new)):
            return
        out_window = [(lo, hi) if o == n else (0, n) for (lo, hi), o, n in zip(window, old, new)]
        emit = _Emit(rewriter, self.attrs)
        inner = emit.op(tg.ExpandOp(x, emit.retyped(x, _size(out_window))))
        rewriter.replace(op, [], [emit.pad(inner, out_window, new, zero=False)])


class PermuteOfInvalidPad(_WithConstants):
    """permute(pad_inv(x, w)) -> pad_inv(permute(x), permuted w)."""

    op_types: ClassVar[OpTypes] = (tg.PermuteOp,)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, tg.PermuteOp) or not _plain(op.result):
            return
        padded = invalid_pad(op.source)
        if padded is None:
            return
        x, window = padded
        order = op.order_list
        out_window = [window[i] for i in order]
        emit = _Emit(rewriter, self.attrs)
        inner = emit.op(tg.PermuteOp(x, order, emit.retyped(x, _size(out_window))))
        rewriter.replace(op, [], [emit.pad(inner, out_window, _shape(op.result), zero=False)])


class ContiguousOfInvalidPad(_WithConstants):
    """contiguous(pad_inv(x, w)) -> pad(contiguous(x), w) value 0: a store writes Invalid as 0."""

    op_types: ClassVar[OpTypes] = (tg.ContiguousOp,)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, tg.ContiguousOp) or not _plain(op.result):
            return
        padded = invalid_pad(op.source)
        if padded is None:
            return
        x, window = padded
        emit = _Emit(rewriter, self.attrs)
        inner = emit.op(tg.ContiguousOp(x))
        rewriter.replace(op, [], [emit.pad(inner, window, _shape(op.result), zero=True)])


class ReduceOverInvalidPadding(RewritePattern):
    """reduce(pad_inv(x, w), axes) -> reduce(x, axes) when only reduced axes are padded: the
    padding reduces as the identity (SPEC §4 rule 2)."""

    op_types: ClassVar[OpTypes] = (tg.ReduceOp,)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, tg.ReduceOp) or not _plain(op.result):
            return
        padded = invalid_pad(op.source)
        if padded is None:
            return
        x, window = padded
        shape = _shape(op.source)
        axes = op.axes_list
        kept_axes_padded = any(
            window[i] != (0, n) for i, n in enumerate(shape) if i not in axes
        )
        if kept_axes_padded or any(_shape(x)[i] == 0 for i in axes):
            return
        rewriter.replace(op, tg.ReduceOp(op.kind, x, axes, op.result.type))


def _static_shrink(op: tg.ShrinkOp) -> Window | None:
    out: Window = []
    for lo, hi in op.bounds:
        if not (isinstance(lo, int) and isinstance(hi, int)):
            return None
        out.append((lo, hi))
    return out


def _single_use_source(op: tg.ShrinkOp) -> Operation | None:
    src = op.source
    if not src.has_one_use() or not _plain(src):
        return None
    return src.owner if isinstance(src.owner, Operation) else None


class ShrinkOfElementwise(_WithConstants):
    """shrink(f(a, b), s) -> f(shrink(a, s), shrink(b, s)) when f's result has no other use."""

    op_types: ClassVar[OpTypes] = (tg.ShrinkOp,)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, tg.ShrinkOp) or (window := _static_shrink(op)) is None:
            return
        producer = _single_use_source(op)
        if producer is None:
            return
        lanewise = is_elementwise(producer) or isinstance(producer, tg.WhereOp) or (
            isinstance(producer, arith.SelectOp) and isinstance(producer.result.type, TensorType)
        )
        if not lanewise:
            return
        emit = _Emit(rewriter, self.attrs)
        shape = _shape(producer.results[0])
        contents = [
            emit.content(v, window) if isinstance(v.type, TensorType) and _shape(v) == shape else v
            for v in producer.operands
        ]
        new = type(producer).create(
            operands=contents,
            result_types=[emit.retyped(producer.results[0], _size(window))],
            properties=dict(producer.properties),
            attributes=dict(producer.attributes),
        )
        rewriter.replace(op, new)


class ShrinkOfReduce(_WithConstants):
    """shrink(reduce(x, axes), s) -> reduce(shrink(x, s with reduced axes whole), axes)."""

    op_types: ClassVar[OpTypes] = (tg.ShrinkOp,)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, tg.ShrinkOp) or (window := _static_shrink(op)) is None:
            return
        producer = _single_use_source(op)
        if not isinstance(producer, tg.ReduceOp):
            return
        axes = producer.axes_list
        src_shape = _shape(producer.source)
        src_window = [(0, src_shape[i]) if i in axes else w for i, w in enumerate(window)]
        emit = _Emit(rewriter, self.attrs)
        inner = emit.content(producer.source, src_window)
        rewriter.replace(
            op,
            tg.ReduceOp(producer.kind, inner, axes, emit.retyped(op.result, _shape(op.result))),
        )


class ShrinkOfExpand(_WithConstants):
    """shrink(expand(x), s) -> expand(shrink(x, s with expanded axes [0, 1)))."""

    op_types: ClassVar[OpTypes] = (tg.ShrinkOp,)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, tg.ShrinkOp) or (window := _static_shrink(op)) is None:
            return
        producer = op.source.owner
        if not isinstance(producer, tg.ExpandOp) or not _plain(producer.result):
            return
        old = _shape(producer.source)
        src_window = [(0, 1) if o == 1 else w for w, o in zip(window, old, strict=True)]
        emit = _Emit(rewriter, self.attrs)
        inner = emit.shrink(producer.source, src_window)
        rewriter.replace(op, tg.ExpandOp(inner, op.result.type))


# ---------------------------------------------------------------------------------------------
# The SPMD level: windows that move with the device number
# ---------------------------------------------------------------------------------------------


def device_pad(v: SSAValue) -> tuple[SSAValue, tuple] | None:
    """(x, bounds) when v is `tg.pad x [...] invalid` on a plain tensor with a bound that is an
    SSA value (at the SPMD level: the device's window, e.g. `[[%lo, %hi]]` from d)."""
    op = v.owner
    if not isinstance(op, tg.PadOp) or not op.is_invalid or not _plain(v):
        return None
    bounds = tuple(op.bounds)
    if all(isinstance(b, int) for pair in bounds for b in pair):
        return None
    return op.source, bounds


class ElementwiseOfDevicePad(_WithConstants):
    """f(pad_inv(x, b), pad_inv(y, b), c) -> pad_inv(f(x, y, c'), b) for the same bounds b (SSA
    values of the SPMD level), c splat constants (c' the same splat at x's shape): Invalid
    poisons elementwise ops (SPEC §4 rule 1), so the op runs on the device's window only and
    form-kernels can store what it feeds (a matmul's relu) at the local size."""

    op_types: ClassVar[OpTypes] = staticmethod(is_elementwise_type)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not is_elementwise(op) or not _plain(op.results[0]):
            return
        first = next((p for v in op.operands if (p := device_pad(v)) is not None), None)
        if first is None:
            return
        x0, bounds = first
        shape = _shape(x0)
        emit = _Emit(rewriter, self.attrs)
        operands: list[SSAValue] = []
        for v in op.operands:
            if not isinstance(v.type, TensorType):
                operands.append(v)
                continue
            padded = device_pad(v)
            if padded is not None:
                if not _same_bounds(padded[1], bounds) or _shape(padded[0]) != shape:
                    return
                operands.append(padded[0])
            elif (value := self.attrs.splat(v)) is not None:
                operands.append(emit.op(self.attrs.constant_like(emit.retyped(v, shape), value)))
            else:
                return
        inner = emit.lanewise(op, operands, shape)
        rewriter.replace(op, tg.PadOp(inner, list(bounds), op.results[0].type))


class ReshapeOfDevicePad(RewritePattern):
    """reshape(pad_inv(x, b)) -> pad_inv(reshape(x), b') when the reshape only adds or drops
    unit axes that are not padded (b' the same bounds on the kept axes): lanes keep their
    places."""

    op_types: ClassVar[OpTypes] = (tg.ReshapeOp,)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, tg.ReshapeOp) or not _plain(op.result):
            return
        padded = device_pad(op.source)
        if padded is None:
            return
        x, bounds = padded
        old, new = _shape(op.source), _shape(op.result)
        if [n for n in old if n != 1] != [n for n in new if n != 1]:
            return
        kept = [(b, n) for b, n in zip(bounds, old, strict=True) if n != 1]
        if any(b != (0, 0) for b, n in zip(bounds, old, strict=True) if n == 1):
            return
        it = iter(kept)
        out_bounds = [(0, 0) if n == 1 else next(it)[0] for n in new]
        sizes = iter(s for s, n in zip(_shape(x), old, strict=True) if n != 1)
        x_shape = [1 if n == 1 else next(sizes) for n in new]
        t = x.type
        assert isinstance(t, TensorType)
        reshaped = tg.ReshapeOp(x, TensorType(t.element_type, x_shape, t.encoding))
        rewriter.insert(reshaped)
        rewriter.replace(op, tg.PadOp(reshaped.result, out_bounds, op.result.type))


def _unpadded(pair: tuple[tg.Bound, tg.Bound]) -> bool:
    return pair == (0, 0)


class ExpandOfDevicePad(_WithConstants):
    """expand(pad_inv(x, b)) -> pad_inv(expand(x), b) when every axis that expands has bounds
    [0, 0] (b SSA values of the SPMD level): lanes move with their data, on every device.
    Run by specialize-devices on the SPMD program before it copies it (`device_window_patterns`),
    not by devidx-simplify."""

    op_types: ClassVar[OpTypes] = (tg.ExpandOp,)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, tg.ExpandOp) or not _plain(op.result):
            return
        padded = device_pad(op.source)
        if padded is None:
            return
        x, bounds = padded
        old, new = _shape(op.source), _shape(op.result)
        if any(o != n and not _unpadded(b) for b, o, n in zip(bounds, old, new, strict=True)):
            return
        x_shape = [n if o != n else k for k, o, n in zip(_shape(x), old, new, strict=True)]
        emit = _Emit(rewriter, self.attrs)
        inner = emit.op(tg.ExpandOp(x, emit.retyped(x, x_shape)))
        rewriter.replace(op, tg.PadOp(inner, list(bounds), op.result.type))


class ShrinkOfReduceOfDevicePad(RewritePattern):
    """shrink(reduce(pad_inv(x, b), axes), s) -> reduce(x, axes) when no reduced axis is padded
    and on every padded axis the shrink starts where the pad put x (the same SSA value) and
    keeps x's length, the other axes whole: each kept lane reduces x's own row, on every
    device. (Without the shrink the rows outside the window would reduce to the identity, a
    valid value: a reduce is never pushed through a pad.) Run by specialize-devices on the SPMD
    program before it copies it (`device_window_patterns`)."""

    op_types: ClassVar[OpTypes] = (tg.ShrinkOp,)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, tg.ShrinkOp) or not _plain(op.result):
            return
        producer = _single_use_source(op)
        if not isinstance(producer, tg.ReduceOp):
            return
        padded = device_pad(producer.source)
        if padded is None:
            return
        x, bounds = padded
        axes = producer.axes_list
        for i, ((s_lo, s_hi), b, k, full, n) in enumerate(
            zip(op.bounds, bounds, _shape(x), _shape(op.source), _shape(op.result), strict=True)
        ):
            if _unpadded(b):
                if (s_lo, s_hi) != (0, full):
                    return
            elif i in axes or isinstance(s_lo, int) or s_lo is not b[0] or n != k:
                return
        rewriter.replace(op, tg.ReduceOp(producer.kind, x, axes, op.result.type))


class ShrinkOfExpandOnExpandedAxes(RewritePattern):
    """shrink(expand(x), s) -> expand(x) to the shrink's shape when every axis the shrink
    narrows is one that expand copies (x has size 1 there) and the others are whole: the
    copies are all alike, so any window of them (d-dependent bounds included) is the same.
    Run by specialize-devices on the SPMD program before it copies it
    (`device_window_patterns`): a replicated operand taken per device's rows (BENCH W4's B)."""

    op_types: ClassVar[OpTypes] = (tg.ShrinkOp,)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, tg.ShrinkOp) or not _plain(op.result):
            return
        producer = op.source.owner
        if not isinstance(producer, tg.ExpandOp) or not _plain(producer.result):
            return
        old, full = _shape(producer.source), _shape(op.source)
        for (lo, hi), o, n in zip(op.bounds, old, full, strict=True):
            if o == 1 and n != 1:
                continue  # an expanded axis: any window of copies
            if (lo, hi) != (0, n):
                return
        if all(isinstance(b, int) for pair in op.bounds for b in pair):
            return  # static: ShrinkOfExpand's
        rewriter.replace(op, tg.ExpandOp(producer.source, op.result.type))


def device_window_patterns(attrs: AttrCache | None = None) -> list[RewritePattern]:
    """Rules that narrow the SPMD program's device windows for every device at once: with
    devidx-simplify's patterns they make a row-local chain (BENCH C1) free of d, so
    specialize-devices simplifies one copy for all devices (its `_shared_program`)."""
    attrs = attrs or AttrCache()
    return [ExpandOfDevicePad(attrs), ShrinkOfReduceOfDevicePad(), ShrinkOfExpandOnExpandedAxes()]


def _same_bounds(a: tuple, b: tuple) -> bool:
    """The same bounds: equal integers, the same SSA values."""
    return len(a) == len(b) and all(
        (x is y) if not isinstance(x, int) or not isinstance(y, int) else x == y
        for pa, pb in zip(a, b, strict=True)
        for x, y in zip(pa, pb, strict=True)
    )


def invalid_window_patterns(attrs: AttrCache | None = None) -> list[RewritePattern]:
    """The window-narrowing rules, in the order they are tried; `attrs` is shared with the
    other patterns of a pass."""
    attrs = attrs or AttrCache()
    return [
        ElementwiseOfInvalidPad(attrs),
        SelectOfInvalidPads(attrs),
        ExpandOfInvalidPad(attrs),
        PermuteOfInvalidPad(attrs),
        ContiguousOfInvalidPad(attrs),
        ReduceOverInvalidPadding(),
        ShrinkOfElementwise(attrs),
        ShrinkOfReduce(attrs),
        ShrinkOfExpand(attrs),
        ElementwiseOfDevicePad(attrs),
        ReshapeOfDevicePad(),
    ]


def narrow_messages(top: Operation, attrs: AttrCache | None = None) -> bool:
    """Send only the window of a padded value: `send pad_inv(x, w)` becomes `send x`, and the
    matching `recv` in the destination's module is padded back with zeros (a received value is
    stored, so its Invalid lanes read 0). A send of a splat constant (Invalid is sent as zeros)
    is no message: the receiver makes the constant. `top` holds the device modules of
    specialize-devices. Returns whether any message changed."""
    from xdsl.dialects.builtin import IntegerAttr, ModuleOp

    attrs = attrs or AttrCache()
    modules: dict[int, ModuleOp] = {}
    for op in top.walk():
        attr = op.attributes.get(devidx.DEVICE_ATTR)
        if isinstance(op, ModuleOp) and isinstance(attr, IntegerAttr):
            modules[attr.value.data] = op
    recvs: dict[tuple[int, int, int], devidx.RecvOp] = {}
    for device, module in modules.items():
        for op in module.walk():
            if isinstance(op, devidx.RecvOp):
                recvs[(op.source.value.data, device, op.channel.value.data)] = op
    changed = False
    for device, module in modules.items():
        for send in [op for op in module.walk() if isinstance(op, devidx.SendOp)]:
            key = (device, send.dest.value.data, send.channel.value.data)
            if key not in recvs:
                continue
            constant = attrs.splat(send.value)
            if constant is not None:  # the receiver can make it: no message at all
                recv = recvs.pop(key)
                made = attrs.constant_like(recv.result.type, constant)
                parent = recv.parent_block()
                assert parent is not None
                parent.insert_op_before(made, recv)
                recv.result.replace_all_uses_with(made.result)
                recv.detach()
                recv.erase()
                send.detach()
                send.erase()
                changed = True
                continue
            padded = invalid_pad(send.value)
            if padded is None:
                continue
            x, window = padded
            recv = recvs.pop(key)
            shape = _shape(recv.result)
            send.operands[0] = x
            narrow = devidx.RecvOp(recv.source.value.data, recv.channel.value.data, x.type)
            fill = tg.pad_value_attr(0, x.type.element_type)  # type: ignore[union-attr]
            widened = tg.PadOp(narrow.result, _pad_bounds(window, shape), recv.result.type, fill)
            parent = recv.parent_block()
            assert parent is not None
            parent.insert_ops_before([narrow, widened], recv)
            recv.result.replace_all_uses_with(widened.result)
            recv.detach()
            recv.erase()
            changed = True
    return changed

"""Assignments (`Tensor.assign`, `setitem` into a realized buffer, `Tensor.ones`'s fill) as value
ops: tinygrad writes them as `AFTER(target, STORE(view, value), ...)`, whose value is the target
once the stores are done. Ours has no stores at the multi level, so each store computes the
target's new value (docs/decisions.md, "tinygrad importer"):

| tinygrad | ours |
|---|---|
| STORE(view, x) where view is the whole target (through RESHAPEs) | tg.contiguous of x (a full overwrite) |
| STORE(SHRINK(target, bounds), x) | tg.where(tg.pad(true, bounds), tg.pad(x, bounds), old) + tg.contiguous |
| AFTER(target, effects...) | the value after the last effect |
"""

from __future__ import annotations

from tinygrad.uop.ops import Ops, UOp
from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import SSAValue

from xdsl_multi.builder import tensor
from xdsl_multi.dialects.multi import OnAttr, ShardAttr
from xdsl_multi.frontends.tinygrad import dtypes as tgdtypes
from xdsl_multi.frontends.tinygrad.bounds import evaluate
from xdsl_multi.frontends.tinygrad.context import ImportContext
from xdsl_multi.frontends.tinygrad.errors import UnsupportedGraph
from xdsl_multi.frontends.tinygrad.placement import devices_of


def _type(v: SSAValue) -> TensorType:
    assert isinstance(v.type, TensorType)
    return v.type


def _strip_reshapes(u: UOp) -> UOp:
    while u.op in (Ops.RESHAPE, Ops.DETACH, Ops.AFTER):
        u = u.src[0]
    return u


def _stores(u: UOp) -> list[UOp]:
    """The STOREs among an AFTER's effects, in order (nested AFTERs' own effects first)."""
    found: list[UOp] = []
    for effect in u.src[1:]:
        if effect.op is Ops.STORE:
            found.append(effect)
        elif effect.op is Ops.AFTER:
            found.extend(_stores(effect))
    return found


def _placement(u: UOp) -> OnAttr | ShardAttr:
    """Where the target of an AFTER lives (its device, or its shard axis on a tuple)."""
    devices = devices_of(u.device) if u.device is not None else None
    if devices is None:
        raise UnsupportedGraph(u.op.name, "an assignment into a device-less target")
    if devices.num_devices > 1:
        try:
            axis = u.axis
        except RuntimeError as e:
            raise UnsupportedGraph(u.op.name, str(e)) from e
        if axis is not None:
            return ShardAttr(list(devices.device_names), axis)
    return devices


def after(ctx: ImportContext, u: UOp, where: OnAttr | None) -> SSAValue:
    target = u.src[0]
    stores = _stores(u)
    if not stores:
        return ctx.value(target, where)
    base = _strip_reshapes(target)
    enc = _placement(u)
    devices = OnAttr(list(enc.device_names))
    elt = tgdtypes.element_type(target.dtype, u.op.name)
    current: SSAValue | None = None
    for store in stores:
        view, value = store.src[0], store.src[1]
        if _strip_reshapes(view) is base:
            new = ctx.coerce(ctx.value(value, devices), tensor(list(view.shape), elt, enc))
            if list(view.shape) != list(target.shape):
                new = ctx.b.reshape(new, list(target.shape))
            current = ctx.b.contiguous(new)
            continue
        if current is None:
            current = ctx.value(target, devices)
        current = ctx.b.contiguous(_store_into_view(ctx, u, current, view, value, base, devices))
    assert current is not None
    return current


def _store_into_view(
    ctx: ImportContext,
    u: UOp,
    old: SSAValue,
    view: UOp,
    value: UOp,
    base: UOp,
    where: OnAttr,
) -> SSAValue:
    """`old` with `value` written into `view`, a static SHRINK of the target."""
    shrink = view
    while shrink.op is Ops.RESHAPE:
        shrink = shrink.src[0]
    if shrink.op is not Ops.SHRINK or _strip_reshapes(shrink.src[0]) is not base:
        raise UnsupportedGraph(u.op.name, f"a store into a {shrink.op.name} view of its target")
    if list(shrink.src[0].shape) != list(_type(old).get_shape()):
        raise UnsupportedGraph(u.op.name, "a store into a view of a reshaped target")
    starts = [evaluate(s, 0, u.op.name) for s, _ in shrink.marg]
    lengths = [evaluate(n, 0, u.op.name) for _, n in shrink.marg]
    shape = list(_type(old).get_shape())
    bounds = [(s, size - s - n) for s, n, size in zip(starts, lengths, shape, strict=True)]
    t = _type(old)
    written = ctx.coerce(ctx.value(value, where), tensor(lengths, t.element_type, t.encoding))
    if list(view.shape) != lengths:
        written = ctx.b.reshape(written, lengths)
    inside = ctx.constant(True, tensor(lengths, IntegerType(1), t.encoding))
    mask = ctx.b.pad(inside, bounds, False)
    return ctx.b.where(mask, ctx.b.pad(written, bounds, 0), old)

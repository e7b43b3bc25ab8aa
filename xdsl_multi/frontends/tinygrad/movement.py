"""tinygrad's movement ops and REDUCE as tg ops (SPEC §3).

| tinygrad (0.14.0 argument) | ours |
|---|---|
| RESHAPE(x, shape) | tg.reshape |
| EXPAND(x, prefix): prepends the dims `prefix` | tg.reshape (size-1 dims in front) + tg.expand |
| PERMUTE(x, order) | tg.permute |
| FLIP(x, per-axis bools) | tg.flip of the True axes |
| PAD(x, (offset, new size) per axis), fill 0 | tg.pad [[offset, new - offset - old]] value 0 |
| SHRINK(x, (start, length) per axis), static | tg.shrink [[start, start + length]] |
| SHRINK(x, (d*s, s) on one axis), x on N devices | multi.copy to `#multi.shard` (each device keeps its own slice) + multi.local: `Tensor.shard`'s pattern |
| REDUCE(x, (op, n)): reduces and drops the first n axes | tg.reduce add/mul/max over [0, n) + tg.reshape without them |
"""

from __future__ import annotations

from tinygrad.dtype import dtypes
from tinygrad.uop.ops import Ops, UOp
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from xdsl_multi.dialects import multi
from xdsl_multi.dialects.multi import OnAttr, ShardAttr
from xdsl_multi.frontends.tinygrad.bounds import device_ranges, evaluate
from xdsl_multi.frontends.tinygrad.context import ImportContext
from xdsl_multi.frontends.tinygrad.errors import UnsupportedGraph

REDUCE_KINDS = {Ops.ADD: "add", Ops.MUL: "mul", Ops.MAX: "max"}
"""tinygrad's REDUCE/ALLREDUCE op -> our reduction kind."""


def reduce_kind(u: UOp, op: Ops) -> str:
    """Our reduction for tinygrad's `op` in a REDUCE or ALLREDUCE; UnsupportedGraph otherwise."""
    kind = REDUCE_KINDS.get(op)
    if kind is None:
        raise UnsupportedGraph(u.op.name, f"no reduction {op}")
    return kind


def _type(v: SSAValue) -> TensorType:
    assert isinstance(v.type, TensorType)
    return v.type


def _static(u: UOp, bounds: tuple[int | UOp, ...]) -> list[int]:
    if any(device_ranges(x) for x in bounds):
        raise UnsupportedGraph(u.op.name, "device-dependent bounds outside the shard pattern")
    return [evaluate(x, 0, u.op.name) for x in bounds]


def reshape(ctx: ImportContext, u: UOp, where: OnAttr | None) -> SSAValue:
    return ctx.b.reshape(ctx.value(u.src[0], where), _static(u, u.marg))


def expand(ctx: ImportContext, u: UOp, where: OnAttr | None) -> SSAValue:
    """EXPAND prepends its argument's dims (tinygrad 0.14: `shape = arg + src.shape`)."""
    v = ctx.value(u.src[0], where)
    prefix = _static(u, u.marg)
    shape = list(_type(v).get_shape())
    return ctx.b.expand(ctx.b.reshape(v, [1] * len(prefix) + shape), prefix + shape)


def permute(ctx: ImportContext, u: UOp, where: OnAttr | None) -> SSAValue:
    return ctx.b.permute(ctx.value(u.src[0], where), list(u.marg))


def flip(ctx: ImportContext, u: UOp, where: OnAttr | None) -> SSAValue:
    return ctx.b.flip(ctx.value(u.src[0], where), [i for i, f in enumerate(u.marg) if f])


def pad(ctx: ImportContext, u: UOp, where: OnAttr | None) -> SSAValue:
    v = ctx.value(u.src[0], where)
    offsets = _static(u, tuple(o for o, _ in u.marg))
    sizes = _static(u, tuple(s for _, s in u.marg))
    old = _type(v).get_shape()
    bounds = [(o, s - o - n) for o, s, n in zip(offsets, sizes, old, strict=True)]
    return ctx.b.pad(v, bounds, False if u.dtype == dtypes.bool else 0)


def shrink(ctx: ImportContext, u: UOp, where: OnAttr | None) -> SSAValue:
    v = ctx.value(u.src[0], where)
    starts = tuple(o for o, _ in u.marg)
    lengths = _static(u, tuple(n for _, n in u.marg))
    dependent = [a for a, x in enumerate(starts) if device_ranges(x)]
    if not dependent:
        lo = _static(u, starts)
        if lo == [0] * len(lo) and lengths == list(_type(v).get_shape()):
            return v
        return ctx.b.shrink(v, [(s, s + n) for s, n in zip(lo, lengths, strict=True)])
    return _shrink_to_shard(ctx, u, v, starts, lengths, dependent)


def _shrink_to_shard(
    ctx: ImportContext,
    u: UOp,
    v: SSAValue,
    starts: tuple[int | UOp, ...],
    lengths: list[int],
    dependent: list[int],
) -> SSAValue:
    """SHRINK at [d*s, d*s + s) on one axis of a value on N devices: device d keeps the d-th
    slice of its own buffer, which is `multi.local(multi.copy(v -> #multi.shard))`."""
    enc = _type(v).encoding
    shape = list(_type(v).get_shape())
    if len(dependent) != 1 or not isinstance(enc, OnAttr) or enc.num_devices < 2:
        raise UnsupportedGraph(u.op.name, "device-dependent bounds outside the shard pattern")
    (axis,) = dependent
    n = enc.num_devices
    s = lengths[axis]
    per_device = [evaluate(starts[axis], d, u.op.name) for d in range(n)]
    if per_device != [d * s for d in range(n)] or s * n != shape[axis]:
        raise UnsupportedGraph(
            u.op.name,
            f"device-dependent bounds outside the shard pattern: starts {per_device}, length {s}"
            f" on an axis of {shape[axis]} over {n} devices",
        )
    others = [0 if a == axis else evaluate(x, 0, u.op.name) for a, x in enumerate(starts)]
    full = [(o, o + (shape[a] if a == axis else lengths[a])) for a, o in enumerate(others)]
    if full != [(0, size) for size in shape]:
        v = ctx.b.shrink(v, full)
    source = v
    if isinstance(v.owner, multi.CopyOp):  # a broadcast, then each keeps its slice: a scatter
        source = v.owner.source
    sharded = ctx.b.copy(source, ShardAttr(list(enc.device_names), axis))
    return ctx.b.local(sharded)


def reduce(ctx: ImportContext, u: UOp, where: OnAttr | None) -> SSAValue:
    """REDUCE (op, n): reduce the first n axes and drop them."""
    op, n = u.arg
    kind = reduce_kind(u, op)
    v = ctx.value(u.src[0], where)
    if n == 0:
        return v
    shape = list(_type(v).get_shape())
    return ctx.b.reshape(ctx.b.reduce(kind, v, list(range(n))), shape[n:])

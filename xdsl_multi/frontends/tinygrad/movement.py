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
| SHRINK of that multi.local by another digit of d (`(d % 2) * s`) | the copy to the mesh encoding of both blocks (mesh.py) + multi.local |
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
from xdsl_multi.frontends.tinygrad.mesh import mesh_attr, splits_of

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
    """SHRINK whose starts depend on the device number, of a value on N devices: device d keeps
    its own slice of its buffer, which is `multi.local(multi.copy(v -> #multi.shard))` (mesh.py
    finds the encoding). `Tensor.shard`'s [d*s, d*s + s) is the one-axis case; a SHRINK of such
    a local value (tinygrad's 2-D sharding shrinks one axis after the other) shrinks the local's
    source to the blocks of both."""
    shape = list(_type(v).get_shape())
    source, held = _local_source(v)
    devices = held.device_names if held is not None else _devices_of_copies(u, v)
    logical = list(_type(source).get_shape())
    n = len(devices)
    if isinstance(source.owner, multi.CopyOp):  # a broadcast, then each keeps its slice: a scatter
        source = source.owner.source
    static = [0 if a in dependent else evaluate(x, 0, u.op.name) for a, x in enumerate(starts)]
    cut_axes = [
        a
        for a in range(len(shape))
        if a not in dependent and (static[a], lengths[a]) != (0, shape[a])
    ]
    if cut_axes:
        if held is not None and any(held.dims_of(a) for a in cut_axes):
            raise UnsupportedGraph(
                u.op.name,
                "device-dependent bounds outside the shard pattern: a static shrink of a shard axis",
            )
        kept = set(dependent) | set(held.split_axes if held is not None else ())
        cut = [
            (0, m) if a in kept else (static[a], static[a] + lengths[a])
            for a, m in enumerate(logical)
        ]
        source = ctx.b.shrink(source, cut)
        logical = [hi - lo for lo, hi in cut]
    blocks = []
    for d in range(n):
        block = list(held.block(logical, d)) if held is not None else [(0, m) for m in logical]
        for a in dependent:
            lo = block[a][0] + evaluate(starts[a], d, u.op.name)
            block[a] = (lo, lo + lengths[a])
        blocks.append(block)
    splits = splits_of(logical, blocks, u.op.name)
    return ctx.b.local(ctx.b.copy(source, mesh_attr(devices, logical, splits, u.op.name)))


def _local_source(v: SSAValue) -> tuple[SSAValue, ShardAttr | None]:
    """(x, its encoding) when `v` is `multi.local(x)` of a shard x, else (v, None)."""
    if isinstance(v.owner, multi.LocalOp):
        enc = _type(v.owner.source).encoding
        if isinstance(enc, ShardAttr):
            return v.owner.source, enc
    return v, None


def _devices_of_copies(u: UOp, v: SSAValue) -> tuple[str, ...]:
    """The devices of `v`'s buffers (several: the copies each device cuts its slice from)."""
    enc = _type(v).encoding
    if not isinstance(enc, OnAttr) or enc.num_devices < 2:
        raise UnsupportedGraph(u.op.name, "device-dependent bounds outside the shard pattern")
    return enc.device_names


def reduce(ctx: ImportContext, u: UOp, where: OnAttr | None) -> SSAValue:
    """REDUCE (op, n): reduce the first n axes and drop them."""
    op, n = u.arg
    kind = reduce_kind(u, op)
    v = ctx.value(u.src[0], where)
    if n == 0:
        return v
    shape = list(_type(v).get_shape())
    return ctx.b.reshape(ctx.b.reduce(kind, v, list(range(n))), shape[n:])

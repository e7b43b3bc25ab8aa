"""tinygrad's multi-device ops as `multi` ops (SPEC §2).

| tinygrad 0.14.0 | ours |
|---|---|
| COPY(x, device or device tuple) | multi.copy to `#multi.on<[...]>`; a device-less or host (numpy) x is computed there instead |
| UNSHARD(y, RANGE(n, DEVICE)), one axis | multi.multi (or, after the shard pattern's multi.local, its source) |
| UNSHARD with several axes | UnsupportedGraph (a device mesh: a later issue) |
| MSELECT(x, i) | multi.mselect |
| MSTACK(x0..xn) | multi.mstack |
| ALLREDUCE(x, (op, devices)) | multi.allreduce add/mul/max onto the devices; of a sharded x: `multi.multi(allreduce(multi.local(x)))`, every shard the sum of the local buffers (tinygrad keeps x's shape) |
| CONTIGUOUS(x) | tg.contiguous |
| DETACH, CONTIGUOUS_BACKWARD | nothing (they only matter to gradients) |
"""

from __future__ import annotations

from tinygrad.uop.ops import UOp
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from xdsl_multi.dialects import multi
from xdsl_multi.dialects.multi import OnAttr, ShardAttr
from xdsl_multi.frontends.tinygrad.context import ImportContext
from xdsl_multi.frontends.tinygrad.errors import UnsupportedGraph
from xdsl_multi.frontends.tinygrad.movement import reduce_kind

HOST_DEVICES = ("NPY", "PYTHON")
"""tinygrad's devices for host data (`Tensor(numpy array)`, `Tensor([...])`): their buffers
become @main's arguments placed where they are copied to."""


def devices_of(device: str | tuple[str, ...]) -> OnAttr:
    return OnAttr([device] if isinstance(device, str) else list(device))


def is_placeless(u: UOp) -> bool:
    """A value with no device of its own (constants, aranges, masks) or on the host."""
    return u.device is None or (isinstance(u.device, str) and u.device.startswith(HOST_DEVICES))


def copy(ctx: ImportContext, u: UOp, where: OnAttr | None) -> SSAValue:
    dest = devices_of(u.arg)
    src = u.src[0]
    if is_placeless(src):
        return ctx.value(src, dest)
    v = ctx.value(src, where)
    assert isinstance(v.type, TensorType)
    if v.type.encoding == dest:
        return v
    return ctx.b.copy(v, dest)


def unshard(ctx: ImportContext, u: UOp, where: OnAttr | None) -> SSAValue:
    axes = tuple(u.arg)
    if len(axes) != 1:
        raise UnsupportedGraph(
            u.op.name, f"sharding on {len(axes)} axes {axes} needs a device mesh"
        )
    (axis,) = axes
    y = ctx.value(u.src[0], where)
    owner = y.owner
    if isinstance(owner, multi.LocalOp):
        enc = owner.source.type.encoding  # type: ignore[attr-defined]
        if isinstance(enc, ShardAttr) and enc.axis_index == axis:
            return owner.source
    return ctx.b.multi(y, axis)


def mselect(ctx: ImportContext, u: UOp, where: OnAttr | None) -> SSAValue:
    return ctx.b.mselect(ctx.value(u.src[0], where), int(u.arg))


def mstack(ctx: ImportContext, u: UOp, where: OnAttr | None) -> SSAValue:
    return ctx.b.mstack(*(ctx.value(s, where) for s in u.src))


def allreduce(ctx: ImportContext, u: UOp, where: OnAttr | None) -> SSAValue:
    op, device = u.arg
    kind = reduce_kind(u, op)
    v = ctx.value(u.src[0], where)
    devices = list(devices_of(device).device_names)
    enc = v.type.encoding if isinstance(v.type, TensorType) else None
    if isinstance(enc, ShardAttr):
        # tinygrad keeps the shape: every shard becomes the sum of the local buffers
        summed = ctx.b.allreduce(kind, ctx.b.local(v), devices)
        return ctx.b.multi(summed, enc.axis_index)
    return ctx.b.allreduce(kind, v, devices)


def contiguous(ctx: ImportContext, u: UOp, where: OnAttr | None) -> SSAValue:
    return ctx.b.contiguous(ctx.value(u.src[0], where))


def passthrough(ctx: ImportContext, u: UOp, where: OnAttr | None) -> SSAValue:
    return ctx.value(u.src[0], where)

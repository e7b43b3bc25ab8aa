"""tinygrad's multi-device ops as `multi` ops (SPEC §2).

| tinygrad 0.14.0 | ours |
|---|---|
| COPY(x, device or device tuple) | multi.copy to `#multi.on<[...]>`; a device-less or host (numpy) x is computed there instead |
| UNSHARD(y, RANGE(n, DEVICE)), one axis | multi.multi (or, after the shard pattern's multi.local, its source) |
| UNSHARD(y, r0, .., rk), several axes, each r_i a digit of the device number (`d // 2`, `d % 2`) | multi.multi onto `#multi.shard<devs, mesh = [..], axes = [..]>` (mesh.py; or the local's source) |
| UNSHARD whose parts are not digits of one device number | UnsupportedGraph |
| MSELECT(x, i) | multi.mselect (tinygrad selects from per-device values: a mesh value's UNSHARD source, as in its copy_multi) |
| MSTACK(x0..xn) | multi.mstack |
| ALLREDUCE(x, (op, devices)) | multi.allreduce add/mul/max onto the devices; of a sharded x (one axis or a mesh): `multi.multi(allreduce(multi.local(x)))` with x's encoding, every shard the sum of the local buffers (tinygrad keeps x's shape) |
| CONTIGUOUS(x) | tg.contiguous |
| DETACH, CONTIGUOUS_BACKWARD | nothing (they only matter to gradients) |
"""

from __future__ import annotations

from tinygrad.uop.ops import UOp
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from xdsl_multi.dialects import multi
from xdsl_multi.dialects.multi import OnAttr, ShardAttr
from xdsl_multi.frontends.tinygrad.bounds import device_count, evaluate, is_device_range
from xdsl_multi.frontends.tinygrad.context import ImportContext
from xdsl_multi.frontends.tinygrad.errors import UnsupportedGraph
from xdsl_multi.frontends.tinygrad.mesh import Split, mesh_attr
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
    """UNSHARD(y, r0, .., rk) with arg the sorted axes: device d's buffer of y is part r_i(d) of
    axis i (mesh.py reads the r_i as mesh dims). Of the shard pattern's `multi.local(x)` with
    x's encoding, x itself (so `Tensor.shard` is one scatter)."""
    axes = tuple(u.arg)
    y = ctx.value(u.src[0], where)
    enc = y.type.encoding if isinstance(y.type, TensorType) else None
    if not isinstance(enc, OnAttr):
        raise UnsupportedGraph(u.op.name, f"the sharded value is not on a device tuple: {enc}")
    ranges = u.src[1:]
    n = enc.num_devices
    device_ranges = {r for x in ranges for r in x.toposort() if is_device_range(r)}
    if len(device_ranges) != 1 or device_count(next(iter(device_ranges))) != n:
        raise UnsupportedGraph(
            u.op.name,
            f"sharding on {len(axes)} axes {axes} needs a device mesh over one device number"
            f" of {n} devices; the parts are numbered by {len(device_ranges)} device ranges",
        )
    splits = [
        Split(axis, int(r.vmax) + 1, tuple(evaluate(r, d, u.op.name) for d in range(n)))
        for axis, r in zip(axes, ranges, strict=True)
    ]
    shape = [int(s) for s in u.shape]
    sharded = mesh_attr(enc.device_names, shape, splits, u.op.name)
    owner = y.owner
    if isinstance(owner, multi.LocalOp) and owner.source.type.encoding == sharded:  # type: ignore[attr-defined]
        return owner.source
    return _multi(ctx, y, sharded, shape)


def _multi(ctx: ImportContext, y: SSAValue, like: ShardAttr, shape: list[int]) -> SSAValue:
    """`multi.multi` of the per-device buffers `y` as the logical `shape` encoded as `like`."""
    if not like.is_mesh:
        return ctx.b.multi(y, like.axis_index, shape[like.axis_index])
    return ctx.b.multi(y, like.mesh_axes, shape, mesh=like.mesh_shape)


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
        return _multi(ctx, summed, enc, list(v.type.get_shape()))  # type: ignore[attr-defined]
    return ctx.b.allreduce(kind, v, devices)


def contiguous(ctx: ImportContext, u: UOp, where: OnAttr | None) -> SSAValue:
    return ctx.b.contiguous(ctx.value(u.src[0], where))


def passthrough(ctx: ImportContext, u: UOp, where: OnAttr | None) -> SSAValue:
    return ctx.value(u.src[0], where)

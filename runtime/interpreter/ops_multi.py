"""Handlers of `multi` (multi level only): the ops that move data between placements (SPEC §2).

A `#multi.on` value is an `OnValue` (one buffer per device of its encoding, in order); a
`#multi.shard` value is its logical tensor. Copies and allreduces are materializations: what
they deliver is stored (Invalid -> 0).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import reduce

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Operation

from xdsl_multi.dialects import multi
from xdsl_multi.dialects.multi import CopyKind, OnAttr, ShardAttr, placement_of
from xdsl_multi.runtime.interpreter import numerics as nx
from xdsl_multi.runtime.interpreter.machine import Handler, Machine
from xdsl_multi.runtime.values import Lanes, OnValue, Value, op_error, store


def _on(op: Operation, v: Value) -> OnValue:
    if not isinstance(v, OnValue):
        raise op_error(op, f"expected a value placed with #multi.on, found {type(v).__name__}")
    return v


def _shard_of(op: Operation, t: Attribute) -> tuple[ShardAttr, tuple[int, ...]]:
    """The shard encoding of `t` and its logical shape."""
    enc = placement_of(t)
    if not isinstance(enc, ShardAttr) or not isinstance(t, TensorType):
        raise op_error(op, f"expected a #multi.shard type, found {t}")
    return enc, tuple(t.get_shape())


def _slices(block: tuple[tuple[int, int], ...]) -> tuple[slice, ...]:
    return tuple(slice(lo, hi) for lo, hi in block)


def _sizes(block: tuple[tuple[int, int], ...]) -> tuple[slice, ...]:
    """The leading part of a local buffer that holds `block` (the rest is padding)."""
    return tuple(slice(0, hi - lo) for lo, hi in block)


def assemble(
    shard: ShardAttr, shape: tuple[int, ...], piece: Callable[[int, tuple[slice, ...]], Lanes]
) -> Lanes:
    """The logical value of `shape` from each device's block (SPEC §1.1 bounds): `piece(k,
    slices)` is the block of the device at position k, where `slices` are its rows of the
    logical value. Where mesh dims replicate (`none`), the first replica's block is taken."""
    blocks = [(k, shard.block(shape, k)) for k in range(shard.num_devices)]
    parts = [(_slices(b), piece(k, _slices(b))) for k, b in blocks if shard.is_first_replica(k)]
    dtype = parts[0][1].data.dtype
    data = np.zeros(shape, dtype)
    valid = np.ones(shape, bool)
    for where, lanes in parts:
        data[where] = lanes.data
        valid[where] = lanes.mask()
    return Lanes.of(data, valid)


def multi_op(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    """MULTI: device k's buffer contributes its leading block (the rest is padding)."""
    src = _on(op, args[0])
    shard, shape = _shard_of(op, op.results[0].type)

    def piece(k: int, where: tuple[slice, ...]) -> Lanes:
        lead = tuple(slice(0, s.stop - s.start) for s in where)
        return src.buffers[k].map(lambda a: a[lead])

    return [assemble(shard, shape, piece)]


def local(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    """The inverse of MULTI: device k's buffer is its block of the logical value, then Invalid
    lanes up to the local (ceil) shape."""
    value = args[0]
    if not isinstance(value, Lanes):
        raise op_error(op, f"expected a #multi.shard value, found {type(value).__name__}")
    shard, shape = _shard_of(op, op.operands[0].type)
    local_shape = shard.local_shape(shape)
    buffers = []
    for k in range(shard.num_devices):
        block = shard.block(shape, k)
        data = np.zeros(local_shape, value.data.dtype)
        valid = np.zeros(local_shape, bool)
        data[_sizes(block)] = value.data[_slices(block)]
        valid[_sizes(block)] = value.mask()[_slices(block)]
        buffers.append(Lanes.of(data, valid))
    return [OnValue(tuple(buffers))]


def mselect(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    assert isinstance(op, multi.MselectOp)
    return [OnValue((_on(op, args[0]).buffers[op.index.value.data],))]


def mstack(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    return [OnValue(tuple(_on(op, a).buffers[0] for a in args))]


def logical_source(op: Operation, v: Value) -> Lanes:
    """The source's logical value (SPEC §2): a shard value's full tensor, a one-device value's
    buffer, a many-device value's FIRST buffer."""
    if isinstance(v, OnValue):
        return v.buffers[0]
    if isinstance(v, Lanes):
        return v
    raise op_error(op, f"expected a tensor, found {v!r}")


def copy(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    assert isinstance(op, multi.CopyOp)
    src_t, dst_t = op.source.type, op.result.type
    dst = placement_of(dst_t)
    assert dst is not None
    kind = op.kind
    if kind is CopyKind.PERMUTE:
        return [OnValue(tuple(store(b) for b in _on(op, args[0]).buffers))]
    if kind is CopyKind.KEEP_SLICE:
        shard, shape = _shard_of(op, dst_t)
        buffers = _on(op, args[0]).buffers
        return [assemble(shard, shape, lambda k, where: store(buffers[k]).map(lambda a: a[where]))]
    value = store(logical_source(op, args[0]))
    if kind is CopyKind.SCATTER:
        return [value]
    assert isinstance(dst, OnAttr), (kind, src_t, dst_t)
    return [OnValue((value,) * dst.num_devices)]


def allreduce(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    """Every result device gets the elementwise reduction of all (stored) source buffers."""
    assert isinstance(op, multi.AllreduceOp)
    kind = op.reduce_kind
    buffers = [store(b).data for b in _on(op, args[0]).buffers]
    with np.errstate(all="ignore"):
        total = reduce(lambda a, b: nx.combine(kind, a, b), buffers)
    dst = placement_of(op.result.type)
    assert isinstance(dst, OnAttr)
    return [OnValue((Lanes(total),) * dst.num_devices)]


MULTI_HANDLERS: dict[type[Operation], Handler] = {
    multi.MultiOp: multi_op,
    multi.LocalOp: local,
    multi.MselectOp: mselect,
    multi.MstackOp: mstack,
    multi.CopyOp: copy,
    multi.AllreduceOp: allreduce,
}

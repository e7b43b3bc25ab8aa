"""Handlers of `multi` (multi level only): the ops that move data between placements (SPEC §2).

A `#multi.on` value is an `OnValue` (one buffer per device of its encoding, in order); a
`#multi.shard` value is its logical tensor. Copies and allreduces are materializations: what
they deliver is stored (Invalid -> 0).
"""

from __future__ import annotations

from functools import reduce

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Operation

from xdsl_multi.dialects import multi
from xdsl_multi.dialects.multi import CopyKind, OnAttr, ShardAttr, placement_of, shard_bounds
from xdsl_multi.runtime.interpreter import numerics as nx
from xdsl_multi.runtime.interpreter.machine import Handler, Machine
from xdsl_multi.runtime.values import Lanes, OnValue, Value, op_error, store


def _on(op: Operation, v: Value) -> OnValue:
    if not isinstance(v, OnValue):
        raise op_error(op, f"expected a value placed with #multi.on, found {type(v).__name__}")
    return v


def _shard_of(op: Operation, t: Attribute) -> tuple[ShardAttr, int]:
    """The shard encoding of `t` and the logical length of its shard axis."""
    enc = placement_of(t)
    if not isinstance(enc, ShardAttr) or not isinstance(t, TensorType):
        raise op_error(op, f"expected a #multi.shard type, found {t}")
    return enc, t.get_shape()[enc.axis_index]


def concat_lanes(parts: list[Lanes], axis: int) -> Lanes:
    data = np.concatenate([p.data for p in parts], axis=axis)
    if all(p.valid is None for p in parts):
        return Lanes(data)
    return Lanes.of(data, np.concatenate([p.mask() for p in parts], axis=axis))


def take_rows(x: Lanes, axis: int, lo: int, hi: int) -> Lanes:
    index = (slice(None),) * axis + (slice(lo, hi),)
    return x.map(lambda a: a[index])


def multi_op(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    """MULTI: device k's buffer contributes its first hi_k - lo_k rows (the rest is padding)."""
    src = _on(op, args[0])
    shard, length = _shard_of(op, op.results[0].type)
    n, axis = shard.num_devices, shard.axis_index
    pieces = []
    for k, buf in enumerate(src.buffers):
        lo, hi = shard_bounds(length, n, k)
        pieces.append(take_rows(buf, axis, 0, hi - lo))
    return [concat_lanes(pieces, axis)]


def local(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    """The inverse of MULTI: device k's buffer is its rows [lo_k, hi_k) of the logical value,
    then Invalid rows up to the local length s."""
    value = args[0]
    if not isinstance(value, Lanes):
        raise op_error(op, f"expected a #multi.shard value, found {type(value).__name__}")
    shard, length = _shard_of(op, op.operands[0].type)
    n, axis = shard.num_devices, shard.axis_index
    s = multi.local_length(length, n)
    buffers = []
    for k in range(n):
        lo, hi = shard_bounds(length, n, k)
        own = take_rows(value, axis, lo, hi)
        pad_shape = list(value.shape)
        pad_shape[axis] = s - (hi - lo)
        padding = Lanes.of(
            np.zeros(pad_shape, value.data.dtype), np.zeros(pad_shape, dtype=bool)
        )
        buffers.append(concat_lanes([own, padding], axis))
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
        shard, length = _shard_of(op, dst_t)
        n, axis = shard.num_devices, shard.axis_index
        own = [
            take_rows(store(buf), axis, *shard_bounds(length, n, k))
            for k, buf in enumerate(_on(op, args[0]).buffers)
        ]
        return [concat_lanes(own, axis)]
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

"""Handlers of `devidx` (SPMD and device levels, SPEC §4).

`device_num` is this instance's d; `invalid` is all-Invalid; `index(stack, k)` is entry k, or
all-Invalid when k is outside [0, n). The communicating ops are generators: they yield a request
to the scheduler (interpreter.py) and resume with its answer. What they deliver is stored
(Invalid -> 0).
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import MemRefType, TensorType
from xdsl.ir import Operation

from xdsl_multi.dialects import devidx
from xdsl_multi.runtime.interpreter.machine import (
    CollectiveRequest,
    ControlHandler,
    Env,
    FetchRequest,
    Handler,
    Machine,
    RecvRequest,
    Run,
    SendRequest,
)
from xdsl_multi.runtime.interpreter.ops_memref import buffer_of
from xdsl_multi.runtime.values import Buffer, Lanes, Value, dtype_of, op_error, store


def _lanes(op: Operation, v: Value) -> Lanes:
    if not isinstance(v, Lanes):
        raise op_error(op, f"expected a tensor operand, found {v!r}")
    return v


def _index(op: Operation, v: Value) -> int:
    if not isinstance(v, np.integer):
        raise op_error(op, f"expected an index operand, found {v!r}")
    return int(v)


def all_invalid(t: TensorType) -> Lanes:
    shape = tuple(t.get_shape())
    return Lanes(np.zeros(shape, dtype_of(t)), np.zeros(shape, bool))


def device_num(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    if m.device is None:
        raise op_error(op, "the device number exists only when one program runs per device")
    return [np.int64(m.device)]


def invalid(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    t = op.results[0].type
    assert isinstance(t, TensorType)
    return [all_invalid(t)]


def stack(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    parts = [_lanes(op, a) for a in args]
    data = np.stack([p.data for p in parts])
    if all(p.valid is None for p in parts):
        return [Lanes(data)]
    return [Lanes.of(data, np.stack([p.mask() for p in parts]))]


def index(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    x, k = _lanes(op, args[0]), _index(op, args[1])
    if 0 <= k < x.shape[0]:
        return [x.map(lambda a: a[k])]
    t = op.results[0].type
    assert isinstance(t, TensorType)
    return [all_invalid(t)]


def lookup(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    assert isinstance(op, devidx.LookupOp)
    i, table = _index(op, args[0]), op.values
    if not 0 <= i < len(table):
        raise op_error(op, f"index {i} is outside the table of {len(table)} entries")
    return [np.int64(table[i])]


def fetch(m: Machine, op: Operation, args: list[Value], env: Env) -> Run:
    """Offer this device's stored instance; receive device `src`'s (at the kernel level, in
    an SPMD host schedule: a fresh buffer holding it)."""
    value = yield FetchRequest(op, _message(op, args[0]), _index(op, args[1]))
    return [_delivered(op, value)]


def allreduce(m: Machine, op: Operation, args: list[Value], env: Env) -> Run:
    """Offer this device's stored instance; receive the reduction of every device's."""
    value = yield CollectiveRequest(op, _message(op, args[0]))
    return [_delivered(op, value)]


def allgather(m: Machine, op: Operation, args: list[Value], env: Env) -> Run:
    """Offer this device's stored instance at its position; receive every device's, stacked."""
    value = yield CollectiveRequest(op, _message(op, args[0]), _index(op, args[1]))
    return [_delivered(op, value)]


def positioned(m: Machine, op: Operation, args: list[Value], env: Env) -> Run:
    """gather, scatter, alltoall: offer this device's stored instance at its position (and an
    alltoall's `from` position); receive this device's part (schedulers.py
    `_collective_result`)."""
    source = _index(op, args[2]) if len(args) > 2 else 0
    value = yield CollectiveRequest(op, _message(op, args[0]), _index(op, args[1]), source)
    return [_delivered(op, value)]


def broadcast(m: Machine, op: Operation, args: list[Value], env: Env) -> Run:
    """Offer this device's stored instance; receive the root's."""
    value = yield CollectiveRequest(op, _message(op, args[0]))
    return [_delivered(op, value)]


def _delivered(op: Operation, value: Lanes) -> Value:
    if isinstance(op.results[0].type, MemRefType):
        return Buffer(np.array(value.data), "recv")
    return value


def _message(op: Operation, v: Value) -> Lanes:
    """What a send delivers: the stored tensor, or a copy of the buffer's contents."""
    if isinstance(v, Buffer):
        return Lanes(buffer_of(op, v).data.copy())
    return store(_lanes(op, v))


def send(m: Machine, op: Operation, args: list[Value], env: Env) -> Run:
    assert isinstance(op, devidx.SendOp)
    yield SendRequest(op, op.dest.value.data, op.channel.value.data, _message(op, args[0]))
    return []


def recv(m: Machine, op: Operation, args: list[Value], env: Env) -> Run:
    """A tensor, or at the kernel level a fresh buffer holding the message."""
    assert isinstance(op, devidx.RecvOp)
    value = yield RecvRequest(op, op.source.value.data, op.channel.value.data)
    if isinstance(op.result.type, MemRefType):
        return [Buffer(np.array(value.data), "recv")]
    return [value]


DEVIDX_HANDLERS: dict[type[Operation], Handler] = {
    devidx.DeviceNumOp: device_num,
    devidx.InvalidOp: invalid,
    devidx.StackOp: stack,
    devidx.IndexOp: index,
    devidx.LookupOp: lookup,
}

DEVIDX_CONTROL: dict[type[Operation], ControlHandler] = {
    devidx.FetchOp: fetch,
    devidx.AllreduceOp: allreduce,
    devidx.AllgatherOp: allgather,
    devidx.BroadcastOp: broadcast,
    devidx.GatherOp: positioned,
    devidx.ScatterOp: positioned,
    devidx.AlltoallOp: positioned,
    devidx.SendOp: send,
    devidx.RecvOp: recv,
}

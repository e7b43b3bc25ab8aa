"""Running several program instances together (SPEC §6): the SPMD lockstep and the device-level
message passing. Each instance is a `Run` generator (machine.py) that yields when it needs
another device.

- `run_lockstep`: one SPMD program on N devices. Every instance runs to its next
  `devidx.fetch` or `devidx.allreduce`; when all are there (the same op), instance d
  receives instance src_d's stored value (fetch), or the reduction of every instance's stored
  value in device order (allreduce).
- `run_message_passing`: one program per device. `devidx.send` delivers into a mailbox keyed
  by (source, destination, channel) and continues; `devidx.recv` waits until a message is
  there. When every unfinished device waits on a receive that nobody will satisfy, the run
  is a deadlock; messages never received are an error too.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import MemRefType, TensorType
from xdsl.ir import Operation

from xdsl_multi.dialects import devidx
from xdsl_multi.dialects.multi import ReduceKind
from xdsl_multi.runtime.interpreter.machine import (
    CollectiveRequest,
    FetchRequest,
    InterpStats,
    RecvRequest,
    Request,
    Run,
    SendRequest,
)
from xdsl_multi.runtime.values import InterpreterError, Lanes, Value, dtype_of, op_error, op_label


@dataclass
class _Instance:
    """One device's run and where it stands."""

    run: Run
    request: Request | None = None
    results: list[Value] | None = None

    def resume(self, answer: object) -> None:
        try:
            self.request = self.run.send(answer)
        except StopIteration as stop:
            self.request = None
            self.results = stop.value

    @property
    def done(self) -> bool:
        return self.results is not None


def _devices_text(ds: Sequence[int]) -> str:
    return ("device " if len(ds) == 1 else "devices ") + ", ".join(str(d) for d in ds)


def run_lockstep(runs: Sequence[Run], stats: InterpStats | None) -> list[list[Value]]:
    """Run one SPMD program's instances (index = device number) to the end."""
    n = len(runs)
    inst = [_Instance(r) for r in runs]
    for i in inst:
        i.resume(None)
    while True:
        done = [d for d, i in enumerate(inst) if i.done]
        if len(done) == n:
            return [i.results for i in inst]  # type: ignore[misc]
        waiting = [d for d, i in enumerate(inst) if not i.done]
        first = inst[waiting[0]].request
        assert first is not None
        if done:
            raise op_error(
                first.op,
                f"{_devices_text(waiting)} wait here while {_devices_text(done)} returned from "
                "the function: the devices took different paths",
            )
        for d in waiting:
            req = inst[d].request
            if not isinstance(req, FetchRequest | CollectiveRequest):
                assert req is not None
                raise op_error(
                    req.op, "send/recv only run at the device level (one module per device)"
                )
            if req.op is not first.op:
                raise op_error(
                    first.op,
                    f"device {waiting[0]} is at this fetch but device {d} is at "
                    f"{op_label(req.op)}: the devices took different paths",
                )
        if isinstance(first, CollectiveRequest):
            collective: list[CollectiveRequest] = [i.request for i in inst]  # type: ignore[misc]
            parts = _collective_result(first.op, collective, stats)
            for i, part in zip(inst, parts, strict=True):
                i.resume(part)
            continue
        requests: list[FetchRequest] = [i.request for i in inst]  # type: ignore[misc]
        answers = []
        for d, req in enumerate(requests):
            if not 0 <= req.src < n:
                raise op_error(
                    req.op, f"device {d} fetches from device {req.src}, outside [0, {n})"
                )
            value = requests[req.src].value
            if stats is not None and req.src != d:
                stats.record_message(req.src, d, value.data.size)
            answers.append(value)
        for i, value in zip(inst, answers, strict=True):
            i.resume(value)


def combine_arrays(kind: ReduceKind, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a <kind> b elementwise, as the SPMD form's combine ops (spmd_builder.combine_op): or/and/or
    on i1, addf/mulf/maximumf on floats (NaN propagates), wrapping integer add/mul, signed max."""
    if a.dtype == np.bool_:
        return (np.logical_and if kind == ReduceKind.MUL else np.logical_or)(a, b)
    with np.errstate(all="ignore"):
        if kind == ReduceKind.ADD:
            return np.add(a, b)
        if kind == ReduceKind.MUL:
            return np.multiply(a, b)
        return np.maximum(a, b)


def reduce_in_order(
    op: Operation, values: Sequence[Lanes], stats: InterpStats | None
) -> Lanes:
    """`devidx.allreduce`: ((v0 <kind> v1) <kind> v2) ... of the stored instances (with
    `members`: of the members' instances, in the table's order)."""
    assert isinstance(op, devidx.AllreduceOp)
    n = len(values)
    members = op.member_devices
    order = list(members) if members is not None else list(range(n))
    if max(order) >= n:
        raise op_error(op, f"has member device {max(order)}, outside [0, {n})")
    total = values[order[0]].data
    for m in order[1:]:
        total = combine_arrays(op.reduce_kind, total, values[m].data)
    if stats is not None:
        for src in order:
            for dest in order:
                if src != dest:
                    stats.record_message(src, dest, values[src].data.size)
    return Lanes(np.asarray(total, values[0].data.dtype))


def rows_from_owners(split: tuple[int, ...], k: int) -> list[tuple[int, int, int]]:
    """`devidx.alltoall ... rows S -> T of L`: what the receiver at `at` position k gets, as
    (`from` position i, lo, hi): the logical rows [lo, hi) it shares with the block of i
    (i owns [i*S, i*S + S), k gets [k*T, k*T + T), both cut at L). O(T/S + 1), not O(n)."""
    s, t, length = split
    lo_k, hi_k = k * t, min(k * t + t, length)
    if lo_k >= hi_k:
        return []
    out = []
    for i in range(lo_k // s, (hi_k - 1) // s + 1):
        lo, hi = max(lo_k, i * s), min(hi_k, i * s + s)
        if lo < hi:
            out.append((i, lo, hi))
    return out


def _rows_alltoall(
    op: devidx.AlltoallOp, requests: Sequence[CollectiveRequest], stats: InterpStats | None
) -> list[Lanes]:
    """Each device's T rows of the L-row value that the devices' S-row blocks make up."""
    split = op.row_split
    assert split is not None
    s, t, _ = split
    n = len(requests)
    sources, positions = [r.source for r in requests], [r.position for r in requests]
    for name, table in (("from", sources), ("at", positions)):
        if sorted(table) != list(range(n)):
            raise op_error(
                op, f"the devices' {name} positions {table} are not a permutation of [0, {n})"
            )
    owner = {i: e for e, i in enumerate(sources)}
    first = requests[0].value.data
    out = [np.zeros((t, *first.shape[1:]), first.dtype) for _ in range(n)]
    for d, k in enumerate(positions):
        for i, lo, hi in rows_from_owners(split, k):
            e = owner[i]
            out[d][lo - k * t : hi - k * t] = requests[e].value.data[lo - i * s : hi - i * s]
            if stats is not None and e != d:
                stats.record_message(e, d, out[d][lo - k * t : hi - k * t].size)
    return [Lanes(o) for o in out]


def _collective_result(
    op: Operation, requests: Sequence[CollectiveRequest], stats: InterpStats | None
) -> list[Lanes]:
    """What each device gets from one collective op, every device's request in hand."""
    values = [r.value for r in requests]
    n = len(values)
    if isinstance(op, devidx.AllreduceOp) and op.groups is not None:  # within mesh groups
        groups = [op.group_of(d, n) for d in range(n)]
        if any(not 0 <= j < n for g in groups for j in g):
            raise op_error(op, f"has groups over more devices than the {n} of the program")
        if stats is not None:
            for d, g in enumerate(groups):
                for j in g:
                    if j != d:
                        stats.record_message(j, d, values[j].data.size)
        return [reduce_in_order(op, [values[j] for j in g], None) for g in groups]
    if isinstance(op, devidx.AllreduceOp):
        total = reduce_in_order(op, values, stats)
        members = op.member_devices
        if members is None:
            return [total] * n
        zeros = Lanes(np.zeros_like(total.data))  # a non-member's value is not read
        return [total if d in members else zeros for d in range(n)]
    if isinstance(op, devidx.BroadcastOp | devidx.GatherOp | devidx.ScatterOp):
        root = op.root.value.data
        if not 0 <= root < n:
            raise op_error(op, f"has root device {root}, outside [0, {n})")
    if isinstance(op, devidx.AlltoallOp) and op.row_split is not None:
        return _rows_alltoall(op, requests, stats)
    if isinstance(op, devidx.BroadcastOp):
        if stats is not None:
            for dest in range(n):
                if dest != root:
                    stats.record_message(root, dest, values[root].data.size)
        return [values[root]] * n
    stacked_t = op.operands[0].type if isinstance(op, devidx.ScatterOp | devidx.AlltoallOp) else (
        op.results[0].type
    )
    assert isinstance(stacked_t, TensorType | MemRefType)
    positions = [r.position for r in requests]
    if stacked_t.get_shape()[0] != n or sorted(positions) != list(range(n)):
        raise op_error(
            op,
            f"the devices' positions {positions} are not a permutation of the "
            f"{stacked_t.get_shape()[0]} entries of {stacked_t} ({n} devices)",
        )
    if isinstance(op, devidx.ScatterOp):
        whole = values[root].data
        if stats is not None:
            for dest in range(n):
                if dest != root:
                    stats.record_message(root, dest, whole[positions[dest]].size)
        return [Lanes(np.array(whole[positions[d]])) for d in range(n)]
    if isinstance(op, devidx.AlltoallOp):
        sources = positions  # (with `from %i`: the senders' own table)
        if op.source is not None:
            sources = [r.source for r in requests]
            if sorted(sources) != list(range(n)):
                raise op_error(
                    op, f"the devices' from positions {sources} are not a permutation of [0, {n})"
                )
        out = []
        for d in range(n):  # entry i of d's result: entry positions[d] of sender i's value
            got = np.empty_like(values[d].data)
            for e in range(n):
                got[sources[e]] = values[e].data[positions[d]]
                if stats is not None and e != d:
                    stats.record_message(e, d, got[sources[e]].size)
            out.append(Lanes(got))
        return out
    assert isinstance(op, devidx.AllgatherOp | devidx.GatherOp)
    stacked = np.empty((n, *values[0].data.shape), values[0].data.dtype)
    for d, (k, v) in enumerate(zip(positions, values, strict=True)):
        stacked[k] = v.data
        if stats is not None:
            for dest in range(n) if isinstance(op, devidx.AllgatherOp) else [root]:
                if dest != d:
                    stats.record_message(d, dest, v.data.size)
    if isinstance(op, devidx.AllgatherOp):
        return [Lanes(stacked)] * n
    zeros = Lanes(np.zeros_like(stacked))
    return [Lanes(stacked) if d == root else zeros for d in range(n)]


def _check_message(req: RecvRequest, d: int, value: Lanes) -> None:
    t = req.op.results[0].type
    assert isinstance(t, TensorType | MemRefType)
    if value.data.shape != tuple(t.get_shape()) or value.data.dtype != dtype_of(t):
        raise op_error(
            req.op,
            f"device {d} receives {value.data.dtype} {value.data.shape} from device "
            f"{req.source} channel {req.channel}, but expects {t}",
        )


def run_message_passing(runs: Sequence[Run], stats: InterpStats | None) -> list[list[Value]]:
    """Run one program per device (index = device number) with send/recv between them."""
    n = len(runs)
    inst = [_Instance(r) for r in runs]
    mailbox: dict[tuple[int, int, int], deque[tuple[SendRequest, Lanes]]] = {}
    for i in inst:
        i.resume(None)
    while True:
        progress = False
        for d, i in enumerate(inst):
            while not i.done:
                req = i.request
                if isinstance(req, SendRequest):
                    if not 0 <= req.dest < n:
                        raise op_error(
                            req.op, f"device {d} sends to device {req.dest}, outside [0, {n})"
                        )
                    mailbox.setdefault((d, req.dest, req.channel), deque()).append((req, req.value))
                    if stats is not None and req.dest != d:
                        stats.record_message(d, req.dest, req.value.data.size)
                    i.resume(None)
                elif isinstance(req, RecvRequest):
                    if not 0 <= req.source < n:
                        raise op_error(
                            req.op,
                            f"device {d} receives from device {req.source}, outside [0, {n})",
                        )
                    queue = mailbox.get((req.source, d, req.channel))
                    if not queue:
                        break
                    _, value = queue.popleft()
                    _check_message(req, d, value)
                    i.resume(value)
                else:
                    assert req is not None
                    raise op_error(
                        req.op, "fetch needs the SPMD level; a device module uses send/recv"
                    )
                progress = True
        if all(i.done for i in inst):
            break
        if not progress:
            waits = [
                f"device {d} at {op_label(i.request.op)} waits for device "  # type: ignore[union-attr]
                f"{i.request.source} channel {i.request.channel}"  # type: ignore[union-attr]
                for d, i in enumerate(inst)
                if not i.done
            ]
            raise InterpreterError("deadlock: " + "; ".join(waits))
    left = [
        f"device {src} -> device {dst} channel {ch}: {len(q)} message(s) from {op_label(q[0][0].op)}"
        for (src, dst, ch), q in sorted(mailbox.items())
        if q
    ]
    if left:
        raise InterpreterError("sends never received: " + "; ".join(left))
    return [i.results for i in inst]  # type: ignore[misc]

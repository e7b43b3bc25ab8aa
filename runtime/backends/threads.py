"""The `threads` backend: the devices run on at most one thread per core, in this process.

The N devices are split into T = min(N, cores) groups of consecutive devices. Group 0 runs on
the calling thread and every other group on a worker thread that lives as long as the program
(a steady-state run starts no thread, and hands work to T - 1 threads: a hand-over between
cores costs tens of microseconds here). When the kernels are big (PIN_MIN_BYTES), each group's
thread is pinned to its own core (BENCH.md: unpinned threads sometimes share a core); the
calling thread only while it runs group 0, then it gets its affinity back. Kernels are called through ctypes, which releases the GIL, so groups
compute in parallel.

A thread runs its devices' schedules in turns (`DeviceRunner.advance`): each device runs until
it ends or reaches a receive whose message has not arrived; when every unfinished device of the
group waits, the thread sleeps until a message for one of them arrives. So with more devices
than cores nothing is oversubscribed, and ring neighbours in one group pass messages without a
thread switch.

A send hands the array itself to the receiver's mailbox (no copy): the schedule's copy
decisions (schedule.py `decide_copies`) make sure that nobody writes a handed-over buffer
until the run ends, and the memory plan keeps it out of reuse until then. A receive fails
after waiting `recv_timeout` seconds, naming the sender and channel.

A collective (`devidx.allreduce`, schedule.py `Collective`) works in shared memory, with no
copy and no message: every device hands its input array to the collective's rendezvous
(`_Rendezvous`); naive: each device then sums every input into its own output; ring and
all2all: each device reduces chunk d of every input (views, in device order) into its own
output and copies it into every other output, block by block while the block is in its
core's cache (`_reduce_and_push`), then waits until every chunk is in: every input is read
once and every output written once, so each device moves about two buffers instead of N. An all-gather (`devidx.allgather`):
each device copies every peer's input array straight into its entry of its own output (views,
no intermediate); a broadcast: each device copies the root's input into its output; a
gather (`devidx.gather`): the root copies every peer's input into its entry of its output (the
others zero theirs); a scatter: each device copies its entry of the root's input (a view)
into its output; an all-to-all: each device copies its entry of every peer's input into that
peer's entry of its own output. An allreduce with `members` is the same rendezvous among
the members only (in the table's order); the other devices zero their output. A device
whose part cannot go on yet waits like a receive.

The first failure (an ExecutionError from any device) sets the run's abort event and wakes
every thread; the others stop at their next step or receive, and the run raises that first
failure. A thread still busy in a kernel `abort_grace` seconds later leaves the program
unusable (it cannot be interrupted), and the run says so.
"""

from __future__ import annotations

import contextlib
import functools
import os
import queue
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from xdsl_multi.runtime.executor import (
    Aborted,
    DeviceRun,
    DeviceRunner,
    ExecutionError,
    LocalValue,
    Placed,
    describe_exception,
)
from xdsl_multi.runtime.interpreter.schedulers import rows_from_owners
from xdsl_multi.runtime.schedule import Call, Collective, Recv, Send

ABORT_GRACE = 10.0
"""Seconds the other devices get to stop after a failure."""


@dataclass
class _Mailbox:
    """One device's incoming messages, by (source, channel), in order; `cond` is its group's
    (a message wakes the thread that runs the receiver)."""

    cond: threading.Condition
    queues: dict[tuple[int, int], deque[np.ndarray]] = field(default_factory=dict)


_KINDS: dict[str, tuple[Callable[..., np.ndarray], Callable[..., np.ndarray]]] = {
    "add": (np.add, np.logical_or),
    "mul": (np.multiply, np.logical_and),
    "max": (np.maximum, np.logical_or),
}
"""A reduction kind -> its numpy ufunc for numbers and for i1 (the SPMD form's combine ops)."""


def _ufunc(kind: str, dtype: np.dtype) -> Callable[..., np.ndarray]:
    numbers, bools = _KINDS[kind]
    return bools if dtype == np.bool_ else numbers


class _Rendezvous:
    """One collective of one run: every device's input and output array, and how far each
    device got (0: arrived, 1: its chunk reduced, 2: done)."""

    def __init__(self, n: int, conds: Sequence[threading.Condition]) -> None:
        self.n = n
        self.conds = conds
        self.lock = threading.Lock()
        self.inputs: list[np.ndarray | None] = [None] * n
        self.outputs: list[np.ndarray | None] = [None] * n
        self.phase = [-1] * n
        self.arrived = 0
        self.reduced = 0
        self.across = 0

    def _wake(self) -> None:
        for cond in self.conds:
            with cond:
                cond.notify_all()

    def ready(self, d: int) -> bool:
        """Whether device d's next part can run now."""
        if self.phase[d] <= 0:
            return self.arrived == self.n
        if self.phase[d] == 3:
            return self.across == self.n
        return self.reduced == self.n

    def _pass(self, d: int, phase: int, counter: str) -> bool:
        """Device d is done with a part of a hierarchical allreduce: count it in `counter`
        and go on to `phase`; whether every device has (else d waits)."""
        with self.lock:
            self.phase[d] = phase
            setattr(self, counter, getattr(self, counter) + 1)
            everyone = getattr(self, counter) == self.n
        if everyone:
            self._wake()
        return everyone

    def _hierarchical(self, d: int, step: Collective, ufunc: Callable[..., np.ndarray]) -> bool:
        """Phase 0: each leader reduces its minor group's inputs into its output. Phase 1:
        leader number j of a group reduces chunk j of every leader's output (its own first)
        and copies it into the other leaders' outputs (only it reads or writes chunk j). Phase
        3: every other device copies its leader's output."""
        out = self.outputs[d]
        assert out is not None
        minor = step.minor_group(d)
        if self.phase[d] == 0:
            if minor[0] == d:
                _reduce_into(ufunc, out, [self.inputs[j] for j in minor])  # type: ignore[misc]
            if not self._pass(d, 1, "reduced"):
                return False
        if self.phase[d] == 1:
            leaders = step.leaders(d)
            if minor[0] == d:
                flat = [self.outputs[j].reshape(-1) for j in leaders]  # type: ignore[union-attr]
                c = -(-flat[0].size // len(leaders))
                j = leaders.index(d)
                part = slice(min(j * c, flat[0].size), min((j + 1) * c, flat[0].size))
                # own output first: it is written while the others are read
                _reduce_and_push(ufunc, part, [flat[j], *flat[:j], *flat[j + 1 :]], flat, j)
            if not self._pass(d, 3, "across"):
                return False
        if minor[0] != d:
            np.copyto(out, self.outputs[minor[0]])  # type: ignore[arg-type]
        self.phase[d] = 2
        return True

    def _chunk(self, k: int, size: int) -> slice:
        c = -(-size // self.n)
        return slice(min(k * c, size), min((k + 1) * c, size))

    def step(self, d: int, step: Collective, value: np.ndarray, out: np.ndarray) -> bool:
        if self.phase[d] < 0:
            with self.lock:
                self.inputs[d], self.outputs[d] = value, out
                self.phase[d] = 0
                self.arrived += 1
                everyone = self.arrived == self.n
            if everyone:
                self._wake()
        if not self.ready(d):
            return False
        if step.op == "allgather":  # every peer's block straight into my output
            for j, x in enumerate(self.inputs):
                np.copyto(out[step.positions[j]], x)  # type: ignore[arg-type]
            self.phase[d] = 2
            return True
        if step.op == "gather":  # the root copies every peer's block into its output
            if d == step.root:
                for j, x in enumerate(self.inputs):
                    np.copyto(out[step.positions[j]], x)  # type: ignore[arg-type]
            else:
                out.fill(0)
            self.phase[d] = 2
            return True
        if step.op == "scatter":  # my entry of the root's buffer, straight into my output
            np.copyto(out, self.inputs[step.root][step.positions[d]])  # type: ignore[index]
            self.phase[d] = 2
            return True
        if step.op == "alltoall" and step.rows:  # only the rows my range shares with owners'
            k, s, t = step.positions[d], step.rows[0], step.rows[1]
            out.fill(0)
            for i, lo, hi in rows_from_owners(step.rows, k):
                x = self.inputs[step.sources.index(i)]
                np.copyto(out[lo - k * t : hi - k * t], x[lo - i * s : hi - i * s])  # type: ignore[index]
            self.phase[d] = 2
            return True
        if step.op == "alltoall":  # entry k(d) of every peer's buffer into entry i(peer)
            k, senders = step.positions[d], step.sources or step.positions
            for j, x in enumerate(self.inputs):
                np.copyto(out[senders[j]], x[k])  # type: ignore[index]
            self.phase[d] = 2
            return True
        if step.op == "broadcast":  # copy from the root's buffer
            np.copyto(out, self.inputs[step.root])  # type: ignore[arg-type]
            self.phase[d] = 2
            return True
        ufunc = _ufunc(step.kind, out.dtype)
        inputs = [x.reshape(-1) for x in self.inputs]  # type: ignore[union-attr]
        flat = out.reshape(-1)
        if step.hierarchical:
            return self._hierarchical(d, step, ufunc)
        if step.group_mesh:  # a mesh group: the members' whole buffers, in device order
            _reduce_into(ufunc, flat, [inputs[j] for j in step.group(d, self.n)])
            self.phase[d] = 2
            return True
        if step.algorithm == "naive":  # every device reduces every whole buffer
            _reduce_into(ufunc, flat, inputs)
            self.phase[d] = 2
            return True
        if self.phase[d] == 0:  # my chunk of every input, reduced, into every output
            part = self._chunk(d, flat.size)
            outputs = [o.reshape(-1) for o in self.outputs]  # type: ignore[union-attr]
            _reduce_and_push(ufunc, part, inputs, outputs, d)
            with self.lock:
                self.phase[d] = 1
                self.reduced += 1
                everyone = self.reduced == self.n
            if everyone:
                self._wake()
            if not everyone:  # the others still write their chunks into my output
                return False
        self.phase[d] = 2
        return True


BLOCK_BYTES = 256 << 10
"""The block a device reduces and then copies to every output while it is still in its core's
cache (L2 here is 2 MiB a core): the copies read from cache, not from memory."""


def _reduce_and_push(
    ufunc: Callable[..., np.ndarray],
    part: slice,
    inputs: Sequence[np.ndarray],
    outputs: Sequence[np.ndarray],
    d: int,
) -> None:
    """Reduce `part` of every input, in device order, into device d's output, block by block,
    and copy each block into the same place of every other output: every input is read once
    and every output written once (views only, no temporary)."""
    mine = outputs[d]
    step = max(1, BLOCK_BYTES // mine.itemsize)
    for lo in range(part.start, part.stop, step):
        block = slice(lo, min(lo + step, part.stop))
        reduced = mine[block]
        _reduce_into(ufunc, reduced, [x[block] for x in inputs])
        for e, out in enumerate(outputs):
            if e != d:
                np.copyto(out[block], reduced)


def _reduce_into(ufunc: Callable[..., np.ndarray], out: np.ndarray, parts: list[np.ndarray]) -> None:
    """out = ((parts[0] <op> parts[1]) <op> parts[2]) ..., computed in place (no temporary)."""
    if len(parts) == 1:
        np.copyto(out, parts[0])
        return
    ufunc(parts[0], parts[1], out=out)
    for x in parts[2:]:
        ufunc(out, x, out=out)


class _Collectives:
    """The rendezvous of every collective of one run, by its number in the schedule."""

    def __init__(self, n: int, conds: Sequence[threading.Condition]) -> None:
        self.n = n
        self.conds = conds
        self.lock = threading.Lock()
        self.table: dict[int, _Rendezvous] = {}

    def get(self, seq: int, size: int = 0) -> _Rendezvous:
        """Collective `seq`'s rendezvous of `size` devices (0: every device)."""
        with self.lock:
            r = self.table.get(seq)
            if r is None:
                r = self.table[seq] = _Rendezvous(size or self.n, self.conds)
            return r


class _ThreadTransport:
    receives_into_buffer = False

    def __init__(
        self, device: int, boxes: Sequence[_Mailbox], collectives: _Collectives
    ) -> None:
        self.device = device
        self.boxes = boxes
        self.collectives = collectives

    def collective(self, index: int, step: Collective, value: np.ndarray, out: np.ndarray) -> bool:
        """One collective; an allreduce with `members` is a rendezvous of the members only
        (indexed by their place in the table: its reduction order), the others zero `out`."""
        if step.members and self.device not in step.members:
            out.fill(0)
            return True
        me = step.members.index(self.device) if step.members else self.device
        return self.collectives.get(step.seq, len(step.members)).step(me, step, value, out)

    def ready(self, step: Recv | Collective) -> bool:
        """Whether the step a waiting device is at can go on."""
        if isinstance(step, Collective):
            if step.members and self.device not in step.members:
                return True
            me = step.members.index(self.device) if step.members else self.device
            return self.collectives.get(step.seq, len(step.members)).ready(me)
        return bool(self.boxes[self.device].queues.get((step.source, step.channel)))

    def send(self, index: int, step: Send, value: np.ndarray) -> None:
        box = self.boxes[step.dest]
        with box.cond:
            box.queues.setdefault((self.device, step.channel), deque()).append(value)
            box.cond.notify_all()

    def recv(self, index: int, step: Recv, out: np.ndarray | None) -> np.ndarray | None:
        box = self.boxes[self.device]
        with box.cond:
            pending = box.queues.get((step.source, step.channel))
            return pending.popleft() if pending else None

    def finish(self) -> None:
        pass


class _Group:
    """The devices one thread runs, and how to run them once."""

    def __init__(self, runners: Sequence[DeviceRunner], core: int | None) -> None:
        self.runners = list(runners)
        self.core = core

    def run(
        self,
        placed: Placed,
        boxes: Sequence[_Mailbox],
        cond: threading.Condition,
        abort: threading.Event,
        timeout: float,
        collectives: _Collectives,
    ) -> dict[int, list[LocalValue]]:
        """Run every device of the group to its end; their local results by device."""
        states = {r.device: r.start(placed[r.device]) for r in self.runners}
        transports = {
            r.device: _ThreadTransport(r.device, boxes, collectives) for r in self.runners
        }
        active = list(self.runners)
        results: dict[int, list[LocalValue]] = {}
        while active:
            waiting = []
            progressed = False
            for runner in active:
                state = states[runner.device]
                before = state.next_step
                if runner.advance(state, transports[runner.device], abort):
                    assert state.results is not None
                    results[runner.device] = state.results
                    progressed = True
                else:
                    waiting.append(runner)
                    progressed = progressed or state.next_step != before
            active = waiting
            if active and not progressed:
                _wait_for_a_message(active, states, transports, cond, abort, timeout)
        return results


def _wait_for_a_message(
    waiting: Sequence[DeviceRunner],
    states: dict[int, DeviceRun],
    transports: dict[int, _ThreadTransport],
    cond: threading.Condition,
    abort: threading.Event,
    timeout: float,
) -> None:
    """Sleep until one of the waiting devices' messages is there; a device that has waited
    `timeout` seconds fails."""
    with cond:
        while True:
            if abort.is_set():
                raise Aborted
            now = time.monotonic()
            deadline = None
            for runner in waiting:
                state = states[runner.device]
                step = runner.schedule.steps[state.next_step]
                assert isinstance(step, Recv | Collective)
                if transports[runner.device].ready(step):
                    return
                if state.waiting_since is None:
                    state.waiting_since = now
                elif now - state.waiting_since >= timeout:
                    raise ExecutionError(
                        runner.device,
                        state.next_step,
                        step.describe(),
                        f"the other devices did not reach it after {timeout:g} s"
                        if isinstance(step, Collective)
                        else f"no message from device {step.source} on channel {step.channel} "
                        f"after {timeout:g} s",
                    )
                end = state.waiting_since + timeout
                deadline = end if deadline is None else min(deadline, end)
            assert deadline is not None
            cond.wait(max(deadline - now, 0.0))


def _worker(jobs: queue.SimpleQueue[Callable[[], None] | None], core: int | None) -> None:
    if core is not None:
        try:
            os.sched_setaffinity(0, {core})
        except OSError:
            pass  # a restricted container: run unpinned
    while True:
        job = jobs.get()
        if job is None:
            return
        job()
        del job


def _stop(jobs: Sequence[queue.SimpleQueue[Callable[[], None] | None]]) -> None:
    for q in jobs:
        q.put(None)


_T = TypeVar("_T")

PIN_MIN_BYTES = 4 << 20
"""By default threads are pinned only when some device's kernels touch at least this many
bytes per run: then a run takes milliseconds, and two devices on one core would double it.
Below it, a run takes tens of microseconds, and the hand-overs between pinned threads on
different cores (each a cross-core wake-up) cost more than sharing a core."""


def kernel_bytes(runner: DeviceRunner) -> int:
    """The bytes of the buffers a device's kernel calls touch in one run."""
    sched = runner.schedule
    types = sched.step_reg_types()
    return sum(
        types[a].nbytes
        for step in sched.steps
        if isinstance(step, Call)
        for a in step.args
        if a in types
    )


def _groups(runners: Sequence[DeviceRunner], pin: bool | None) -> list[_Group]:
    """Consecutive devices in min(N, cores) groups, each with its core (None: unpinned).
    `pin`: True pins, False does not, None pins when the kernels are big (PIN_MIN_BYTES)."""
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    n, t = len(runners), max(1, min(len(runners), len(cores) or 1))
    if pin is None:
        pin = max((kernel_bytes(r) for r in runners), default=0) >= PIN_MIN_BYTES
    pinned = pin and len(cores) >= t
    bounds = [g * n // t for g in range(t + 1)]
    return [
        _Group(runners[bounds[g] : bounds[g + 1]], cores[g] if pinned else None) for g in range(t)
    ]


class ThreadsBackend:
    """Runs device runners on the calling thread and persistent worker threads."""

    def __init__(
        self,
        runners: Sequence[DeviceRunner],
        recv_timeout: float,
        pin_threads: bool | None = None,
        abort_grace: float = ABORT_GRACE,
    ) -> None:
        self.runners = list(runners)
        self.recv_timeout = recv_timeout
        self.abort_grace = abort_grace
        self.groups = _groups(self.runners, pin_threads)
        self._group_of = {r.device: g for g, group in enumerate(self.groups) for r in group.runners}
        self._jobs: list[queue.SimpleQueue[Callable[[], None] | None]] = []
        self._broken: str | None = None
        self._lock = threading.Lock()

    def _start(self) -> None:
        """Start the threads of groups 1..T-1 (group 0 runs on the calling thread)."""
        if self._jobs or len(self.groups) < 2:
            return
        for g, group in enumerate(self.groups[1:], start=1):
            jobs: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
            threading.Thread(
                target=_worker, args=(jobs, group.core), name=f"xdsl-multi-group-{g}", daemon=True
            ).start()
            self._jobs.append(jobs)
        weakref.finalize(self, _stop, list(self._jobs))

    def close(self) -> None:
        jobs, self._jobs = self._jobs, []
        _stop(jobs)
        self._broken = self._broken or "the program is closed"

    def each_device(self, work: Callable[[int], _T]) -> list[_T]:
        """`work(device)` for every device, by device: each group's devices on its thread
        (group 0 on the calling thread), as a run places them. For copies of milliseconds
        (placing a call's inputs, gathering its outputs: page faults of fresh memory and
        bandwidth, both per core), which the groups then make in parallel. The first
        failure is raised once every group is done."""
        with self._lock:
            if self._broken:
                raise RuntimeError(f"cannot run: {self._broken}")
            self._start()
            done: queue.SimpleQueue[tuple[int, list[_T] | BaseException]] = queue.SimpleQueue()

            def run_group(g: int) -> None:
                try:
                    outcome: list[_T] | BaseException = [
                        work(r.device) for r in self.groups[g].runners
                    ]
                except BaseException as e:  # noqa: BLE001 - raised in the caller
                    outcome = e
                done.put((g, outcome))

            for g, jobs in enumerate(self._jobs, start=1):
                jobs.put(functools.partial(run_group, g))
            with _pinned(self.groups[0].core):
                run_group(0)
            by_device: dict[int, _T] = {}
            failure: BaseException | None = None
            for _ in self.groups:
                g, outcome = done.get()
                if isinstance(outcome, BaseException):
                    failure = failure or outcome
                    continue
                for r, value in zip(self.groups[g].runners, outcome, strict=True):
                    by_device[r.device] = value
            if failure is not None:
                raise failure
            return [by_device[r.device] for r in self.runners]

    def run(self, placed: Placed) -> list[list[LocalValue]]:
        with self._lock:  # one run at a time: device memory is shared between runs
            if self._broken:
                raise RuntimeError(f"cannot run: {self._broken}")
            self._start()
            return self._run(placed)

    def _run(self, placed: Placed) -> list[list[LocalValue]]:
        abort = threading.Event()
        conds = [threading.Condition() for _ in self.groups]
        boxes = [_Mailbox(conds[self._group_of[r.device]]) for r in self.runners]
        collectives = _Collectives(len(self.runners), conds)
        done: queue.SimpleQueue[tuple[int, object]] = queue.SimpleQueue()

        def stop_everyone() -> None:
            abort.set()
            for cond in conds:
                with cond:
                    cond.notify_all()

        def run_group(g: int) -> None:
            try:
                outcome: object = self.groups[g].run(
                    placed, boxes, conds[g], abort, self.recv_timeout, collectives
                )
            except BaseException as e:  # noqa: BLE001 - reported to the caller
                outcome = e
                if not isinstance(e, Aborted):
                    stop_everyone()
            done.put((g, outcome))

        for g, jobs in enumerate(self._jobs, start=1):
            jobs.put(functools.partial(run_group, g))
        with _pinned(self.groups[0].core):
            run_group(0)
        results: list[list[LocalValue] | None] = [None] * len(self.runners)
        failure: BaseException | None = None
        pending = set(range(len(self.groups)))
        deadline: float | None = None
        try:
            while pending:
                timeout = None if deadline is None else max(deadline - time.monotonic(), 0)
                try:
                    g, outcome = done.get(timeout=timeout)
                except queue.Empty:
                    stuck = [r.device for g in sorted(pending) for r in self.groups[g].runners]
                    self._broken = (
                        f"device(s) {', '.join(map(str, stuck))} did not stop within "
                        f"{self.abort_grace:g} s after a failure"
                    )
                    break
                pending.discard(g)
                if isinstance(outcome, BaseException):
                    if failure is None and not isinstance(outcome, Aborted):
                        failure = outcome
                        deadline = time.monotonic() + self.abort_grace
                else:
                    for device, local in outcome.items():  # type: ignore[attr-defined]
                        results[device] = local
        except BaseException:
            stop_everyone()
            raise
        if failure is not None:
            if isinstance(failure, ExecutionError):
                if self._broken:
                    raise ExecutionError(
                        failure.device,
                        failure.step,
                        failure.what,
                        f"{failure.reason} ({self._broken})",
                    ) from failure
                raise failure
            if not isinstance(failure, Exception):
                raise failure  # KeyboardInterrupt, SystemExit: the others were stopped
            raise RuntimeError(
                f"a device failed outside a step: {describe_exception(failure)}"
            ) from failure
        return results  # type: ignore[return-value]


@contextlib.contextmanager
def _pinned(core: int | None) -> Iterator[None]:
    """Run the calling thread on `core` for a while, then give back its affinity."""
    if core is None:
        yield
        return
    before = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, {core})
    except OSError:
        yield
        return
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)

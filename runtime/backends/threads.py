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
from xdsl_multi.runtime.schedule import Call, Recv, Send

ABORT_GRACE = 10.0
"""Seconds the other devices get to stop after a failure."""


@dataclass
class _Mailbox:
    """One device's incoming messages, by (source, channel), in order; `cond` is its group's
    (a message wakes the thread that runs the receiver)."""

    cond: threading.Condition
    queues: dict[tuple[int, int], deque[np.ndarray]] = field(default_factory=dict)


class _ThreadTransport:
    receives_into_buffer = False

    def __init__(self, device: int, boxes: Sequence[_Mailbox]) -> None:
        self.device = device
        self.boxes = boxes

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
    ) -> dict[int, list[LocalValue]]:
        """Run every device of the group to its end; their local results by device."""
        states = {r.device: r.start(placed[r.device]) for r in self.runners}
        transports = {r.device: _ThreadTransport(r.device, boxes) for r in self.runners}
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
                _wait_for_a_message(active, states, boxes, cond, abort, timeout)
        return results


def _wait_for_a_message(
    waiting: Sequence[DeviceRunner],
    states: dict[int, DeviceRun],
    boxes: Sequence[_Mailbox],
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
                assert isinstance(step, Recv)
                if boxes[runner.device].queues.get((step.source, step.channel)):
                    return
                if state.waiting_since is None:
                    state.waiting_since = now
                elif now - state.waiting_since >= timeout:
                    raise ExecutionError(
                        runner.device,
                        state.next_step,
                        step.describe(),
                        f"no message from device {step.source} on channel {step.channel} "
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
        done: queue.SimpleQueue[tuple[int, object]] = queue.SimpleQueue()

        def stop_everyone() -> None:
            abort.set()
            for cond in conds:
                with cond:
                    cond.notify_all()

        def run_group(g: int) -> None:
            try:
                outcome: object = self.groups[g].run(
                    placed, boxes, conds[g], abort, self.recv_timeout
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

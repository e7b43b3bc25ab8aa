"""The `threads` backend: one thread per device, in this process.

Device 0 runs on the calling thread and every other device on a worker thread that lives as
long as the program (so a steady-state run starts no thread and hands work to N - 1 threads:
a hand-over between cores costs tens of microseconds). Each device runs pinned to its own core
when there are at least as many cores as devices (BENCH.md: unpinned threads sometimes share a
core); the calling thread only while it runs device 0. Kernels called through ctypes release
the GIL, so devices compute in parallel.

A send hands the array itself to the receiver's mailbox (no copy): the schedule's copy
decisions (schedule.py `decide_copies`) make sure that nobody writes a handed-over buffer
until the run ends, and the memory plan keeps it out of reuse until then. A receive waits on
its mailbox for `recv_timeout` seconds.

The first failure (an ExecutionError from any device) sets the run's abort event and wakes
every mailbox; the other devices stop at their next step or receive, and the run raises that
first failure. A device still busy in a kernel `abort_grace` seconds later leaves the program
unusable (its thread cannot be interrupted), and the run says so.
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
    DeviceRunner,
    ExecutionError,
    LocalValue,
    Placed,
    RecvTimeout,
    describe_exception,
)
from xdsl_multi.runtime.schedule import Recv, Send

ABORT_GRACE = 10.0
"""Seconds the other devices get to stop after a failure."""


@dataclass
class _Mailbox:
    """One device's incoming messages, by (source, channel), in order."""

    cond: threading.Condition = field(default_factory=threading.Condition)
    queues: dict[tuple[int, int], deque[np.ndarray]] = field(default_factory=dict)


class _ThreadTransport:
    receives_into_buffer = False

    def __init__(
        self, device: int, boxes: Sequence[_Mailbox], abort: threading.Event, timeout: float
    ) -> None:
        self.device = device
        self.boxes = boxes
        self.abort = abort
        self.timeout = timeout

    def send(self, index: int, step: Send, value: np.ndarray) -> None:
        box = self.boxes[step.dest]
        with box.cond:
            box.queues.setdefault((self.device, step.channel), deque()).append(value)
            box.cond.notify_all()

    def recv(self, index: int, step: Recv, out: np.ndarray | None) -> np.ndarray:
        box = self.boxes[self.device]
        key = (step.source, step.channel)
        deadline = time.monotonic() + self.timeout
        with box.cond:
            while True:
                pending = box.queues.get(key)
                if pending:
                    value = pending.popleft()
                    break
                if self.abort.is_set():
                    raise Aborted
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise RecvTimeout(
                        f"no message from device {step.source} on channel {step.channel} "
                        f"after {self.timeout:g} s"
                    )
                box.cond.wait(remaining)
        if value.shape != step.btype.shape or value.dtype != step.btype.dtype:
            raise TypeError(f"received {value.dtype}{list(value.shape)}, expected {step.btype}")
        return value

    def finish(self) -> None:
        pass


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


def _cores_for(n: int, pin: bool | None) -> list[int | None]:
    """The core of each device's thread, or None (unpinned)."""
    if pin is False or not hasattr(os, "sched_getaffinity"):
        return [None] * n
    cores = sorted(os.sched_getaffinity(0))
    if n > len(cores):
        if pin:
            raise ValueError(f"cannot pin {n} device threads to {len(cores)} cores")
        return [None] * n
    return list(cores[:n])


class ThreadsBackend:
    """Runs device runners on persistent worker threads."""

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
        self.cores = _cores_for(len(self.runners), pin_threads)
        self._jobs: list[queue.SimpleQueue[Callable[[], None] | None]] = []
        self._broken: str | None = None
        self._lock = threading.Lock()

    def _start(self) -> None:
        """Start the workers of devices 1..N-1 (device 0 runs on the calling thread)."""
        if self._jobs or len(self.runners) < 2:
            return
        for d, core in enumerate(self.cores[1:], start=1):
            jobs: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
            threading.Thread(
                target=_worker, args=(jobs, core), name=f"xdsl-multi-device-{d}", daemon=True
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
        n = len(self.runners)
        abort = threading.Event()
        boxes = [_Mailbox() for _ in range(n)]
        done: queue.SimpleQueue[tuple[int, object]] = queue.SimpleQueue()

        def stop_everyone() -> None:
            abort.set()
            for box in boxes:
                with box.cond:
                    box.cond.notify_all()

        def run_device(runner: DeviceRunner) -> None:
            transport = _ThreadTransport(runner.device, boxes, abort, self.recv_timeout)
            try:
                outcome: object = runner.run(placed[runner.device], transport, abort)
            except BaseException as e:  # noqa: BLE001 - reported to the caller
                outcome = e
                if not isinstance(e, Aborted):
                    stop_everyone()
            done.put((runner.device, outcome))

        for runner, jobs in zip(self.runners[1:], self._jobs, strict=True):
            jobs.put(functools.partial(run_device, runner))
        with _pinned(self.cores[0]):  # device 0 on this thread: one hand-over fewer per run
            run_device(self.runners[0])
        results: list[list[LocalValue] | None] = [None] * n
        failure: BaseException | None = None
        pending = set(range(n))
        deadline: float | None = None
        try:
            while pending:
                timeout = None if deadline is None else max(deadline - time.monotonic(), 0)
                try:
                    device, outcome = done.get(timeout=timeout)
                except queue.Empty:
                    stuck = ", ".join(str(d) for d in sorted(pending))
                    self._broken = (
                        f"device(s) {stuck} did not stop within {self.abort_grace:g} s after "
                        "a failure"
                    )
                    break
                pending.discard(device)
                if isinstance(outcome, BaseException):
                    if failure is None and not isinstance(outcome, Aborted):
                        failure = outcome
                        deadline = time.monotonic() + self.abort_grace
                else:
                    results[device] = outcome  # type: ignore[assignment]
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

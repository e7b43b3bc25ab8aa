"""The compiled runtime: run every device's host schedule, with kernels from a `KernelLibrary`.
This module holds what every backend shares (schedules bound to kernels, placement, failures);
`Program` (program.py) runs it on the threads backend.

```python
from xdsl_multi.runtime.program import Program

with Program(kernel_level_module) as program:      # compile once (schedules, plans, kernels)
    outputs = program(inputs)                        # logical arrays in and out (placement.py)
    placed = program.place(inputs)                   # each device's local inputs, aligned
    local = program.run_placed(placed)               # each device's local results (views of
                                                     #   device memory, valid until the next run)
    outputs = program.gather(local)                  # logical arrays (copies)
```

`Program` runs on the `threads` backend (backends/threads.py: at most one thread per core,
each running a group of devices in turns; sends hand arrays over through mailboxes). The `mpi`
backend (backends/mpi.py) runs the same schedules, one device per MPI rank.

The module is at the kernel level (form-kernels) or the llvm level (convert-to-llvm): a top
module with `multi.devices` and `multi.signature` holding `builtin.module @device_K` whose
`func.func @main` is the host schedule (schedule.py). Kernels come from the given library,
else the JIT for an llvm-level module, else the reference interpreter (kernels.py).

A failure ends the run with an `ExecutionError` naming the device and the step: an exception
from a kernel, or a receive that waited `recv_timeout` seconds (default 60) for its sender.
The other devices stop at their next step or receive.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from xdsl.dialects.builtin import FunctionType, ModuleOp

from xdsl_multi.dialects.multi import placement_of, program_devices
from xdsl_multi.levels import is_llvm_level
from xdsl_multi.runtime.buffers import DeviceMemory, aligned_copy, allocated_meanwhile
from xdsl_multi.runtime.interpreter.device_runs import (
    argument_names,
    logical_signature,
)
from xdsl_multi.runtime.interpreter.kernel_level import ReferenceKernels
from xdsl_multi.runtime.kernels import JitKernels, Kernel, KernelLibrary
from xdsl_multi.runtime.placement import (
    Index,
    check_devices_known,
    device_number,
    from_local_parts,
    gathered_zeros,
    local_blocks,
    placed_local_part,
    prepare_inputs,
)
from xdsl_multi.runtime.schedule import (
    Alloc,
    Backend,
    Call,
    Collective,
    Copy,
    DeviceSchedule,
    Free,
    Recv,
    ScheduleError,
    Send,
    compile_schedules,
)
from xdsl_multi.runtime.values import InterpreterError

DEFAULT_RECV_TIMEOUT = 60.0
"""Seconds a receive waits for its message before the run fails."""

LocalValue = np.ndarray | int | float
Placed = list[list[LocalValue]]
"""Each device's local @main arguments, by device number."""


# ---------------------------------------------------------------------------------------------
# Failures
# ---------------------------------------------------------------------------------------------


class ExecutionError(Exception):
    """A run failed on device `device` at step `step` of its schedule."""

    def __init__(self, device: int, step: int, what: str, reason: str) -> None:
        super().__init__(f"device {device} failed at step {step} ({what}): {reason}")
        self.device = device
        self.step = step
        self.what = what
        self.reason = reason


class RecvTimeout(Exception):
    """A receive waited too long; the message names the missing sender and channel."""


class Aborted(Exception):
    """Another device failed: this one stops where it is."""


def describe_exception(e: BaseException) -> str:
    text = str(e)
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


# ---------------------------------------------------------------------------------------------
# Running one device
# ---------------------------------------------------------------------------------------------


class Transport(Protocol):
    """How one device's sends and receives reach the other devices."""

    receives_into_buffer: bool
    """True if a receive lands in a buffer of the receiver's (MPI), False if it hands over
    the sender's array (threads)."""

    def send(self, index: int, step: Send, value: np.ndarray) -> None:
        """Send `value` for step number `index`."""
        ...

    def recv(self, index: int, step: Recv, out: np.ndarray | None) -> np.ndarray | None:
        """The next message of step number `index` (into `out` if the transport receives
        into a buffer), or None if it has not arrived (a transport that waits itself never
        returns None); raises RecvTimeout or Aborted."""
        ...

    def collective(self, index: int, step: Collective, value: np.ndarray, out: np.ndarray) -> bool:
        """Take part in collective `step` (this device's `value`, its result into `out`):
        True when `out` holds the result, False if other devices are not there yet (a
        transport that waits itself never returns False)."""
        ...

    def finish(self) -> None:
        """The run ended on this device: complete outstanding sends."""
        ...


@dataclass
class DeviceRun:
    """One run of a device's schedule in progress: its registers and the next step."""

    regs: list[object]
    next_step: int = 0
    waiting_since: float | None = None
    """When the receive at `next_step` found no message (None: not waiting)."""
    results: list[LocalValue] | None = None


class DeviceRunner:
    """One device's schedule, its memory and its kernels, ready to run many times.

    `run` runs a whole schedule with a transport that waits for messages itself (MPI);
    `start` + `advance` run it in pieces, returning at a receive whose message is not there
    yet, so one thread can run several devices (threads backend)."""

    def __init__(
        self,
        schedule: DeviceSchedule,
        kernels: dict[str, Kernel],
        memory: DeviceMemory | None = None,
    ) -> None:
        """`memory`: the device's memory for `schedule.plan` (default: new, its slots
        allocated by the first run that needs them)."""
        self.schedule = schedule
        self.memory = memory if memory is not None else DeviceMemory(schedule.plan)
        self.kernels = kernels

    @property
    def device(self) -> int:
        return self.schedule.device

    def run(
        self, args: Sequence[LocalValue], transport: Transport, abort: threading.Event
    ) -> list[LocalValue]:
        """Run the schedule on this device's local arguments; return its local results."""
        state = self.start(args)
        if not self.advance(state, transport, abort):
            raise RuntimeError("a waiting transport returned no message")
        assert state.results is not None
        return state.results

    def start(self, args: Sequence[LocalValue]) -> DeviceRun:
        regs: list[object] = [None] * self.schedule.num_regs
        regs[: len(args)] = args
        for reg, value in self.schedule.constants.items():
            regs[reg] = value
        return DeviceRun(regs)

    def advance(self, state: DeviceRun, transport: Transport, abort: threading.Event) -> bool:
        """Run steps until the schedule ends (True: `state.results` is set) or a receive
        finds no message (False: `state.next_step` is that receive). Raises ExecutionError
        naming the failing step, or Aborted when another device failed."""
        sched = self.schedule
        steps = sched.steps
        regs = state.regs
        memory = self.memory
        i = state.next_step
        while i < len(steps):
            step = steps[i]
            if abort.is_set():
                raise Aborted
            try:
                if type(step) is Call:
                    self.kernels[step.name]([regs[a] for a in step.args])  # type: ignore[misc]
                elif type(step) is Alloc:
                    regs[step.reg] = memory.view(step.reg, step.btype)
                elif type(step) is Send:
                    value = regs[step.reg]
                    assert isinstance(value, np.ndarray)
                    transport.send(i, step, aligned_copy(value) if step.copy else value)
                elif type(step) is Recv:
                    out = (
                        memory.view(step.reg, step.btype)
                        if transport.receives_into_buffer
                        else None
                    )
                    got = transport.recv(i, step, out)
                    if got is None:
                        state.next_step = i
                        return False
                    if got.shape != step.btype.shape or got.dtype != step.btype.dtype:
                        raise TypeError(
                            f"received {got.dtype}{list(got.shape)}, expected {step.btype}"
                        )
                    regs[step.reg] = got
                    state.waiting_since = None
                elif type(step) is Collective:
                    out = regs[step.out]
                    if out is None:
                        out = regs[step.out] = memory.view(step.out, step.btype)
                    value = regs[step.reg]
                    assert isinstance(value, np.ndarray) and isinstance(out, np.ndarray)
                    if not transport.collective(i, step, value, out):
                        state.next_step = i
                        return False
                elif type(step) is Free:
                    for reg in step.regs:
                        regs[reg] = None
                elif type(step) is Copy:
                    np.copyto(regs[step.dst], regs[step.src])  # type: ignore[arg-type]
            except Aborted:
                raise
            except RecvTimeout as e:
                raise ExecutionError(sched.device, i, step.describe(), str(e)) from None
            except Exception as e:
                raise ExecutionError(sched.device, i, step.describe(), describe_exception(e)) from e
            i += 1
        state.next_step = i
        try:
            transport.finish()
        except RecvTimeout as e:
            raise ExecutionError(sched.device, len(steps), "finish", str(e)) from None
        state.results = [regs[r] for r in sched.results]  # type: ignore[misc]
        return True


def bind_kernels(schedule: DeviceSchedule, library: KernelLibrary) -> dict[str, Kernel]:
    """The kernels `schedule` calls, from `library`; a missing one is a ScheduleError."""
    kernels = {}
    for name in schedule.kernel_names:
        try:
            kernels[name] = library.kernel(schedule.device, name)
        except KeyError:
            raise ScheduleError(
                f"device {schedule.device}: the schedule calls @{name}, which the kernel "
                "library does not have"
            ) from None
    return kernels


def default_library(
    module: ModuleOp, devices: Sequence[int] | None = None, kernel_cache: object = None
) -> KernelLibrary:
    """The JIT for an llvm-level module (kernels are `llvm.func`; only those of `devices` if
    given; `kernel_cache`: a `jit.KernelCache` to use instead of the process's), else the
    reference interpreter's kernels (kernel_level.py: slow, but no compiler needed)."""
    if is_llvm_level(module):
        return JitKernels(module, devices, kernel_cache)
    return ReferenceKernels(module)


# ---------------------------------------------------------------------------------------------
# The program: logical arrays in and out
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProgramInfo:
    """What the logical inputs and outputs are, and which device holds which."""

    devices: tuple[str, ...]
    signature: FunctionType
    argument_names: tuple[str, ...]

    @staticmethod
    def of(module: ModuleOp, entry: str = "main") -> ProgramInfo:
        try:
            sig = logical_signature(module, entry)
            names = argument_names(module, entry)
            devices = program_devices(module)
            check_devices_known(sig, devices)
        except InterpreterError as e:
            raise ScheduleError(str(e)) from None
        return ProgramInfo(tuple(devices), sig, tuple(names))

    def holders(self, result: int) -> list[int]:
        """The devices whose local value of result `result` is part of the logical one."""
        t = self.signature.outputs.data[result]
        enc = placement_of(t)
        if enc is None:
            return [0]
        return sorted({device_number(self.devices, name) for name in enc.device_names})

    def check_schedules(self, schedules: Sequence[DeviceSchedule]) -> None:
        n_in, n_out = len(self.signature.inputs.data), len(self.signature.outputs.data)
        if self.devices and len(self.devices) != len(schedules):
            raise ScheduleError(
                f"multi.devices lists {len(self.devices)} devices but the module has "
                f"{len(schedules)} device modules"
            )
        for s in schedules:
            if len(s.args) != n_in or len(s.results) != n_out:
                raise ScheduleError(
                    f"device {s.device}: @main takes {len(s.args)} arguments and returns "
                    f"{len(s.results)} values; the logical signature has {n_in} and {n_out}"
                )

    def logical_inputs(self, inputs: Sequence[object]) -> list[np.ndarray]:
        """The checked logical inputs, not copied (`place_device` copies each device's part
        once); raises InterpreterError."""
        return prepare_inputs(self.signature, inputs, list(self.argument_names), copy=False)

    def place_device(
        self, schedule: DeviceSchedule, logical: Sequence[np.ndarray]
    ) -> list[LocalValue]:
        """Device `schedule.device`'s local arguments: aligned copies of its parts, each
        written once (placement.placed_local_part)."""
        out: list[LocalValue] = []
        d = schedule.device
        for i, (t, x, spec) in enumerate(
            zip(self.signature.inputs.data, logical, schedule.args, strict=True)
        ):
            part = placed_local_part(t, x, d, self.devices)
            if spec.scalar:
                out.append(part[()].item())
                continue
            if part.shape != spec.btype.shape or part.dtype != spec.btype.dtype:
                raise ScheduleError(
                    f"argument {i}: device {d}'s local part of {t} is {part.dtype}"
                    f"{list(part.shape)}, but its @main takes {spec.btype}"
                )
            out.append(part)
        return out

    def gather(
        self,
        local: Sequence[Sequence[LocalValue] | None],
        each_device: Callable[[Callable[[int], None]], object] | None = None,
    ) -> list[np.ndarray]:
        """The logical outputs from each device's local results (None for a device whose
        results are not needed); never a view of device memory. `each_device(copy)`: calls
        `copy(d)` for every device d (the threads backend's `each_device`, which makes the
        devices' copies into the outputs in parallel); without it they are made here."""
        outputs = []
        pieces: list[tuple[np.ndarray, list[np.ndarray | None], list[tuple[int, Index, Index]]]]
        pieces = []
        for j, t in enumerate(self.signature.outputs.data):
            parts = [None if results is None else np.asarray(results[j]) for results in local]
            blocks = local_blocks(t, self.devices) if each_device is not None else None
            if blocks is not None:
                x = gathered_zeros(t, blocks, parts)
                pieces.append((x, parts, blocks))
            else:
                x = from_local_parts(t, parts, self.devices)  # type: ignore[arg-type]
                if any(p is not None and np.may_share_memory(x, p) for p in parts):
                    x = np.array(x)
            outputs.append(x)
        if pieces and each_device is not None:

            def copy(d: int) -> None:
                for x, parts, blocks in pieces:
                    for device, dst, src in blocks:
                        if device == d:
                            x[dst] = parts[d][src]  # type: ignore[index]

            each_device(copy)
        return outputs


def compile_program(
    module: ModuleOp,
    backend: Backend,
    library: KernelLibrary | None,
    devices: Sequence[int] | None = None,
    entry: str = "main",
    kernel_cache: object = None,
) -> tuple[ProgramInfo, list[DeviceSchedule], KernelLibrary, dict[int, DeviceRunner]]:
    """Schedules of every device, the kernel library used (`library`, or the default one,
    compiled through `kernel_cache` when given) and runners (with kernels) for `devices`
    (default all). The schedules and memory plans come first, so that the devices' memory is
    allocated while the kernels compile (`build_runners`)."""
    info = ProgramInfo.of(module, entry)
    schedules = compile_schedules(module, backend, entry)
    info.check_schedules(schedules)
    wanted = range(len(schedules)) if devices is None else devices
    used, runners = build_runners(
        schedules, wanted, lambda: library or default_library(module, devices, kernel_cache)
    )
    return info, schedules, used, runners


def build_runners(
    schedules: Sequence[DeviceSchedule],
    wanted: Iterable[int],
    make_library: Callable[[], KernelLibrary],
) -> tuple[KernelLibrary, dict[int, DeviceRunner]]:
    """The runners of the `wanted` devices, with the kernels `make_library()` gives; each
    device's memory is allocated (its pages touched) on a thread while it runs
    (`allocated_meanwhile`: LLVM compiles without the GIL), so the first run takes no page
    faults there (BENCH W2, W6: they cost the first run more than the run itself)."""
    memories = {d: DeviceMemory(schedules[d].plan) for d in wanted}
    with allocated_meanwhile(list(memories.values())):
        library = make_library()
    runners = {
        d: DeviceRunner(schedules[d], bind_kernels(schedules[d], library), memory)
        for d, memory in memories.items()
    }
    return library, runners

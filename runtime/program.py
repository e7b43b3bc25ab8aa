"""`Program`: a kernel-level or llvm-level module compiled for the threads backend
(backends/threads.py), called many times; executor.py has what it runs.

```python
from xdsl_multi.runtime.program import Program

with Program(kernel_level_module) as program:      # compile once (schedules, plans, kernels)
    outputs = program(inputs)                        # logical arrays in and out (placement.py)
```
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Self

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from xdsl_multi.runtime.backends.threads import ThreadsBackend
from xdsl_multi.runtime.executor import (
    DEFAULT_RECV_TIMEOUT,
    DeviceRunner,
    LocalValue,
    Placed,
    ProgramInfo,
    build_runners,
    compile_program,
)
from xdsl_multi.runtime.kernels import JitKernels, KernelLibrary
from xdsl_multi.runtime.schedule import DeviceSchedule

PARALLEL_COPY_BYTES = 4 << 20
"""A call whose inputs (outputs) have at least this many bytes places (gathers) them on the
device threads in parallel (`Program.__call__`): the copies then take milliseconds, against
tens of microseconds for handing work to a thread."""


@dataclass(frozen=True)
class ProgramPlan:
    """What a JIT-compiled Program is made of, as plain data (it pickles): the logical
    signature and devices, every device's checked schedule with its memory plan, and the
    kernels as LLVM IR text with the symbol each (device, kernel) runs. `Program.from_plan`
    builds the same program without the module (the pipeline cache of `xdsl_multi.compile`
    stores it)."""

    info: ProgramInfo
    schedules: tuple[DeviceSchedule, ...]
    kernel_symbols: Mapping[tuple[int, str], str]
    llvm_ir: str | None
    only: frozenset[str] | None

    @property
    def num_devices(self) -> int:
        return len(self.schedules)


class Program:
    """A kernel-level program compiled for the threads backend; call it many times."""

    def __init__(
        self,
        module: ModuleOp,
        kernels: KernelLibrary | None = None,
        *,
        recv_timeout: float = DEFAULT_RECV_TIMEOUT,
        pin_threads: bool | None = None,
        entry: str = "main",
        kernel_cache: object = None,
    ) -> None:
        """`kernels`: the kernels to run (default: the JIT's, compiled now, through
        `kernel_cache`, a `jit.KernelCache`, when given)."""
        self.info, self.schedules, self._library, runners = compile_program(
            module, "threads", kernels, None, entry, kernel_cache
        )
        self._start([runners[d] for d in range(len(self.schedules))], recv_timeout, pin_threads)

    @classmethod
    def from_plan(
        cls,
        plan: ProgramPlan,
        *,
        recv_timeout: float = DEFAULT_RECV_TIMEOUT,
        pin_threads: bool | None = None,
        kernel_cache: object = None,
    ) -> Program:
        """The program `plan` describes (`plan()` of a Program built from a module), its
        kernels from the JIT (`kernel_cache`: a `jit.KernelCache` to share)."""
        program = cls.__new__(cls)
        program.info, program.schedules = plan.info, list(plan.schedules)
        program._library, runners = build_runners(
            program.schedules,
            range(len(program.schedules)),
            lambda: JitKernels.from_llvm_ir(
                plan.kernel_symbols, plan.llvm_ir, plan.only, kernel_cache
            ),
        )
        program._start([runners[d] for d in range(plan.num_devices)], recv_timeout, pin_threads)
        return program

    def _start(
        self, runners: list[DeviceRunner], recv_timeout: float, pin_threads: bool | None
    ) -> None:
        self.runners = runners
        self._backend = ThreadsBackend(self.runners, recv_timeout, pin_threads)

    def plan(self) -> ProgramPlan | None:
        """This program as plain data for `from_plan`, or None when its kernels are not the
        JIT's (reference or Python kernels cannot be rebuilt from text)."""
        if not isinstance(self._library, JitKernels):
            return None
        return ProgramPlan(
            self.info,
            tuple(self.schedules),
            self._library.names,
            self._library.llvm_ir,
            self._library.only,
        )

    @property
    def num_devices(self) -> int:
        return len(self.schedules)

    @property
    def peak_bytes(self) -> list[int]:
        """Per device, the most bytes its schedule has live at once."""
        return [s.plan.peak_bytes for s in self.schedules]

    @property
    def held_bytes(self) -> list[int]:
        """Per device, the bytes of device memory allocated so far (kept across runs)."""
        return [r.memory.allocated_bytes for r in self.runners]

    def place(self, inputs: Sequence[object]) -> Placed:
        """Each device's local arguments for these logical inputs (raises InterpreterError
        for an input of the wrong shape or dtype)."""
        logical = self.info.logical_inputs(inputs)
        return [self.info.place_device(s, logical) for s in self.schedules]

    def run_placed(self, placed: Placed) -> list[list[LocalValue]]:
        """Run once on placed inputs; each device's local results. They are device memory,
        overwritten by the next run: gather or copy them first."""
        if len(placed) != self.num_devices:
            raise ValueError(f"expected inputs for {self.num_devices} devices, got {len(placed)}")
        return self._backend.run(placed)

    def gather(self, local: Sequence[Sequence[LocalValue]]) -> list[np.ndarray]:
        return self.info.gather(local)

    def __call__(self, inputs: Sequence[object]) -> list[np.ndarray]:
        """Logical inputs in, logical outputs out: place, run, gather. When a call's inputs
        (or outputs) have PARALLEL_COPY_BYTES or more, each device thread places its own
        devices' inputs (gathers their outputs): the copies, and the page faults of the fresh
        memory they land in, are then made on every core at once, not one after the other
        on the calling thread (most of a first run of BENCH W2 or W3)."""
        logical = self.info.logical_inputs(inputs)
        if self._parallel_copies(x.nbytes for x in logical):
            placed = self._backend.each_device(
                lambda d: self.info.place_device(self.schedules[d], logical)
            )
        else:
            placed = [self.info.place_device(s, logical) for s in self.schedules]
        local = self.run_placed(placed)
        results = (v for values in local for v in values)
        each = self._backend.each_device
        parallel = self._parallel_copies(getattr(v, "nbytes", 0) for v in results)
        return self.info.gather(local, each if parallel else None)

    def _parallel_copies(self, sizes: Iterable[int]) -> bool:
        return len(self._backend.groups) > 1 and sum(sizes) >= PARALLEL_COPY_BYTES

    def close(self) -> None:
        """Stop the device threads (also done when the program is garbage collected)."""
        self._backend.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

"""`Program`: a kernel-level or llvm-level module compiled for the threads backend
(backends/threads.py), called many times; executor.py has what it runs.

```python
from xdsl_multi.runtime.program import Program

with Program(kernel_level_module) as program:      # compile once (schedules, plans, kernels)
    outputs = program(inputs)                        # logical arrays in and out (placement.py)
```
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from xdsl_multi.runtime.backends.threads import ThreadsBackend
from xdsl_multi.runtime.executor import (
    DEFAULT_RECV_TIMEOUT,
    LocalValue,
    Placed,
    compile_runners,
)
from xdsl_multi.runtime.kernels import KernelLibrary


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
    ) -> None:
        self.info, self.schedules, runners = compile_runners(
            module, "threads", kernels, None, entry
        )
        self.runners = [runners[d] for d in range(len(self.schedules))]
        self._backend = ThreadsBackend(self.runners, recv_timeout, pin_threads)

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
        return self.gather(self.run_placed(self.place(inputs)))

    def close(self) -> None:
        """Stop the device threads (also done when the program is garbage collected)."""
        self._backend.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

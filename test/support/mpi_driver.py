"""Run under mpiexec to test the mpi backend's failure paths with Python kernels:

    mpiexec -n 2 python mpi_driver.py MODE

MODE `raise`: device 1's kernel raises; `die`: device 1's kernel kills its process
(os._exit(7), as a crashed rank would); `slow`: device 0's kernel sleeps 30 s, so device 1's
receive times out (0.5 s). Every mode must end the whole job quickly; `ok` runs normally and
rank 0 prints `ok` and the outputs."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence

import numpy as np
from kernel_programs import exchange_program, parse

from xdsl_multi.runtime.backends.mpi import MpiProgram
from xdsl_multi.runtime.kernels import KernelArg, PythonKernels


def add(args: Sequence[KernelArg]) -> None:
    a, b, out = args
    np.add(a, b, out=out)  # type: ignore[call-overload]


def failing(mode: str):
    def kernel(args: Sequence[KernelArg]) -> None:
        if mode == "raise":
            raise ValueError("bad buffer")
        if mode == "die":
            os._exit(7)
        if mode == "slow":
            time.sleep(30)
        add(args)

    return kernel


def main() -> None:
    mode = sys.argv[1]
    failing_device = 0 if mode == "slow" else 1
    kernels = PythonKernels({"kernel0": add, (failing_device, "kernel0"): failing(mode)})
    program = MpiProgram(
        parse(exchange_program(2)), kernels, recv_timeout=0.5, error_prefix="mpi-driver"
    )
    x = np.arange(8, dtype=np.float32)
    outputs = program([x, x] if program.rank == 0 else None)
    if program.rank == 0:
        print("ok", [o.tolist() for o in outputs or []], flush=True)


if __name__ == "__main__":
    main()

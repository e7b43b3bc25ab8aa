"""`mpiexec -n N multi-run FILE --backend mpi ...`: every rank runs this.

1. Every rank lowers and compiles the program (its own device's kernels).
2. Rank 0 reads the inputs (and prints --show-sharding).
3. Rank 0 scatters each device's local inputs, every rank runs its device, rank 0 gathers
   the results (and, with --time, the ranks repeat the run for the steady-state times).
4. Rank 0 writes or prints the outputs, --check and --time.

Phases 1 and 2 end together: the ranks agree whether any failed; rank 0 prints the error (its
own, else the first failing rank's) and every rank exits with the same code, so no rank waits
for one that gave up. In phase 3 a failure (a kernel, a receive that times out) ends the whole
job with MPI_Abort after one line naming the rank and step (runtime/backends/mpi.py); a rank
that dies is ended by mpiexec, which ends the others.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import numpy as np
from xdsl.dialects.builtin import FunctionType, ModuleOp

from xdsl_multi.diagnostics import CompileError, SourceFile, internal_error
from xdsl_multi.levels import Level
from xdsl_multi.runtime.schedule import ScheduleError
from xdsl_multi.tools.run_io import (
    TOOL_NAME,
    check_device_count,
    format_sharding,
    load_inputs,
    render_error,
    schedule_error,
)
from xdsl_multi.tools.run_pipeline import Progress, Timings, lower_timed

if TYPE_CHECKING:
    from xdsl_multi.runtime.backends.mpi import MpiProgram

T = TypeVar("T")


class Tool(Protocol):
    """What the MPI path needs of the multi-run driver (multi_run.py `MultiRun`)."""

    args: argparse.Namespace
    source: SourceFile | None
    timings: Timings
    peak_bytes: list[int] | None

    def add_steady(self, steady: Sequence[float]) -> None: ...

    def finish(
        self,
        outputs: Sequence[np.ndarray],
        sig: FunctionType,
        backend: str,
        reference: ModuleOp | None,
        inputs: Sequence[np.ndarray],
    ) -> None: ...


class QuietExit(Exception):
    """End with `code`; the message was already printed (by another MPI rank, or not at all).
    Defined here, not in multi_run.py, which may run as `__main__` (a second module object)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def _agree(tool: Tool, comm: Any, step: Callable[[], T]) -> T:
    """Run `step` on every rank; if it failed anywhere, rank 0 reports and all ranks exit."""
    error: CompileError | None = None
    value: T | None = None
    try:
        value = step()
    except CompileError as e:
        error = e
    except Exception as e:  # noqa: BLE001 - a bug: an internal error, agreed on like the rest
        error = internal_error(f"internal error in {TOOL_NAME}", e)
    show_traceback = tool.args.show_traceback
    text = None if error is None else render_error(error, tool.source, show_traceback)
    code = 0 if error is None else error.exit_code
    reports = comm.allgather((code, text))
    worst = max(c for c, _ in reports)
    if worst:
        if comm.Get_rank() == 0:
            rank, (_, first) = next((r, x) for r, x in enumerate(reports) if x[0])
            sys.stdout.flush()
            sys.stderr.write(first if rank == 0 else f"{first}note: on MPI rank {rank}\n")
        raise QuietExit(worst)
    return value  # type: ignore[return-value]


def run_mpi(
    tool: Tool, module: ModuleOp, level: Level, sig: FunctionType, names: Sequence[str]
) -> int:
    args = tool.args
    try:
        from xdsl_multi.runtime.backends.mpi import MpiProgram, RankCountError, mpi_module

        MPI = mpi_module()
    except ImportError as e:
        raise CompileError(str(e)) from None
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    reference = module.clone() if args.check and rank == 0 else None

    def compile_program() -> MpiProgram:
        with Progress(TOOL_NAME, args.file, stream=sys.stderr if rank == 0 else _Null()) as p:
            ran = lower_timed(module, tool.timings, p, spmd=args.spmd)
            p.stage("codegen")
            with tool.timings("codegen"):
                try:
                    program = MpiProgram(
                        module,
                        comm=comm,
                        recv_timeout=args.recv_timeout,
                        error_prefix=TOOL_NAME,
                        entry=args.entry,
                    )
                except ScheduleError as e:
                    raise schedule_error(e, ran) from None
                except RankCountError as e:
                    raise CompileError(str(e)) from None
        check_device_count(program.num_devices, args.devices)
        return program

    program = _agree(tool, comm, compile_program)

    def read_inputs() -> tuple[list[np.ndarray], list[Any]] | None:
        if rank != 0:
            return None
        inputs = load_inputs(args.input, names, sig, args.random_inputs, args.seed)
        if args.show_sharding:
            sys.stdout.write(format_sharding(module, sig, names, level))
        try:
            return inputs, program.place(inputs)
        except Exception as e:  # noqa: BLE001 - a bad input: the interpreter's message
            raise CompileError(str(e)) from None

    given = _agree(tool, comm, read_inputs)
    local_args = program.scatter(None if given is None else given[1])
    comm.Barrier()
    start = time.perf_counter()
    local = program.run_local(local_args)
    outputs = program.gather(local)
    peaks = comm.gather(program.peak_bytes, root=0)
    first = time.perf_counter() - start
    steady = []
    if args.time:
        for _ in range(args.runs):
            comm.Barrier()
            start = time.perf_counter()
            program.run_local(local_args)
            comm.Barrier()
            steady.append(time.perf_counter() - start)
    if rank != 0:
        return 0
    assert outputs is not None and given is not None
    tool.timings.add("first run (with scatter and gather)", first)
    if steady:
        tool.add_steady(steady)
    tool.peak_bytes = peaks
    tool.finish(outputs, sig, "mpi", reference, given[0])
    return 0


class _Null:
    """A stream that drops what is written (progress lines of ranks other than 0)."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass

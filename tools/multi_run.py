"""multi-run: run `func.func @main` of a module on its devices (SPEC §6).

    multi-run FILE.mlir [--backend threads|mpi|interp] [--devices N]
              [--input NAME=FILE.npy ...] [--random-inputs [--seed S]] [--output FILE.npz]
              [--check] [--show-sharding] [--time [--runs K]] [--recv-timeout S]
    mpiexec -n N multi-run FILE.mlir --backend mpi ...

Inputs and outputs are logical arrays (runtime/placement.py). `threads` (the default) and `mpi`
lower the module with SPEC's pipeline (run_pipeline.py) and run the compiled runtime
(runtime/executor.py, runtime/backends/); `interp` is the numpy reference interpreter. Exit
codes as multi-opt: 1 for a wrong program, input or command line (one
`multi-run: error: ...` line, or `FILE:LINE:COL: error: ...` for parse and verifier errors) and
for a run that fails (naming the device and the step), 2 for an internal error; never a Python
traceback unless --show-traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any, NoReturn

import numpy as np
from xdsl.dialects.builtin import FunctionType, ModuleOp

from xdsl_multi.diagnostics import (
    EXIT_ERROR,
    EXIT_INTERNAL,
    CompileError,
    SourceFile,
    internal_error,
    parse_module,
    verify_ops,
)
from xdsl_multi.dialects import make_context
from xdsl_multi.levels import LevelError, detect_level
from xdsl_multi.runtime.executor import DEFAULT_RECV_TIMEOUT, ExecutionError
from xdsl_multi.runtime.interpreter.interpreter import (
    InterpreterError,
    argument_names,
    logical_signature,
    not_interpretable,
    run_module,
)
from xdsl_multi.runtime.program import Program
from xdsl_multi.runtime.schedule import ScheduleError
from xdsl_multi.tools.multi_run_mpi import QuietExit, run_mpi
from xdsl_multi.tools.result_check import first_mismatch, result_rtols
from xdsl_multi.tools.run_io import (
    TOOL_NAME,
    check_device_count,
    format_sharding,
    load_inputs,
    render_error,
    schedule_error,
)
from xdsl_multi.tools.run_pipeline import (
    Progress,
    Timings,
    lower_timed,
)

BACKENDS = ("threads", "mpi", "interp")
DEFAULT_BACKEND = "threads"
"""SPEC §6."""
DEFAULT_RUNS = 5
"""Steady-state runs timed by --time."""
PRINT_THRESHOLD = 200
"""Arrays with more elements are printed summarized (numpy's `...`)."""


class _ArgumentParser(argparse.ArgumentParser):
    """argparse, but a usage error is a CompileError (exit code 1), not SystemExit(2), and an
    option is only taken by its full name (`--random-input` is an error, not `--random-inputs`)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(allow_abbrev=False, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise CompileError(f"{message} (see {self.prog} --help)")


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, found '{text}'") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, found {text}")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, found '{text}'") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, found {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    p = _ArgumentParser(prog=TOOL_NAME, description="Run func.func @main of a multi-device module.")
    p.add_argument("file", help="the MLIR module to run")
    p.add_argument(
        "--backend",
        choices=BACKENDS,
        help=f"how to run it (default: {DEFAULT_BACKEND}); mpi runs under mpiexec -n N",
    )
    p.add_argument(
        "--devices",
        type=_positive,
        metavar="N",
        help="the number of devices; must match the program's device set",
    )
    p.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="NAME=FILE.npy",
        help="an argument's logical value; NAME is its SSA name without %% or argK",
    )
    p.add_argument(
        "--random-inputs",
        action="store_true",
        help="random values for the arguments not given with --input",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of --random-inputs (default 0)")
    p.add_argument(
        "--output",
        metavar="FILE.npz",
        help="write the results (result0, result1, ...) instead of printing them",
    )
    p.add_argument("--check", action="store_true", help="compare the backend with interp")
    p.add_argument(
        "--show-sharding",
        action="store_true",
        help="show which device holds which part of every argument and result",
    )
    p.add_argument(
        "--time",
        action="store_true",
        help="report parse, pass, codegen, first-run and steady-run times (stderr)",
    )
    p.add_argument(
        "--runs",
        type=_positive,
        default=DEFAULT_RUNS,
        metavar="K",
        help=f"steady-state runs timed by --time (default {DEFAULT_RUNS})",
    )
    p.add_argument(
        "--recv-timeout",
        type=_positive_float,
        default=DEFAULT_RECV_TIMEOUT,
        metavar="S",
        help=f"seconds a device waits for a message before the run fails "
        f"(default {DEFAULT_RECV_TIMEOUT:g})",
    )
    p.add_argument(
        "--spmd",
        action="store_true",
        help="SPMD mode: build and compile the kernels once for every device, with the device "
        "number as a kernel argument, instead of specializing the program per device",
    )
    p.add_argument("--entry", default="main", help=argparse.SUPPRESS)
    p.add_argument(
        "--show-traceback",
        action="store_true",
        help="on an internal error (exit code 2), also print the Python traceback",
    )
    return p


# ---------------------------------------------------------------------------------------------
# Outputs
# ---------------------------------------------------------------------------------------------


def write_npz(path: str, outputs: Sequence[np.ndarray]) -> None:
    """Write result0, result1, ... atomically: a temporary file in the same folder, renamed."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    except OSError as e:
        raise CompileError(f"cannot write output file '{path}': {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **{f"result{i}": out for i, out in enumerate(outputs)})
        os.replace(tmp, path)
    except OSError as e:
        raise CompileError(f"cannot write output file '{path}': {e.strerror or e}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def format_results(outputs: Sequence[np.ndarray], sig: FunctionType) -> str:
    lines = []
    for i, (out, t) in enumerate(zip(outputs, sig.outputs.data, strict=True)):
        lines.append(f"result{i}: {t}: shape {out.shape}, dtype {out.dtype}")
        lines.append(np.array2string(out, threshold=PRINT_THRESHOLD, max_line_width=100))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------------


def _read_source(path: str) -> SourceFile:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise CompileError(f"cannot read input file '{path}': {e.strerror or e}") from None
    return SourceFile.from_bytes(path, data)


def _check_output_path(output: str | None, inputs: Sequence[str]) -> None:
    if output is None:
        return
    out = os.path.realpath(output)
    for spec in inputs:
        path = spec.partition("=")[2]
        if path and os.path.realpath(path) == out:
            raise CompileError(f"output file '{output}' is also an input; inputs are never written")


class MultiRun:
    """One invocation; `run()` returns the exit code and raises only CompileError."""

    def __init__(self, argv: Sequence[str]) -> None:
        self.args = build_parser().parse_args(list(argv))
        self.source: SourceFile | None = None
        self.timings = Timings()
        self.peak_bytes: list[int] | None = None
        """Per device, the most bytes its schedule has live at once (compiled backends)."""

    def run(self) -> int:
        args = self.args
        _check_output_path(args.output, args.input)
        with self.timings("parse"):
            self.source = _read_source(args.file)
            module = parse_module(make_context(), self.source.text, self.source.name)
            verify_ops(module)
        try:
            level = detect_level(module)
            sig = logical_signature(module, args.entry)
            names = argument_names(module, args.entry)
        except (InterpreterError, LevelError) as e:
            raise CompileError(str(e)) from None
        backend = self.backend_for(module)
        if (backend == "interp" or args.check) and (why := not_interpretable(module)):
            raise CompileError(f"{'--check' if backend != 'interp' else '--backend interp'}: {why}")
        if backend == "mpi":
            return run_mpi(self, module, level, sig, names)
        inputs = load_inputs(args.input, names, sig, args.random_inputs, args.seed)
        if args.show_sharding:
            sys.stdout.write(format_sharding(module, sig, names, level))
        reference = module.clone() if args.check and backend != "interp" else None
        if backend == "interp":
            with self.timings("run"):
                outputs = run_interp(module, inputs, args.devices, args.entry)
        else:
            outputs = self.run_threads(module, inputs)
        self.finish(outputs, sig, backend, reference, inputs)
        return 0

    def backend_for(self, module: ModuleOp) -> str:
        return self.args.backend or DEFAULT_BACKEND

    def compile(self, module: ModuleOp, progress: Progress, **options: object) -> Program:
        """Lower `module` (in place) and compile it for the threads backend."""
        source = self.source.text if self.source is not None else None  # module's text
        ran = lower_timed(module, self.timings, progress, spmd=self.args.spmd, source=source)
        progress.stage("codegen")
        with self.timings("codegen"):
            try:
                program = Program(module, recv_timeout=self.args.recv_timeout, **options)  # type: ignore[arg-type]
            except ScheduleError as e:
                raise schedule_error(e, ran) from None
        check_device_count(program.num_devices, self.args.devices)
        return program

    def run_threads(self, module: ModuleOp, inputs: list[np.ndarray]) -> list[np.ndarray]:
        with Progress(TOOL_NAME, self.args.file) as progress:
            program = self.compile(module, progress)
        self.peak_bytes = program.peak_bytes
        with program:
            try:
                placed = program.place(inputs)
                with self.timings("first run"):
                    local = program.run_placed(placed)
                outputs = program.gather(local)
                if self.args.time:
                    steady = []
                    for _ in range(self.args.runs):
                        start = time.perf_counter()
                        program.run_placed(placed)
                        steady.append(time.perf_counter() - start)
                    self.add_steady(steady)
            except (ExecutionError, InterpreterError) as e:
                raise CompileError(str(e)) from None
        return outputs

    def add_steady(self, steady: Sequence[float]) -> None:
        self.timings.add(f"steady run min ({len(steady)} runs)", min(steady))
        self.timings.add(f"steady run median ({len(steady)} runs)", float(np.median(steady)))

    def finish(
        self,
        outputs: Sequence[np.ndarray],
        sig: FunctionType,
        backend: str,
        reference: ModuleOp | None,
        inputs: Sequence[np.ndarray],
    ) -> None:
        """Write or print the outputs, then --check and --time."""
        args = self.args
        if args.output is not None:
            write_npz(args.output, outputs)
        else:
            sys.stdout.write(format_results(outputs, sig))
        if args.check:
            if reference is None:
                sys.stdout.write("check: interp is the reference\n")
            else:
                with self.timings("check (interp)"):
                    expected = run_interp(reference, inputs, args.devices, args.entry)
                mismatch = first_mismatch(
                    list(outputs), expected, backend, result_rtols(reference, args.entry)
                )
                if mismatch is not None:
                    raise CompileError(f"check failed: {mismatch}")
                sys.stdout.write(f"check: {backend} matches interp ({len(expected)} results)\n")
        if args.time:
            sys.stderr.write(self.timings.format())
            if self.peak_bytes is not None:
                peaks = ", ".join(f"device {d} {b} B" for d, b in enumerate(self.peak_bytes))
                sys.stderr.write(f"memory: peak live buffers: {peaks}\n")


def run_interp(
    module: ModuleOp, inputs: Sequence[np.ndarray], devices: int | None, entry: str
) -> list[np.ndarray]:
    try:
        return run_module(module, inputs, num_devices=devices, entry=entry)
    except InterpreterError as e:
        raise CompileError(str(e)) from None


def run_multi_run(argv: Sequence[str] | None = None) -> int:
    """Run multi-run with the given arguments (default: sys.argv); return the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    show_traceback = "--show-traceback" in argv
    tool: MultiRun | None = None
    try:
        tool = MultiRun(argv)
        return tool.run()
    except QuietExit as e:
        return e.code
    except CompileError as e:
        _report(e, tool, show_traceback)
        return e.exit_code
    except KeyboardInterrupt:
        sys.stderr.write(f"{TOOL_NAME}: interrupted\n")
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_ERROR
    except Exception as e:  # noqa: BLE001 - a bug in the interpreter or this driver: exit 2
        _report(internal_error(f"internal error in {TOOL_NAME}", e), tool, show_traceback)
        return EXIT_INTERNAL


def _report(error: CompileError, tool: MultiRun | None, show_traceback: bool) -> None:
    sys.stdout.flush()
    sys.stderr.write(render_error(error, tool.source if tool else None, show_traceback))


def main() -> NoReturn:
    sys.exit(run_multi_run())


if __name__ == "__main__":
    main()

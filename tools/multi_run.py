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
from typing import NoReturn

import numpy as np
from xdsl.dialects.builtin import FunctionType, ModuleOp, TensorType
from xdsl.ir import Attribute

from xdsl_multi.dialects import make_context
from xdsl_multi.dialects.multi import OnAttr, ShardAttr, local_length, placement_of, shard_bounds
from xdsl_multi.levels import Level, LevelError, detect_level
from xdsl_multi.runtime.executor import DEFAULT_RECV_TIMEOUT, ExecutionError
from xdsl_multi.runtime.interpreter import (
    InterpreterError,
    argument_names,
    logical_signature,
    random_inputs,
    run_module,
)
from xdsl_multi.runtime.placement import prepare_input, program_devices
from xdsl_multi.runtime.program import Program
from xdsl_multi.runtime.schedule import ScheduleError
from xdsl_multi.tools.diagnostics import (
    EXIT_ERROR,
    EXIT_INTERNAL,
    CompileError,
    SourceFile,
    internal_error,
    parse_module,
    render,
    verify_ops,
)
from xdsl_multi.tools.multi_run_mpi import QuietExit
from xdsl_multi.tools.result_check import first_mismatch
from xdsl_multi.tools.run_pipeline import (
    Progress,
    Timings,
    lower_timed,
)

TOOL_NAME = "multi-run"
BACKENDS = ("threads", "mpi", "interp")
DEFAULT_BACKEND = "threads"
"""SPEC §6."""
DEFAULT_RUNS = 5
"""Steady-state runs timed by --time."""
PRINT_THRESHOLD = 200
"""Arrays with more elements are printed summarized (numpy's `...`)."""


class _ArgumentParser(argparse.ArgumentParser):
    """argparse, but a usage error is a CompileError (exit code 1), not SystemExit(2)."""

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
# Inputs
# ---------------------------------------------------------------------------------------------


NPY_MAGIC = b"\x93NUMPY"
ZIP_MAGIC = b"PK\x03\x04"


def _load_npy(path: str, name: str) -> np.ndarray:
    """A plain array from a .npy file (never unpickling), or a CompileError saying what is wrong."""
    try:
        with open(path, "rb") as f:
            magic = f.read(len(NPY_MAGIC))
            if magic.startswith(ZIP_MAGIC):
                raise CompileError(
                    f"input '{name}': '{path}' is an .npz archive; give one .npy file per input"
                )
            if magic != NPY_MAGIC:
                raise CompileError(f"input '{name}': '{path}' is not a valid .npy file")
            f.seek(0)
            return np.load(f, allow_pickle=False)
    except FileNotFoundError:
        raise CompileError(f"input '{name}': no such file '{path}'") from None
    except IsADirectoryError:
        raise CompileError(f"input '{name}': '{path}' is a directory") from None
    except OSError as e:
        raise CompileError(f"input '{name}': cannot read '{path}': {e.strerror or e}") from None
    except ValueError as e:
        if "allow_pickle" in str(e):
            raise CompileError(
                f"input '{name}': '{path}' holds a pickled object array; multi-run loads plain "
                "numeric arrays only (allow_pickle=False)"
            ) from None
        raise CompileError(f"input '{name}': '{path}' is not a valid .npy file: {e}") from None
    except EOFError:
        raise CompileError(f"input '{name}': '{path}' is truncated") from None


def load_inputs(
    specs: Sequence[str], names: Sequence[str], sig: FunctionType, random: bool, seed: int
) -> list[np.ndarray]:
    """The logical inputs from `--input NAME=FILE` (checked against the signature), with random
    values for the rest when asked."""
    types = sig.inputs.data
    given: dict[int, np.ndarray] = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            raise CompileError(f"--input expects NAME=FILE.npy, found '{spec}'")
        index = _argument_index(name, names)
        if index in given:
            raise CompileError(f"input '{name}' is given twice")
        array = _load_npy(path, name)
        what = f"input '{name}' ({path})"
        try:
            given[index] = prepare_input(types[index], array, what)
        except InterpreterError as e:
            raise CompileError(str(e)) from None
    missing = [i for i in range(len(types)) if i not in given]
    if missing and not random:
        listed = ", ".join(f"'{names[i]}' ({types[i]})" for i in missing)
        raise CompileError(
            f"missing input for {listed}; give --input NAME=FILE.npy or --random-inputs"
        )
    filler = random_inputs(sig, seed) if missing else []
    return [given[i] if i in given else filler[i] for i in range(len(types))]


def _argument_index(name: str, names: Sequence[str]) -> int:
    if name in names:
        return list(names).index(name)
    if name.startswith("arg") and name[3:].isdigit() and int(name[3:]) < len(names):
        return int(name[3:])
    known = ", ".join(names) if names else "none: @main takes no arguments"
    raise CompileError(f"unknown input name '{name}' (the arguments are: {known}; or argK)")


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
# --show-sharding
# ---------------------------------------------------------------------------------------------

BAR_WIDTH = 32


def _bar(length: int, lo: int, hi: int) -> str:
    """`|###.....|`: the owned rows of an axis of `length` rows, at most BAR_WIDTH characters."""
    width = min(length, BAR_WIDTH) or 1
    cells = []
    for c in range(width):
        start, end = c * length / width, (c + 1) * length / width
        cells.append("#" if lo < end and hi > start and hi > lo else ".")
    return "|" + "".join(cells) + "|"


def sharding_picture(label: str, t: Attribute, devices: Sequence[str], level: Level) -> list[str]:
    enc = placement_of(t)
    name_width = max((len(d) for d in devices), default=0)
    if isinstance(enc, ShardAttr) and isinstance(t, TensorType):
        axis, n = enc.axis_index, enc.num_devices
        length = t.get_shape()[axis]
        s = local_length(length, n)
        summary = f"  sharded on axis {axis} ({length} rows) over {n} devices, {s} rows per buffer"
        lines = [f"{label}: {t}", summary]
        for d in devices:
            if d not in enc.device_names:
                lines.append(f"  {d:<{name_width}}  -")
                continue
            lo, hi = shard_bounds(length, n, enc.device_names.index(d))
            rows = hi - lo
            note = "empty" if rows == 0 else f"{rows} row{'s' if rows != 1 else ''}"
            if s - rows:
                note += f" + {s - rows} padding"
            lines.append(f"  {d:<{name_width}}  rows [{lo}, {hi})  {_bar(length, lo, hi)}  {note}")
        return lines
    if isinstance(enc, OnAttr):
        kind = "one buffer per device" if enc.num_devices > 1 else "one device"
        lines = [
            f"{label}: {t}",
            f"  on {enc.num_devices} device{'s' if enc.num_devices > 1 else ''} ({kind})",
        ]
        for d in devices:
            if d in enc.device_names:
                i = enc.device_names.index(d)
                where = f"buffer {i} (logical [{i}])" if enc.num_devices > 1 else "the whole value"
                lines.append(f"  {d:<{name_width}}  {where}")
            else:
                lines.append(f"  {d:<{name_width}}  -")
        return lines
    if level is Level.MULTI:
        return [f"{label}: {t}", "  unplaced: a value of the one program"]
    return [f"{label}: {t}", "  unplaced: the same value on every device"]


def format_sharding(module: ModuleOp, sig: FunctionType, names: Sequence[str], level: Level) -> str:
    devices = program_devices(module)
    head = f"devices: {', '.join(devices)}" if devices else "devices: (no placed values)"
    lines = [head]
    for i, t in enumerate(sig.inputs.data):
        lines += sharding_picture(
            f"arg{i} %{names[i]}" if names[i] != f"arg{i}" else f"arg{i}", t, devices, level
        )
    for i, t in enumerate(sig.outputs.data):
        lines += sharding_picture(f"result{i}", t, devices, level)
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
        if backend == "mpi":
            from xdsl_multi.tools.multi_run_mpi import run_mpi

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
        ran = lower_timed(
            module, self.timings, progress, spmd=self.args.spmd, source=source
        )
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
                mismatch = first_mismatch(list(outputs), expected, backend)
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


def check_device_count(found: int, asked: int | None) -> None:
    if asked is not None and asked != found:
        raise CompileError(f"the program runs on {found} devices, but {asked} were asked for")


def schedule_error(e: ScheduleError, passes: Sequence[str]) -> CompileError:
    """The runtime cannot run the module: the input's fault when it was given at the kernel
    level, a bug of the passes when they made the host schedules (form-kernels ran)."""
    if "form-kernels" in passes:
        return internal_error(
            f"internal error: the pipeline ({', '.join(passes)}) made a "
            "program the runtime cannot run",
            e,
        )
    return CompileError(str(e))


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


def render_error(error: CompileError, source: SourceFile | None, show_traceback: bool) -> str:
    if error.python_traceback and not show_traceback:
        error.python_traceback = None
        error.notes.append(
            f"this is a bug; run {TOOL_NAME} again with --show-traceback for details"
        )
    return render(error, TOOL_NAME, source)


def _report(error: CompileError, tool: MultiRun | None, show_traceback: bool) -> None:
    sys.stdout.flush()
    sys.stderr.write(render_error(error, tool.source if tool else None, show_traceback))


def main() -> NoReturn:
    sys.exit(run_multi_run())


if __name__ == "__main__":
    main()

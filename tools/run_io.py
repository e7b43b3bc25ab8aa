"""multi-run's inputs, `--show-sharding` and error messages, shared by its threads and interp
path (multi_run.py) and its MPI path (multi_run_mpi.py), so that neither imports the other's
driver.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import FunctionType, ModuleOp, TensorType
from xdsl.ir import Attribute

from xdsl_multi.diagnostics import CompileError, SourceFile, internal_error, render
from xdsl_multi.dialects.multi import (
    OnAttr,
    ShardAttr,
    local_length,
    placement_of,
    program_devices,
    shard_bounds,
)
from xdsl_multi.levels import Level
from xdsl_multi.runtime.interpreter.interpreter import InterpreterError, random_inputs
from xdsl_multi.runtime.placement import prepare_input
from xdsl_multi.runtime.schedule import ScheduleError

TOOL_NAME = "multi-run"


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


def _mesh_picture(
    label: str, t: TensorType, enc: ShardAttr, devices: Sequence[str], name_width: int
) -> list[str]:
    """Each device's mesh coordinates and block (SPEC §1.1) of a mesh-sharded value."""
    shape = t.get_shape()
    mesh = "x".join(str(m) for m in enc.mesh_shape)
    axes = ", ".join("none" if a is None else str(a) for a in enc.mesh_axes)
    local = "x".join(str(n) for n in enc.local_shape(shape))
    lines = [f"{label}: {t}", f"  on a {mesh} device mesh, axes [{axes}], buffers {local}"]
    for d in devices:
        if d not in enc.device_names:
            lines.append(f"  {d:<{name_width}}  -")
            continue
        k = enc.device_names.index(d)
        block = " x ".join(f"[{lo}, {hi})" for lo, hi in enc.block(shape, k))
        lines.append(f"  {d:<{name_width}}  mesh {list(enc.coords(k))}  {block}")
    return lines


def sharding_picture(label: str, t: Attribute, devices: Sequence[str], level: Level) -> list[str]:
    enc = placement_of(t)
    name_width = max((len(d) for d in devices), default=0)
    if isinstance(enc, ShardAttr) and enc.is_mesh and isinstance(t, TensorType):
        return _mesh_picture(label, t, enc, devices, name_width)
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
# Errors
# ---------------------------------------------------------------------------------------------



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

def render_error(error: CompileError, source: SourceFile | None, show_traceback: bool) -> str:
    if error.python_traceback and not show_traceback:
        error.python_traceback = None
        error.notes.append(
            f"this is a bug; run {TOOL_NAME} again with --show-traceback for details"
        )
    return render(error, TOOL_NAME, source)

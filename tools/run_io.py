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
    split_bounds,
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


# The grid (like jax.debug.visualize_array_sharding): one box per block, sized by its extent.
GRID_WIDTH = 60  # characters of the cells in a row of the grid, borders not counted
GRID_LINES_PER_ROW = 3  # lines of the cells in a column of the grid, per row of cells
EMPTY_LABEL = "(empty)"


def proportional_sizes(extents: Sequence[int], budget: int, minimums: Sequence[int]) -> list[int]:
    """Integer sizes that share `budget` in proportion to `extents`, none below its minimum: a
    cell whose share is below its minimum (an empty block's share is 0) gets the minimum and
    the rest is shared again by the others; the fractions left go to the largest remainders
    (the first on a tie). The sizes exceed `budget` only when the minimums do."""
    sizes = list(minimums)
    free = list(range(len(extents)))
    remaining = budget
    while free:
        total = sum(extents[i] for i in free)
        if total == 0:
            break
        ideal = {i: remaining * extents[i] / total for i in free}
        clamped = [i for i in free if ideal[i] < minimums[i]]
        if clamped:
            remaining -= sum(minimums[i] for i in clamped)
            free = [i for i in free if i not in clamped]
            continue
        for i in free:
            sizes[i] = int(ideal[i])
        left = remaining - sum(sizes[i] for i in free)
        by_fraction = sorted(free, key=lambda i: (-(ideal[i] - sizes[i]), i))
        for i in by_fraction[:left]:
            sizes[i] += 1
        break
    return sizes


def _axis_blocks(enc: ShardAttr, axis: int | None) -> list[tuple[int, ...]]:
    """The blocks along a drawn tensor `axis`, in order: the mesh coordinates of the mesh dims
    that split it (major first); one block (no coordinates) where it is not split or not drawn."""
    if axis is None:
        return [()]
    blocks: list[tuple[int, ...]] = [()]
    for p in enc.parts_of(axis):
        blocks = [(*b, c) for b in blocks for c in range(p)]
    return blocks


def _extent(enc: ShardAttr, shape: Sequence[int], axis: int | None, coords: tuple[int, ...]) -> int:
    if axis is None:
        return 1
    lo, hi = split_bounds(shape[axis], enc.parts_of(axis), coords)
    return hi - lo


def _drawn_axes(enc: ShardAttr | OnAttr, rank: int) -> tuple[int | None, int | None]:
    """The tensor axes drawn down and across: a rank-2 value's axes 0 and 1; otherwise the first
    two split axes (in axis order), one split axis across, no axis for an unsplit value."""
    if rank == 2:
        return 0, 1
    split = sorted(enc.split_axes) if isinstance(enc, ShardAttr) else []
    if len(split) >= 2:
        return split[0], split[1]
    return None, (split[0] if split else None)


def _wrap(words: Sequence[str], width: int) -> list[str]:
    """`words` in lines of at most `width` characters (a longer word gets a line of its own)."""
    lines: list[str] = []
    for w in words:
        if lines and len(lines[-1]) + 1 + len(w) <= width:
            lines[-1] += " " + w
        else:
            lines.append(w)
    return lines


def _axes_line(
    shape: Sequence[int], down: int | None, across: int | None, hidden: Sequence[int]
) -> str:
    """`grid: ...`: which tensor axes the grid draws, which are whole in every cell, and which
    are split but not drawn (`hidden`: a cell then lists the devices of all its blocks)."""

    def named(axis: int, unit: str) -> str:
        return f"axis {axis} ({shape[axis]} {unit}{'s' if shape[axis] != 1 else ''})"

    drawn = []
    if down is not None:
        drawn.append(f"{named(down, 'row')} down")
    if across is not None:
        drawn.append(f"{named(across, 'column' if down is not None else 'row')} across")
    text = "grid: " + (", ".join(drawn) if drawn else "one cell")
    whole = [i for i in range(len(shape)) if i not in (down, across, *hidden)]
    for axes, what in ((whole, "whole"), (hidden, "split, not drawn: a cell lists its blocks")):
        if axes:
            listed = ", ".join(str(a) for a in axes)
            text += f"; axis {listed} {what}" if len(axes) == 1 else f"; axes {listed} {what}"
    return text


def sharding_grid(t: TensorType, enc: ShardAttr | OnAttr) -> list[str]:
    """A box-drawn grid of the blocks of a placed value: a line naming the drawn tensor axes,
    then one cell per block, its columns and lines in proportion to the block's extent along
    the axes drawn across and down (SPEC §1.1 bounds, from `split_bounds`), labelled with the
    devices that hold it (the replicas along `none` mesh dims share a cell), an empty block
    labelled `(empty)`. A `#multi.on` value is one cell listing every device; a mesh that
    splits more than two tensor axes lists, in a cell, the devices of every block along the
    axes not drawn (said on the first line)."""
    shape = t.get_shape()
    down, across = _drawn_axes(enc, len(shape))
    hidden = (
        []
        if isinstance(enc, OnAttr)
        else [a for a in sorted(enc.split_axes) if a not in (down, across)]
    )
    lines = [_axes_line(shape, down, across, hidden)]
    # a cell: the block coordinates along the axis drawn down and the axis drawn across
    holders: dict[tuple[tuple[int, ...], tuple[int, ...]], list[str]]
    empty: dict[tuple[tuple[int, ...], tuple[int, ...]], bool]
    if isinstance(enc, OnAttr):
        row_blocks: list[tuple[int, ...]] = [()]
        col_blocks: list[tuple[int, ...]] = [()]
        heights_of, widths_of = [1], [1]
        holders = {((), ()): list(enc.device_names)}
        empty = {((), ()): any(n == 0 for n in shape)}
    else:
        row_axis = down if down is not None and enc.dims_of(down) else None
        col_axis = across if across is not None and enc.dims_of(across) else None
        row_blocks = _axis_blocks(enc, row_axis)
        col_blocks = _axis_blocks(enc, col_axis)
        heights_of = [_extent(enc, shape, row_axis, b) for b in row_blocks]
        widths_of = [_extent(enc, shape, col_axis, b) for b in col_blocks]
        holders = {(r, c): [] for r in row_blocks for c in col_blocks}
        empty = {}
        for k, d in enumerate(enc.device_names):
            co = enc.coords(k)
            r = tuple(co[j] for j in enc.dims_of(row_axis)) if row_axis is not None else ()
            c = tuple(co[j] for j in enc.dims_of(col_axis)) if col_axis is not None else ()
            holders[(r, c)].append(d)
            is_empty = any(lo == hi for lo, hi in enc.block(shape, k))
            empty[(r, c)] = empty.get((r, c), True) and is_empty
    names = [d for ds in holders.values() for d in ds]
    min_width = max(len(EMPTY_LABEL), *(len(d) for d in names))
    widths = proportional_sizes(widths_of, GRID_WIDTH, [min_width] * len(col_blocks))
    labels = {
        (r, c): _wrap([*holders[(r, c)], *([EMPTY_LABEL] if empty[(r, c)] else [])], widths[j])
        for r in row_blocks
        for j, c in enumerate(col_blocks)
    }
    min_lines = [max(len(labels[(r, c)]) for c in col_blocks) for r in row_blocks]
    heights = proportional_sizes(heights_of, GRID_LINES_PER_ROW * len(row_blocks), min_lines)

    def rule(left: str, mid: str, right: str) -> str:
        return left + mid.join("─" * w for w in widths) + right

    lines.append(rule("┌", "┬", "┐"))
    for i, r in enumerate(row_blocks):
        if i:
            lines.append(rule("├", "┼", "┤"))
        for line in range(heights[i]):
            cells = []
            for j, c in enumerate(col_blocks):
                label = labels[(r, c)]
                first = (heights[i] - len(label)) // 2
                text = label[line - first] if 0 <= line - first < len(label) else ""
                cells.append(text.center(widths[j]))
            lines.append("│" + "│".join(cells) + "│")
    lines.append(rule("└", "┴", "┘"))
    return ["  " + line for line in lines]


def sharding_picture(label: str, t: Attribute, devices: Sequence[str], level: Level) -> list[str]:
    """The grid of a placed value's blocks (`sharding_grid`) between its summary and the
    listing of every device's block."""
    lines = _sharding_listing(label, t, devices, level)
    enc = placement_of(t)
    if enc is None or not isinstance(t, TensorType):
        return lines
    return lines[:2] + sharding_grid(t, enc) + lines[2:]


def _sharding_listing(label: str, t: Attribute, devices: Sequence[str], level: Level) -> list[str]:
    """The value's type, a summary line, then one line per device of the program: what it holds."""
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

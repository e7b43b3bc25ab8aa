"""`multi-run --show-sharding`'s grid (issue 15): the cells' widths and heights follow the blocks'
extents, which the tests compute with `split_bounds` (SPEC §1.1), and each cell is labelled with
the devices whose block it is. The exact pictures are pinned by test/lit/tools/show-sharding-*."""

from __future__ import annotations

from xdsl.dialects.builtin import Float32Type, TensorType

from xdsl_multi.dialects.multi import MeshAxis, OnAttr, ShardAttr, split_bounds
from xdsl_multi.tools.run_io import (
    EMPTY_LABEL,
    GRID_LINES_PER_ROW,
    GRID_WIDTH,
    proportional_sizes,
    sharding_grid,
)


def devs(n: int) -> list[str]:
    return [f"CPU:{i}" for i in range(n)]


def mesh_type(shape: list[int], mesh: list[int], axes: list[MeshAxis]) -> TensorType:
    n = 1
    for m in mesh:
        n *= m
    return TensorType(Float32Type(), shape, ShardAttr(devs(n), mesh=mesh, axes=axes))


def parse_grid(lines: list[str]) -> tuple[list[int], list[int], list[list[str]]]:
    """The widths of the grid's columns, the heights of its rows (in lines) and each cell's
    label words (row-major), read back from the drawn picture (after its `grid:` line)."""
    assert lines[0].startswith("  grid: ")
    body = [line.strip() for line in lines[1:]]
    assert body[0].startswith("┌") and body[-1].startswith("└")
    widths = [len(seg) for seg in body[0][1:-1].split("┬")]
    heights: list[int] = []
    labels: list[list[str]] = []
    run: list[list[str]] = []  # the content lines of the current row of cells
    for line in body[1:]:
        if line.startswith(("├", "└")):
            assert [len(seg) for seg in line[1:-1].split("┼" if line[0] == "├" else "┴")] == widths
            heights.append(len(run))
            labels += [[w for r in run for w in r[j].split()] for j in range(len(widths))]
            run = []
        else:
            cells = line[1:-1].split("│")
            assert [len(c) for c in cells] == widths
            run.append(cells)
    return widths, heights, labels


def extents(length: int, parts: tuple[int, ...]) -> list[int]:
    """The blocks' extents along an axis of `length` split by mesh dims of sizes `parts`."""
    coords: list[tuple[int, ...]] = [()]
    for p in parts:
        coords = [(*c, i) for c in coords for i in range(p)]
    return [hi - lo for lo, hi in (split_bounds(length, parts, c) for c in coords)]


def assert_proportional(sizes: list[int], ext: list[int], budget: int) -> None:
    assert sum(sizes) == budget
    for size, e in zip(sizes, ext, strict=True):
        assert abs(size - budget * e / sum(ext)) < 1, (sizes, ext)


def test_cells_follow_uneven_extents_on_both_axes() -> None:
    # mesh dim 0 (3) splits tensor axis 1, mesh dim 1 (2) splits tensor axis 0
    t = mesh_type([9, 40], [3, 2], [1, 0])
    widths, heights, labels = parse_grid(sharding_grid(t, t.encoding))
    cols, rows = extents(40, (3,)), extents(9, (2,))
    assert cols == [14, 14, 12] and rows == [5, 4]
    assert_proportional(widths, cols, GRID_WIDTH)
    assert_proportional(heights, rows, GRID_LINES_PER_ROW * 2)
    # cell (row i, column j) is the block of the device at mesh coordinates (j, i)
    assert labels == [[f"CPU:{j * 2 + i}"] for i in range(2) for j in range(3)]


def test_two_mesh_dims_on_one_axis_give_a_cell_per_block() -> None:
    t = mesh_type([5, 3], [2, 2], [0, 0])
    widths, heights, labels = parse_grid(sharding_grid(t, t.encoding))
    rows = extents(5, (2, 2))
    assert rows == [2, 1, 1, 1]
    assert widths == [GRID_WIDTH]
    assert_proportional(heights, rows, GRID_LINES_PER_ROW * 4)
    assert heights[0] > heights[1]
    assert labels == [[d] for d in devs(4)]


def test_empty_blocks_keep_a_labelled_cell() -> None:
    t = TensorType(Float32Type(), [2, 4], ShardAttr(devs(3), 1))
    widths, _, labels = parse_grid(sharding_grid(t, t.encoding))
    assert extents(4, (3,)) == [2, 2, 0]
    # the empty block's cell is as wide as its label; the others share the rest
    assert widths[2] == len(EMPTY_LABEL)
    assert_proportional(widths[:2], [2, 2], GRID_WIDTH - len(EMPTY_LABEL))
    assert labels == [["CPU:0"], ["CPU:1"], ["CPU:2", EMPTY_LABEL]]


def test_replicas_share_a_cell_and_on_is_one_cell() -> None:
    t = mesh_type([4, 6], [2, 2], [None, 1])
    widths, _, labels = parse_grid(sharding_grid(t, t.encoding))
    assert_proportional(widths, extents(6, (2,)), GRID_WIDTH)
    assert labels == [["CPU:0", "CPU:2"], ["CPU:1", "CPU:3"]]
    on = TensorType(Float32Type(), [3], OnAttr(devs(5)))
    widths, heights, labels = parse_grid(sharding_grid(on, on.encoding))
    assert widths == [GRID_WIDTH] and heights == [GRID_LINES_PER_ROW]
    assert labels == [devs(5)]


def test_proportional_sizes_respects_minimums() -> None:
    assert proportional_sizes([1, 1], 60, [5, 5]) == [30, 30]
    # the small block is clamped to its minimum, the rest is shared by the others
    assert proportional_sizes([100, 1, 99], 60, [5, 5, 5]) == [28, 5, 27]
    assert proportional_sizes([2, 0, 2], 27, [7, 7, 7]) == [10, 7, 10]
    # minimums that exceed the budget win
    assert proportional_sizes([1, 1, 1], 10, [5, 5, 5]) == [5, 5, 5]
    assert proportional_sizes([0, 0], 10, [3, 4]) == [3, 4]

"""tinygrad's per-device coordinates as a device mesh (SPEC §1.1).

tinygrad 0.14.0 shards a tensor on several axes by giving each sharded axis its own function of
the one device number d = `RANGE(n, DEVICE)`: tinygrad's `Test2DShard` shards a 4x4 tensor on 4
devices with `UNSHARD(x, d // 2, d % 2)` (axis 0 by d // 2, axis 1 by d % 2), each device's
buffer cut from a copy by `SHRINK`s starting at `(d // 2) * 2` and `(d % 2) * 2`. Such a
function is a mesh dim when it is one digit of d in a mixed radix: `coords[d] == d // stride %
count`. The digits are the mesh dims, the largest stride first (row-major: SPEC §1.1 numbers
the device at position k by k's digits), and the digits no axis uses are `none` dims (the value
is replicated along them): `d // 4` on 8 devices is `mesh = [2, 4], axes = [0, none]`.

tinygrad splits evenly only (its `_shard` rejects a length that the count does not divide, and
an UNSHARD's length is count times the local length), so its blocks are §1.1's blocks; `mesh_of`
checks that with `ShardAttr.block` anyway.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl_multi.dialects.multi import MeshAxis, ShardAttr
from xdsl_multi.frontends.tinygrad.errors import UnsupportedGraph


@dataclass(frozen=True)
class Split:
    """Tensor `axis` cut in `count` equal parts; device d holds part `coords[d]`."""

    axis: int
    count: int
    coords: tuple[int, ...]


def _stride(split: Split, n: int) -> int | None:
    """The stride of the digit of d that `split.coords` is (the largest one, for a count of 1)."""
    for stride in range(n, 0, -1):
        if n % (stride * split.count) == 0 and all(
            c == d // stride % split.count for d, c in enumerate(split.coords)
        ):
            return stride
    return None


def mesh_of(splits: Sequence[Split], n: int, op: str) -> tuple[list[int], list[MeshAxis]]:
    """The mesh and axes on which n devices hold the parts `splits` give them (SPEC §1.1);
    UnsupportedGraph naming `op` when the coordinates are not digits of the device number."""
    digits: list[tuple[int, Split]] = []
    for split in splits:
        stride = _stride(split, n)
        if stride is None:
            raise UnsupportedGraph(
                op,
                f"sharding on a device mesh: the parts of axis {split.axis} over the {n} devices"
                f", {list(split.coords)} of {split.count}, are not one digit of the device number",
            )
        digits.append((stride, split))
    digits.sort(key=lambda x: -x[0])
    mesh: list[int] = []
    axes: list[MeshAxis] = []
    top = n  # the stride above the next digit
    for stride, split in digits:
        span = stride * split.count
        if top % span:
            raise UnsupportedGraph(
                op,
                f"sharding on a device mesh: the parts of axes {[s.axis for s in splits]} overlap",
            )
        if top != span:
            mesh.append(top // span)
            axes.append(None)
        mesh.append(split.count)
        axes.append(split.axis)
        top = stride
    if top > 1:
        mesh.append(top)
        axes.append(None)
    return mesh, axes


def splits_of(
    shape: Sequence[int], blocks: Sequence[Sequence[tuple[int, int]]], op: str
) -> list[Split]:
    """The splits under which device d holds rows `blocks[d]` of every axis of `shape` (equal
    parts); UnsupportedGraph naming `op` for rows that are not equal parts of an axis."""
    splits: list[Split] = []
    for axis, length in enumerate(shape):
        spans = [b[axis] for b in blocks]
        if all(s == (0, length) for s in spans):
            continue
        part = spans[0][1] - spans[0][0]
        if part <= 0 or length % part or any(hi - lo != part or lo % part for lo, hi in spans):
            raise UnsupportedGraph(
                op,
                f"device-dependent bounds outside the shard pattern: rows {spans} of axis {axis}",
            )
        splits.append(Split(axis, length // part, tuple(lo // part for lo, _ in spans)))
    if not splits:
        raise UnsupportedGraph(op, "device-dependent bounds that keep every axis whole")
    return splits


def mesh_attr(
    devices: Sequence[str], shape: Sequence[int], splits: Sequence[Split], op: str
) -> ShardAttr:
    """The encoding of the logical `shape` on `devices` (device d at position d) that gives
    every device the parts `splits` give it (the one-axis form for a 1-D mesh)."""
    mesh, axes = mesh_of(splits, len(devices), op)
    attr = ShardAttr(list(devices), mesh=mesh, axes=axes)
    for d in range(len(devices)):
        want = [(0, n) for n in shape]
        for s in splits:
            part = shape[s.axis] // s.count
            want[s.axis] = (s.coords[d] * part, (s.coords[d] + 1) * part)
        if attr.block(shape, d) != tuple(want):
            raise UnsupportedGraph(
                op, f"sharding on a device mesh: no mesh gives device {d} rows {want}"
            )
    return attr

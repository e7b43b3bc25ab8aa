"""The views of a sharded value over a device mesh (SPEC §1.1) as index arithmetic of the
device's position k in the encoding's list: its mesh coordinates (k's digits, row-major), the
rows [lo, hi) of each split axis (`split_bounds`' nested ceil rule), and `local`, `global` and
`clean` per split axis (docs/spmd-form.md).

A one-axis shard (`axis = a`) is the 1-D mesh `[N]`: one split axis cut by one mesh dim, whose
coordinate is k itself, so its views are exactly `SpmdBuilder.local/global_/clean` of its
`ShardGeometry`. A tensor axis cut by several mesh dims is cut by the first one by that same
static rule (ceil(L / p0) rows), then, inside that part (of its actual, d-dependent length),
by each further mesh dim with d-dependent bounds and a static local length
(`SpmdBuilder.window` / `unwindow`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from xdsl_multi.dialects.multi import ShardAttr, split_local_length
from xdsl_multi.transforms.multi_to_devidx.spmd_builder import Index, ShardGeometry, SpmdBuilder


@dataclass(frozen=True)
class SplitAxis:
    """Tensor axis `axis` (logical length `length`) cut by the mesh dims `dims` (major first)
    of sizes `parts`."""

    axis: int
    length: int
    dims: tuple[int, ...]
    parts: tuple[int, ...]

    @property
    def first(self) -> ShardGeometry:
        """The cut by the major mesh dim: SPEC §1's rule over parts[0] devices."""
        return ShardGeometry(self.axis, self.length, self.parts[0])

    def level_lengths(self) -> list[int]:
        """The static local length after each cut (the last one is the local buffer's)."""
        return [
            split_local_length(self.length, self.parts[: i + 1]) for i in range(len(self.parts))
        ]

    def inner_cuts(self, b: SpmdBuilder, coords: Sequence[Index]) -> list[tuple[Index, Index]]:
        """(lo, n) of every cut after the first, relative to the part the previous cut kept:
        that part's rows [lo, lo + n) (split_bounds with each part's actual length)."""
        if len(self.parts) == 1:
            return []
        s0 = self.first.s
        lo0 = b.minimum(b.mul(coords[self.dims[0]], s0), self.length)
        n: Index = b.minimum(b.sub(self.length, lo0), s0)
        out: list[tuple[Index, Index]] = []
        for dim, p in zip(self.dims[1:], self.parts[1:], strict=True):
            c = coords[dim]
            s = b.ceil_div(n, p)
            lo = b.minimum(b.mul(c, s), n)
            hi = b.minimum(b.mul(b.add(c, 1), s), n)
            out.append((lo, b.sub(hi, lo)))
            n = b.sub(hi, lo)
        return out


@dataclass(frozen=True)
class MeshGeometry:
    """How a logical tensor type is laid out over a mesh: its split axes (in axis order)."""

    mesh: tuple[int, ...]
    splits: tuple[SplitAxis, ...]

    @staticmethod
    def of(t: TensorType, enc: ShardAttr) -> MeshGeometry:
        shape = t.get_shape()
        splits = tuple(
            SplitAxis(a, shape[a], enc.dims_of(a), enc.parts_of(a)) for a in sorted(enc.split_axes)
        )
        return MeshGeometry(enc.mesh_shape, splits)

    def coords(self, b: SpmdBuilder, k: Index) -> list[Index]:
        """Position k's mesh coordinates: k's digits in the mixed radix of the mesh (row-major;
        the major digit needs no remainder, k < the device count)."""
        out: list[Index] = []
        stride = math.prod(self.mesh)
        for i, m in enumerate(self.mesh):
            stride //= m
            digit = b.div(k, stride)
            out.append(digit if i == 0 else b.rem(digit, m))
        return out

    def position(self, b: SpmdBuilder, coords: Sequence[Index]) -> Index:
        """The position of the device at mesh `coords` (the inverse of `coords`)."""
        k: Index = 0
        for c, m in zip(coords, self.mesh, strict=True):
            k = b.add(b.mul(k, m), c)
        return k

    def local(self, b: SpmdBuilder, x: SSAValue, k: Index) -> SSAValue:
        """The local buffer (ceil lengths on every split axis) of position k's block of x."""
        coords = self.coords(b, k)
        for sp in self.splits:
            x = b.local(x, sp.first, coords[sp.dims[0]])
            sizes = sp.level_lengths()
            for (lo, n), size in zip(sp.inner_cuts(b, coords), sizes[1:], strict=True):
                x = b.window(x, sp.axis, lo, n, size)
        return x

    def global_(self, b: SpmdBuilder, x: SSAValue, k: Index) -> SSAValue:
        """The logical-shape value holding local buffer x as position k's block, Invalid
        elsewhere."""
        coords = self.coords(b, k)
        for sp in self.splits:
            sizes = sp.level_lengths()
            cuts = sp.inner_cuts(b, coords)
            for (lo, n), outer in reversed(list(zip(cuts, sizes[:-1], strict=True))):
                x = b.unwindow(x, sp.axis, lo, n, outer)
            x = b.global_(x, sp.first, coords[sp.dims[0]])
        return x

    def clean(self, b: SpmdBuilder, x: SSAValue, k: Index) -> SSAValue:
        """x with every lane outside position k's block made Invalid."""
        return self.global_(b, self.local(b, x, k), k)

    def local_shape(self, shape: Sequence[int]) -> list[int]:
        out = list(shape)
        for sp in self.splits:
            out[sp.axis] = sp.level_lengths()[-1]
        return out

"""The hierarchical allreduce over several mesh dims (SPEC §1.1, `allreduce=hierarchical`), as
tinygrad's multi-rank allreduce: reduce inside each group of devices that differ only in the
MINOR reduced mesh dims, allreduce across the group leaders (coordinate 0 on those dims) along
the MAJOR reduced dim, broadcast back inside each group.

A reduce over mesh dims D = [d0, d1, ..] (d0 the major one) of a mesh whose reduce groups hold
G = m_d0 * g devices (g = the product of the minor dims' sizes), per reduce group, after
specialize-devices (messages of the whole buffer):

| step | who | messages |
|---|---|---|
| 1. `MinorGroupReducesToLeader` | each leader fetches its g - 1 minor-group members | m_d0 (g - 1) |
| 2. `LeadersAllreduce` | each leader fetches the other m_d0 - 1 leaders (naive) | m_d0 (m_d0 - 1) |
| 3. `LeaderBroadcastsToGroup` | each member fetches its leader's total | m_d0 (g - 1) |

against the naive G (G - 1): on a 2x2 mesh reduced over both dims, 2 + 2 + 2 = 6 messages
instead of 12; on 2x2x2 over all three dims (m_d0 = 2, g = 4), 6 + 2 + 6 = 14 instead of 56.
Steps 1 and 2 are masked to the leaders, so after specialize-devices the non-leaders' fetches
of them are Invalid and vanish. Floats add in the order (group sums, then across leaders).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from xdsl_multi.dialects.multi import ReduceKind, ShardAttr
from xdsl_multi.transforms.multi_to_devidx.lowering_state import FunctionLowering, mesh_geometry
from xdsl_multi.transforms.multi_to_devidx.spmd_builder import Index, SpmdBuilder


class MeshGroups:
    """d's mesh coordinates and the device numbers of the devices at other coordinates."""

    def __init__(self, low: FunctionLowering, b: SpmdBuilder, t: TensorType, enc: ShardAttr):
        self.low, self.b, self.enc = low, b, enc
        self.geometry = mesh_geometry(t, enc)
        self.coords = self.geometry.coords(b, low.clamped_position(b, enc.device_names))

    def device(self, changes: dict[int, Index]) -> Index:
        """The device number at d's coordinates with the mesh dims in `changes` replaced."""
        coords = [changes.get(i, c) for i, c in enumerate(self.coords)]
        pos = self.geometry.position(self.b, coords)
        return self.low.device_at(self.b, self.enc.device_names, pos)

    def members(self, dims: Sequence[int], fixed: dict[int, Index] | None = None) -> list[Index]:
        """The devices differing from d only on `dims` (in position order), with the mesh dims
        in `fixed` set as given."""
        mesh = self.enc.mesh_shape
        out: list[Index] = []
        for combo in itertools.product(*(range(mesh[i]) for i in dims)):
            out.append(self.device({**(fixed or {}), **dict(zip(dims, combo, strict=True))}))
        return out

    def mask_leader(self, dims: Sequence[int], x: SSAValue) -> SSAValue:
        """x on the devices with coordinate 0 on every mesh dim of `dims`, Invalid elsewhere
        (nested masks: devidx-simplify folds each one, not an `andi` of them)."""
        for i in dims:
            x = self.b.mask(self.b.eq(self.coords[i], 0), x)
        return x


def lower_hierarchical_allreduce(
    low: FunctionLowering,
    b: SpmdBuilder,
    kind: ReduceKind,
    x: SSAValue,
    t: TensorType,
    enc: ShardAttr,
    dims: Sequence[int],
) -> SSAValue:
    """Every device gets the `kind` reduction of x over its group on mesh `dims` (at least two,
    major first), by the three steps of the module docstring."""
    assert len(dims) >= 2
    major, minor = dims[0], list(dims[1:])
    g = MeshGroups(low, b, t, enc)
    zeros: dict[int, Index] = dict.fromkeys(minor, 0)
    group_total = _reduce_fetched(b, kind, x, g.members(minor))
    group_total = g.mask_leader(minor, b.stored(group_total))
    total = _reduce_fetched(b, kind, group_total, g.members([major], zeros))
    total = g.mask_leader(minor, total)
    return b.fetch(total, g.device(zeros))


def _reduce_fetched(
    b: SpmdBuilder, kind: ReduceKind, x: SSAValue, sources: Sequence[Index]
) -> SSAValue:
    total: SSAValue | None = None
    for src in sources:
        piece = b.fetch(x, src)
        total = piece if total is None else b.combine(kind, total, piece)
    assert total is not None
    return total

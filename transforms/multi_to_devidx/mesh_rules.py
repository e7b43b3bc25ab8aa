"""multi-to-devidx's rules for device meshes (SPEC §1.1) where the one-axis rules do not carry
over: copies from or to a mesh encoding and a shrink that selects one block of a split axis.
(MULTI, LOCAL, arguments, results, `clean` and reduces handle meshes through
mesh_geometry.py; their rules are the one-axis ones.)

| multi level | SPMD form | rule |
|---|---|---|
| COPY on(D) -> mesh(D) | the first replica's `stored(x)`, `clean`ed: no traffic without `none` dims | `CopyOnToMeshKeepsSlices` |
| COPY mesh(D) -> mesh(D), the destination's splits refine the source's | `clean(stored(x))`: nothing moves | `CopyRefiningMeshKeepsBlocks` |
| COPY with a mesh on either side | shifted fetches of the blocks that change owner | `CopyWithMeshFetchesMissingBlocks` |
| shrink selecting one block of mesh dims | the shrink fetched from the block's owner in d's group | `ShrinkOfOneMeshBlockFetchesFromOwner` |
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from xdsl_multi.dialects import multi, tg
from xdsl_multi.dialects.multi import CopyKind, OnAttr, ShardAttr, copy_kind, placement_of
from xdsl_multi.transforms.multi_to_devidx.copy_rules import CopyKeepingSliceCleans, CopyRule
from xdsl_multi.transforms.multi_to_devidx.lowering_state import (
    FunctionLowering,
    MultiRule,
    map_bounds,
    mesh_geometry,
    strip_encoding,
)
from xdsl_multi.transforms.multi_to_devidx.spmd_builder import Index, SpmdBuilder
from xdsl_multi.transforms.value_facts import may_hold_invalid


def _is_mesh(p: OnAttr | ShardAttr | None) -> bool:
    return isinstance(p, ShardAttr) and p.is_mesh


class CopyOnToMeshKeepsSlices(MultiRule[multi.CopyOp]):
    """COPY of a many-device `#multi.on` value to a mesh on the same devices (KEEP_SLICE):
    every device keeps its block of its own buffer; along `none` mesh dims the first
    replica's buffer stands for the logical value, so replicas fetch its block."""

    op_type = multi.CopyOp

    def applies(self, low: FunctionLowering, op: multi.CopyOp) -> bool:
        c = CopyRule.of(op)
        return _is_mesh(c.dst) and copy_kind(c.src_t, c.dst_t) is CopyKind.KEEP_SLICE

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: multi.CopyOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        c = CopyRule.of(op)
        assert isinstance(c.dst, ShardAttr)
        x = b.stored(operands[0])
        if None in c.dst.mesh_axes:
            x = b.fetch(x, low.first_replica(b, c.dst_t, c.dst))
        return [low.clean(b, x, c.dst_t, c.dst)]


class CopyRefiningMeshKeepsBlocks(CopyKeepingSliceCleans):
    """COPY between two encodings of one mesh (same devices, same order, same mesh shape)
    where the destination's split of every tensor axis refines the source's (the source's
    mesh dims for that axis are a prefix of the destination's; `none` -> split included):
    every device's destination block lies inside its source block, so nothing moves and the
    result is the source's value `clean`ed to the destination block (examples/
    mesh_matmul.mlir's operand copies; lowered as CopyKeepingSliceCleans). No fetch: the SPMD form does not carry the
    shifted pieces of a large (expanded) operand until specialize-devices drops them."""

    op_type = multi.CopyOp

    def applies(self, low: FunctionLowering, op: multi.CopyOp) -> bool:
        c = CopyRule.of(op)
        src, dst = c.src, c.dst
        if not (_is_mesh(src) and _is_mesh(dst)):
            return False
        assert isinstance(src, ShardAttr) and isinstance(dst, ShardAttr)
        if src.device_names != dst.device_names or src.mesh_shape != dst.mesh_shape:
            return False
        rank = len(c.dst_t.get_shape())
        return all(
            dst.dims_of(a)[: len(src.dims_of(a))] == src.dims_of(a) for a in range(rank)
        )


class CopyWithMeshFetchesMissingBlocks(MultiRule[multi.CopyOp]):
    """Any other COPY from or to a mesh encoding: each destination device fetches only the
    parts of its block (a `#multi.on` destination: the whole value) that it does not hold.

    The source's logical value is held in blocks, each by its first replica (a one-device or
    `#multi.on` source: its first device's buffer, one block). For each shift t, device j
    sends device r = (j + t) mod N the part of its block that r's destination block needs,
    when j is its block's first replica and r holds no copy of that block; t = 0 is the part
    of its own block r keeps. r adds what it receives (stored: the parts are disjoint) and
    `clean`s it to its block. After specialize-devices only the pairs whose blocks overlap
    remain messages (tested: test/transforms/test_mesh_lowering.py)."""

    op_type = multi.CopyOp

    def applies(self, low: FunctionLowering, op: multi.CopyOp) -> bool:
        c = CopyRule.of(op)
        return _is_mesh(c.src) or _is_mesh(c.dst)

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: multi.CopyOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        c = CopyRule.of(op)
        n = len(low.devices)
        own, holders = self._own_block(low, b, c, operands[0])
        total: SSAValue | None = None
        for t in range(n):
            r = b.shift(t)
            part = self._needed_by(low, b, c, own, r)
            if t != 0 and holders != list(range(n)):
                # d sends when it is its block's first replica and r holds no copy of it
                first = b.eq(b.table_at(b.d, holders), b.d)
                part = b.mask(first, b.mask(b.ne(b.table_at(r, holders), b.d), part))
            piece = b.fetch(part, b.shift(-t))  # t = 0: from d itself (stored, no message)
            total = piece if total is None else b.combine(multi.ReduceKind.ADD, total, piece)
        assert total is not None
        if isinstance(c.dst, ShardAttr):
            total = low.clean(b, total, c.dst_t, c.dst)
        return [b.mask(low.member(b, c.dst.device_names), total)]

    @staticmethod
    def _own_block(
        low: FunctionLowering, b: SpmdBuilder, c: CopyRule, x: SSAValue
    ) -> tuple[SSAValue, list[int]]:
        """(d's block of the source's logical value, Invalid elsewhere and off the source's
        devices; for each device number r, the first replica of the block r holds, N when r
        holds none)."""
        n = len(low.devices)
        if isinstance(c.src, OnAttr):
            root = low.number[c.src.device_names[0]]
            return b.mask(b.eq(b.d, root), x), [root if i == root else n for i in range(n)]
        src, src_t = c.src, c.src_t
        own = b.mask(low.member(b, src.device_names), low.clean(b, x, src_t, src))
        firsts = [n] * n
        for k, name in enumerate(src.device_names):
            first = [
                0 if a is None else co for co, a in zip(src.coords(k), src.mesh_axes, strict=True)
            ]
            firsts[low.number[name]] = low.number[src.device_names[_position(src, first)]]
        return own, firsts

    @staticmethod
    def _needed_by(
        low: FunctionLowering, b: SpmdBuilder, c: CopyRule, own: SSAValue, r: Index
    ) -> SSAValue:
        """The part of `own` that device r's destination block needs (all of it for a
        `#multi.on` destination)."""
        if isinstance(c.dst, OnAttr):
            return own
        n = len(low.devices)
        table = [len(c.dst.device_names) - 1] * n
        for k, name in enumerate(c.dst.device_names):
            table[low.number[name]] = k
        k_r = b.table_at(r, table)
        return mesh_geometry(c.dst_t, c.dst).clean(b, own, k_r)


def _position(enc: ShardAttr, coords: Sequence[int]) -> int:
    k = 0
    for c, m in zip(coords, enc.mesh_shape, strict=True):
        k = k * m + c
    return k


class ShrinkOfOneMeshBlockFetchesFromOwner(MultiRule[tg.ShrinkOp]):
    """A shrink of a mesh value that selects one block of split axes (their mesh dims become
    `none`): the shrink on the device holding that block in d's group (d's coordinates, the
    selected ones on the mesh dims of the cut axes), fetched, then `clean`ed when the result
    is still split."""

    op_type = tg.ShrinkOp

    def applies(self, low: FunctionLowering, op: tg.ShrinkOp) -> bool:
        enc = placement_of(op.source.type)
        src = op.source.type
        if not (_is_mesh(enc) and isinstance(src, TensorType)):
            return False
        assert isinstance(enc, ShardAttr)
        return any(tuple(op.bounds[a]) != (0, src.get_shape()[a]) for a in enc.split_axes)

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: tg.ShrinkOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        src_t, res_t = op.source.type, op.result.type
        assert isinstance(src_t, TensorType) and isinstance(res_t, TensorType)
        enc = placement_of(src_t)
        assert isinstance(enc, ShardAttr)
        shape = src_t.get_shape()
        selected: dict[int, int] = {}
        for a in enc.split_axes:
            if tuple(op.bounds[a]) == (0, shape[a]):
                continue
            k = next(k for k in range(enc.num_devices) if enc.block(shape, k)[a] == op.bounds[a])
            for dim in enc.dims_of(a):
                selected[dim] = enc.coords(k)[dim]
        g = mesh_geometry(src_t, enc)
        coords = g.coords(b, low.clamped_position(b, enc.device_names))
        owner_coords = [selected.get(i, c) for i, c in enumerate(coords)]
        owner = low.device_at(b, enc.device_names, g.position(b, owner_coords))
        bounds = map_bounds(op.bounds, low.vmap)
        local = b.value(tg.ShrinkOp(operands[0], bounds, strip_encoding(res_t)))
        fetch = b.fetch_keeping_invalid if may_hold_invalid(op.source) else b.fetch
        value = fetch(local, owner)
        res_enc = placement_of(res_t)
        if isinstance(res_enc, ShardAttr):
            value = low.clean(b, value, res_t, res_enc)
        return [b.mask(low.member(b, enc.device_names), value)]

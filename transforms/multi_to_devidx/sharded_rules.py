"""multi-to-devidx's rules for tg ops on sharded values that are more than the same op on the
local buffers: a reduce over the shard axis, a reduce off it, a shrink selecting one shard."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TypeVar

from xdsl.dialects.builtin import (
    TensorType,
)
from xdsl.ir import Operation, SSAValue

from xdsl_multi.dialects import devidx, tg
from xdsl_multi.dialects.multi import (
    ShardAttr,
    placement_of,
)
from xdsl_multi.transforms.multi_to_devidx.allreduce import (
    lower_allreduce,
    lower_group_allreduce,
)
from xdsl_multi.transforms.multi_to_devidx.hierarchical import lower_hierarchical_allreduce
from xdsl_multi.transforms.multi_to_devidx.spmd_builder import SpmdBuilder, plain
from xdsl_multi.transforms.value_facts import may_hold_invalid

OpT = TypeVar("OpT", bound=Operation)
from xdsl_multi.transforms.multi_to_devidx.lowering_state import (
    FunctionLowering,
    MultiRule,
    map_bounds,
    rebuild_plain,
    strip_encoding,
)


class ReduceOverShardAxisToAllreduce(MultiRule[tg.ReduceOp]):
    """A reduce over the shard axis is a local reduce of `clean(x)` (lanes outside the device's
    share are Invalid: they reduce as the identity) and an allreduce over the shard's devices.
    Over a mesh (SPEC §1.1): a reduce over split axes is the local reduce of `clean(x)` and an
    allreduce within d's group, the devices that differ from d only in the coordinates of the
    mesh dims splitting the reduced axes; a result still split on other axes is `clean`ed.
    The one-axis shard is the 1-D mesh whose one group is every device of the shard."""

    op_type = tg.ReduceOp

    def applies(self, low: FunctionLowering, op: tg.ReduceOp) -> bool:
        enc = placement_of(op.source.type)
        return isinstance(enc, ShardAttr) and any(a in op.axes_list for a in enc.split_axes)

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: tg.ReduceOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        src_t, res_t = op.source.type, op.result.type
        assert isinstance(src_t, TensorType) and isinstance(res_t, TensorType)
        enc = placement_of(src_t)
        assert isinstance(enc, ShardAttr)
        cleaned = low.clean(b, operands[0], src_t, enc)
        partial = b.value(tg.ReduceOp(op.kind, cleaned, op.axes_list, plain(res_t)))
        if not enc.is_mesh:
            members = low.numbers(enc.device_names)
            return [lower_allreduce(b, op.reduce_kind, partial, members, members, low.strategy)]
        dims = [i for i, a in enumerate(enc.mesh_axes) if a is not None and a in op.axes_list]
        hierarchical = low.strategy.hierarchical(len(dims), math.prod(res_t.get_shape()))
        if low.strategy.as_ops and list(enc.device_names) == low.devices:
            groups = (enc.mesh_shape, tuple(dims))
            algorithm = "hierarchical" if hierarchical else "naive"
            reduced = b.value(
                devidx.AllreduceOp(op.reduce_kind, b.stored(partial), algorithm, groups)
            )
        elif hierarchical:
            reduced = lower_hierarchical_allreduce(
                low, b, op.reduce_kind, partial, src_t, enc, dims
            )
        else:
            group = low.group_members(b, src_t, enc, dims)
            reduced = lower_group_allreduce(b, op.reduce_kind, partial, group)
        res_enc = placement_of(res_t)
        if isinstance(res_enc, ShardAttr):
            reduced = low.clean(b, reduced, res_t, res_enc)
        return [b.mask(low.member(b, enc.device_names), reduced)]


class ShardedReduceCleansResult(MultiRule[tg.ReduceOp]):
    """A reduce over other axes of a shard value is the same reduce, then `clean`: the reduce
    of lanes outside the device's share is dropped again (its result is a shard value too)."""

    op_type = tg.ReduceOp

    def applies(self, low: FunctionLowering, op: tg.ReduceOp) -> bool:
        return isinstance(placement_of(op.result.type), ShardAttr)

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: tg.ReduceOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        res_t = op.result.type
        assert isinstance(res_t, TensorType)
        enc = placement_of(res_t)
        assert isinstance(enc, ShardAttr)
        (reduced,) = rebuild_plain(b, op, operands)
        return [low.clean(b, reduced, res_t, enc)]


class ShrinkOfOneShardFetchesFromOwner(MultiRule[tg.ShrinkOp]):
    """A shrink that selects exactly one shard is the shrink on that shard's owner, fetched by
    every device of the shard; where the shard may hold Invalid lanes (beyond the rows it does
    not own), their validity is fetched with it."""

    op_type = tg.ShrinkOp

    def applies(self, low: FunctionLowering, op: tg.ShrinkOp) -> bool:
        return op.selected_shard() is not None

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: tg.ShrinkOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        enc = placement_of(op.source.type)
        assert isinstance(enc, ShardAttr)
        k = op.selected_shard()
        assert k is not None
        bounds = map_bounds(op.bounds, low.vmap)
        local = b.value(tg.ShrinkOp(operands[0], bounds, strip_encoding(op.result.type)))
        owner = low.number[enc.device_names[k]]
        # a movement op, not a materialization: Invalid lanes of the shard (an Invalid pad on
        # another axis) stay Invalid on the devices that fetch it
        fetch = b.fetch_keeping_invalid if may_hold_invalid(op.source) else b.fetch
        return [b.mask(low.member(b, enc.device_names), fetch(local, owner))]

"""multi-to-devidx's rules for tinygrad's placement ops: MULTI, LOCAL, MSELECT, MSTACK (the
first rows of the table in multi_to_devidx.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from xdsl.dialects.builtin import (
    TensorType,
)
from xdsl.ir import Operation, SSAValue

from xdsl_multi.dialects import devidx, multi
from xdsl_multi.dialects.multi import (
    OnAttr,
    ShardAttr,
    placement_of,
)
from xdsl_multi.transforms.multi_to_devidx.spmd_builder import SpmdBuilder

OpT = TypeVar("OpT", bound=Operation)
from xdsl_multi.transforms.multi_to_devidx.lowering_state import (
    FunctionLowering,
    MultiRule,
    mesh_geometry,
)


class MultiToInvalidPad(MultiRule[multi.MultiOp]):
    """MULTI(x, axis) is `global(x)`: the local buffer of s rows padded with Invalid by
    d-dependent bounds to N * s rows, shrunk to the logical length. Over a mesh, `global` per
    split axis; along `none` mesh dims every replica takes the first replica's buffer (the
    one that stands for the logical value, SPEC §1.1), fetched."""

    op_type = multi.MultiOp

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: multi.MultiOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        res_t = op.result.type
        assert isinstance(res_t, TensorType)
        enc = placement_of(res_t)
        assert isinstance(enc, ShardAttr)
        k = low.clamped_position(b, enc.device_names)
        x = operands[0]
        if None in enc.mesh_axes:
            x = b.fetch(x, low.first_replica(b, res_t, enc))
        return [mesh_geometry(res_t, enc).global_(b, x, k)]


class LocalToLocalBuffer(MultiRule[multi.LocalOp]):
    """LOCAL(x) is `local(x)`: the s-row local buffer of the device's position in x's list
    (Invalid past the logical length), Invalid on devices x is not on."""

    op_type = multi.LocalOp

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: multi.LocalOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        src_t = op.source.type
        assert isinstance(src_t, TensorType)
        enc = placement_of(src_t)
        assert isinstance(enc, ShardAttr)
        k = low.clamped_position(b, enc.device_names)
        own = mesh_geometry(src_t, enc).local(b, operands[0], k)
        return [b.mask(low.member(b, enc.device_names), own)]


class MselectToSelect(MultiRule[multi.MselectOp]):
    """MSELECT(x, i) is `select(d == owner_i, x, invalid)`."""

    op_type = multi.MselectOp

    def lower(
        self,
        low: FunctionLowering,
        b: SpmdBuilder,
        op: multi.MselectOp,
        operands: Sequence[SSAValue],
    ) -> Sequence[SSAValue]:
        enc = placement_of(op.source.type)
        assert isinstance(enc, OnAttr)
        owner = low.number[enc.device_names[op.index.value.data]]
        return [b.mask(b.eq(b.d, owner), operands[0])]


class MstackToStackIndex(MultiRule[multi.MstackOp]):
    """MSTACK(s0..sn) is `index(stack(s0..sn), k(d))`, k(d) being d's position in the result's
    device list."""

    op_type = multi.MstackOp

    def lower(
        self,
        low: FunctionLowering,
        b: SpmdBuilder,
        op: multi.MstackOp,
        operands: Sequence[SSAValue],
    ) -> Sequence[SSAValue]:
        enc = placement_of(op.result.type)
        assert isinstance(enc, OnAttr)
        stacked = b.value(devidx.StackOp(operands))
        return [b.value(devidx.IndexOp(stacked, b.idx(low.position(b, enc.device_names))))]

"""multi-to-devidx's last rules, which every op reaches: `func.return`, region ops on placed
values (rejected), other placed ops (encodings dropped) and unplaced ops (copied)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from xdsl.dialects import func
from xdsl.ir import Operation, SSAValue

from xdsl_multi.transforms.multi_to_devidx.spmd_builder import SpmdBuilder

OpT = TypeVar("OpT", bound=Operation)
from xdsl_multi.transforms.multi_to_devidx.lowering_state import (
    FunctionLowering,
    MultiRule,
    fail_at,
    is_placed,
    rebuild_plain,
)


class ReturnToLocalBuffers(MultiRule[func.ReturnOp]):
    """`func.return` returns each device's local buffer of every result (`local(x)` for a shard
    value; for a value that `clean` made, the local buffer it was made from)."""

    op_type = func.ReturnOp

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: func.ReturnOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        f = op.parent_op()
        assert isinstance(f, func.FuncOp)
        outputs = f.function_type.outputs.data
        locals_ = [low.to_local(b, v, t) for v, t in zip(operands, outputs, strict=True)]
        b.emit(func.ReturnOp(*locals_))
        return []


class PlacedOpWithRegionsIsRejected(MultiRule[Operation]):
    """An op with regions on placed values is rejected (a diagnostic at the op)."""

    op_type = Operation

    def applies(self, low: FunctionLowering, op: Operation) -> bool:
        return bool(op.regions) and is_placed(op)

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: Operation, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        fail_at(op, "ops with regions on placed values are not supported")


class PlacedOpDropsEncodings(MultiRule[Operation]):
    """Any other op on placed values (elementwise, movement, reduce, constant) is the same op on
    the SPMD values: the encodings are dropped from every tensor type."""

    op_type = Operation

    def applies(self, low: FunctionLowering, op: Operation) -> bool:
        return is_placed(op)

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: Operation, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        return rebuild_plain(b, op, operands)


class UnplacedOpIsCopied(MultiRule[Operation]):
    """An op on unplaced values is copied unchanged (on the new values of its operands)."""

    op_type = Operation

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: Operation, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        new_op = op.clone(value_mapper=dict(low.vmap))
        b.emit(new_op)
        return new_op.results

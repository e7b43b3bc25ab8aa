"""lowering/llvm_ops.py builds each op as its xDSL constructor does: same class, operands,
result types, properties (in the same order), attributes and successors."""

from __future__ import annotations

import pytest
from xdsl.dialects import llvm
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, f32, f64, i1, i8, i32, i64
from xdsl.ir import Block, Operation

from xdsl_multi.lowering import llvm_ops
from xdsl_multi.lowering.llvm_types import FAST_MATH, NSW

BLOCK = Block(arg_types=[i64, i64, f32, f32, llvm.LLVMPointerType(), i1, i32, i32])
I, J, X, Y, P, C, A, B = BLOCK.args
DEST = Block(arg_types=[i64])
OTHER = Block()


def shape(op: Operation) -> tuple[object, ...]:
    return (
        type(op),
        tuple(op.operands),
        tuple(op.result_types),
        tuple(op.properties.items()),
        tuple(op.attributes.items()),
        tuple(op.successors),
    )


NONE = llvm.OverflowAttr("none")
PAIRS = [
    (llvm_ops.int_binary(llvm.AddOp, I, J, llvm_ops.overflow_bits(NSW)),
     llvm.AddOp(I, J, overflow=NSW)),
    (llvm_ops.int_binary(llvm.MulOp, A, B, llvm_ops.overflow_bits(NONE)),
     llvm.MulOp(A, B, overflow=NONE)),
    (llvm_ops.int_binary(llvm.ShlOp, A, B, llvm_ops.overflow_bits(NONE)),
     llvm.ShlOp(A, B, overflow=NONE)),
    (llvm_ops.bitwise(llvm.AndOp, A, B), llvm.AndOp(A, B)),
    (llvm_ops.bitwise(llvm.XOrOp, I, J), llvm.XOrOp(I, J)),
    (llvm_ops.bitwise(llvm.SRemOp, I, J), llvm.SRemOp(I, J)),
    (llvm_ops.float_binary(llvm.FAddOp, X, Y, FAST_MATH), llvm.FAddOp(X, Y, FAST_MATH)),
    (llvm_ops.float_binary(llvm.FDivOp, X, Y, FAST_MATH), llvm.FDivOp(X, Y, FAST_MATH)),
    (llvm_ops.integer_constant(IntegerAttr(-3, i32)), llvm.ConstantOp(IntegerAttr(-3, i32), i32)),
    (llvm_ops.integer_constant(IntegerAttr(1, i1)), llvm.ConstantOp(IntegerAttr(1, i1), i1)),
    (llvm_ops.float_constant(FloatAttr(0.5, f64)), llvm.ConstantOp(FloatAttr(0.5, f64), f64)),
    *[(llvm_ops.icmp(I, J, k), llvm.ICmpOp(I, J, IntegerAttr(k, i64))) for k in range(10)],
    (llvm_ops.select(C, X, Y), llvm.SelectOp(C, X, Y)),
    (llvm_ops.gep(P, I, f32),
     llvm.GEPOp(P, [llvm.GEP_USE_SSA_VAL], f32, ssa_indices=[I], inbounds=True)),
    (llvm_ops.gep(P, J, i8),
     llvm.GEPOp(P, [llvm.GEP_USE_SSA_VAL], i8, ssa_indices=[J], inbounds=True)),
    (llvm_ops.load(P, f32), llvm.LoadOp(P, f32)),
    (llvm_ops.store(X, P), llvm.StoreOp(X, P)),
    (llvm_ops.call_intrinsic("llvm.fma.f32", [X, Y, X], f32),
     llvm.CallIntrinsicOp("llvm.fma.f32", [X, Y, X], [f32])),
    (llvm_ops.call_intrinsic("llvm.sqrt.f32", [X], f32),
     llvm.CallIntrinsicOp("llvm.sqrt.f32", [X], [f32])),
    (llvm_ops.call_intrinsic("llvm.f.f32", [X, Y, X, Y], f32),
     llvm.CallIntrinsicOp("llvm.f.f32", [X, Y, X, Y], [f32])),
    (llvm_ops.br(DEST, [I]), llvm.BrOp(DEST, I)),
    (llvm_ops.br(OTHER, []), llvm.BrOp(OTHER)),
    (llvm_ops.cond_br(C, DEST, [J], OTHER, []), llvm.CondBrOp(C, DEST, [J], OTHER, [])),
    (llvm_ops.cond_br(C, OTHER, [], DEST, [I]), llvm.CondBrOp(C, OTHER, [], DEST, [I])),
]  # fmt: skip


@pytest.mark.parametrize(
    "fast, built", PAIRS, ids=[f"{p[1].name}-{k}" for k, p in enumerate(PAIRS)]
)
def test_op_is_the_constructors(fast: Operation, built: Operation) -> None:
    assert shape(fast) == shape(built)
    if not fast.successors:  # a branch verifies only inside a region
        fast.verify()

"""The llvm ops that convert-to-llvm builds most, built without xDSL's generic op builder.

`llvm.AddOp(a, b, overflow=NSW)` goes through xDSL's `irdl_op_init`, which checks every
argument against the op definition and builds each attribute anew: 30-170 microseconds per op,
most of convert-to-llvm's time on the matmul kernels (three to five llvm ops per memref
access). Each function here makes the op its xDSL constructor makes (same operands, result
types, properties in the same order, successors) with `Op.create`, the constant attributes made
once: test/lowering/test_llvm_ops.py checks each against the constructor.

| function | xDSL constructor |
|---|---|
| `int_binary(llvm.AddOp, a, b, NSW)` | `llvm.AddOp(a, b, overflow=NSW)` (add sub mul shl) |
| `bitwise(llvm.AndOp, a, b)` | `llvm.AndOp(a, b)` (and xor urem srem) |
| `float_binary(llvm.FAddOp, a, b, FAST_MATH)` | `llvm.FAddOp(a, b, FAST_MATH)` (fadd fsub fmul fdiv) |
| `integer_constant(attr)`, `float_constant(attr)` | `llvm.ConstantOp(attr, attr.type)` |
| `icmp(a, b, predicate)` | `llvm.ICmpOp(a, b, IntegerAttr(predicate, i64))` |
| `select(c, a, b)` | `llvm.SelectOp(c, a, b)` |
| `gep(ptr, index, element)` | `llvm.GEPOp(ptr, [GEP_USE_SSA_VAL], element, ssa_indices=[index], inbounds=True)` |
| `load(ptr, t)`, `store(value, ptr)` | `llvm.LoadOp(ptr, t)`, `llvm.StoreOp(value, ptr)` |
| `call_intrinsic(name, args, t)` | `llvm.CallIntrinsicOp(name, args, [t])` |
| `br(dest, args)`, `cond_br(c, then, then_args, else_, else_args)` | `llvm.BrOp`, `llvm.CondBrOp` |
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    UnitAttr,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, SSAValue

_PTR = llvm.LLVMPointerType()
_NO_WRAP = IntegerAttr(0, 32)
_ONE_SSA_INDEX = DenseArrayBase.from_list(i32, [llvm.GEP_USE_SSA_VAL])
_ORDERING = IntegerAttr(0, i64)
_INBOUNDS = UnitAttr()
_NO_BUNDLES = DenseArrayBase.from_list(i32, ())
_PREDICATES = tuple(IntegerAttr(k, i64) for k in range(10))
"""arith.cmpi's predicates (eq ne slt sle sgt sge ult ule ugt uge) as llvm.icmp's."""


def _segments(*sizes: int) -> DenseArrayBase:
    return DenseArrayBase.from_list(i32, sizes)


_INTRINSIC_SEGMENTS = tuple(_segments(n, 0) for n in range(4))
"""`operandSegmentSizes` of an intrinsic call with 0-3 arguments and no operand bundle."""


def overflow_bits(overflow: llvm.OverflowAttr) -> IntegerAttr:
    """The `overflowFlags` property xDSL stores for an overflow attribute."""
    return IntegerAttr(overflow.to_int(), 32)


def int_binary(
    kind: type[llvm.ArithmeticBinOpOverflow], lhs: SSAValue, rhs: SSAValue, overflow: IntegerAttr
) -> llvm.ArithmeticBinOpOverflow:
    """`kind(lhs, rhs, overflow=...)` for add, sub, mul, shl; `overflow`: `overflow_bits`."""
    return kind.create(
        operands=(lhs, rhs), result_types=(lhs.type,), properties={"overflowFlags": overflow}
    )


def bitwise(
    kind: type[llvm.ArithmeticBinOperation], lhs: SSAValue, rhs: SSAValue
) -> llvm.ArithmeticBinOperation:
    """`kind(lhs, rhs)` for the integer ops without flags: and, xor, urem, srem."""
    return kind.create(operands=(lhs, rhs), result_types=(lhs.type,))


def float_binary(
    kind: type[llvm.AbstractFloatArithOp], lhs: SSAValue, rhs: SSAValue, flags: llvm.FastMathAttr
) -> llvm.AbstractFloatArithOp:
    """`kind(lhs, rhs, flags)` for fadd, fsub, fmul, fdiv."""
    return kind.create(
        operands=(lhs, rhs), result_types=(lhs.type,), properties={"fastmathFlags": flags}
    )


def integer_constant(value: IntegerAttr) -> llvm.ConstantOp:
    """`llvm.mlir.constant(value) : value.type`."""
    return llvm.ConstantOp.create(result_types=(value.type,), properties={"value": value})


def float_constant(value: FloatAttr) -> llvm.ConstantOp:
    """`llvm.mlir.constant(value) : value.type`."""
    return llvm.ConstantOp.create(result_types=(value.type,), properties={"value": value})


def icmp(lhs: SSAValue, rhs: SSAValue, predicate: int) -> llvm.ICmpOp:
    """`llvm.icmp` of two scalars; `predicate`: arith.cmpi's number (eq = 0 ... uge = 9)."""
    return llvm.ICmpOp.create(
        operands=(lhs, rhs), result_types=(i1,), properties={"predicate": _PREDICATES[predicate]}
    )


def select(cond: SSAValue, lhs: SSAValue, rhs: SSAValue) -> llvm.SelectOp:
    """`llvm.select cond, lhs, rhs`."""
    return llvm.SelectOp.create(operands=(cond, lhs, rhs), result_types=(lhs.type,))


def gep(ptr: SSAValue, index: SSAValue, element: Attribute) -> llvm.GEPOp:
    """`llvm.getelementptr inbounds ptr[index]` over elements of type `element`."""
    return llvm.GEPOp.create(
        operands=(ptr, index),
        result_types=(_PTR,),
        properties={
            "rawConstantIndices": _ONE_SSA_INDEX,
            "elem_type": element,
            "noWrapFlags": _NO_WRAP,
            "inbounds": _INBOUNDS,
        },
    )


def load(ptr: SSAValue, t: Attribute) -> llvm.LoadOp:
    """`llvm.load ptr : !llvm.ptr -> t`."""
    return llvm.LoadOp.create(
        operands=(ptr,), result_types=(t,), properties={"ordering": _ORDERING}
    )


def store(value: SSAValue, ptr: SSAValue) -> llvm.StoreOp:
    """`llvm.store value, ptr`."""
    return llvm.StoreOp.create(operands=(value, ptr), properties={"ordering": _ORDERING})


def call_intrinsic(name: str, args: Sequence[SSAValue], t: Attribute) -> llvm.CallIntrinsicOp:
    """`llvm.call_intrinsic "name"(args) : (...) -> t`."""
    n = len(args)
    segments = _INTRINSIC_SEGMENTS[n] if n < len(_INTRINSIC_SEGMENTS) else _segments(n, 0)
    return llvm.CallIntrinsicOp.create(
        operands=tuple(args),
        result_types=(t,),
        properties={
            "intrin": StringAttr(name),
            "op_bundle_sizes": _NO_BUNDLES,
            "operandSegmentSizes": segments,
        },
    )


def br(dest: Block, args: Sequence[SSAValue]) -> llvm.BrOp:
    """`llvm.br ^dest(args)`."""
    return llvm.BrOp.create(operands=tuple(args), successors=(dest,))


def cond_br(
    cond: SSAValue,
    then_block: Block,
    then_args: Sequence[SSAValue],
    else_block: Block,
    else_args: Sequence[SSAValue],
) -> llvm.CondBrOp:
    """`llvm.cond_br cond, ^then(then_args), ^else(else_args)`."""
    return llvm.CondBrOp.create(
        operands=(cond, *then_args, *else_args),
        properties={"operandSegmentSizes": _segments(1, len(then_args), len(else_args))},
        successors=(then_block, else_block),
    )

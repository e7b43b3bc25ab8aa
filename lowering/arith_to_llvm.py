"""Scalar `arith` to the `llvm` dialect, inside kernels.

    %r = arith.addf %a, %b : f32     ->   %r = llvm.fadd %a, %b {fastmathFlags = #llvm.fastmath<reassoc,contract>} : f32
    %q = arith.divsi %a, %b : i32    ->   llvm.sdiv on a divisor made safe, then selects for x/0 and INT_MIN/-1

Every result is what the reference interpreter computes (runtime/interpreter/numerics.py): integer division
and remainder by zero give 0, shifts by the width or more give 0 or the sign fill, float to
integer truncates and saturates (NaN gives 0), bf16 results are rounded after every op. Where
LLVM's instruction is undefined for such inputs the pattern guards it with selects, which
LLVM folds away for constant operands and vectorizes otherwise.

The patterns run in block order after the block arguments were lowered, so an op's operands
already have their llvm types (bf16 operands are f32) while its results still have the
kernel-level types (index, bf16) that the pattern converts.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import (
    Float16Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    f32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern

from xdsl_multi.dialects.element_types import bit_width, is_bf16
from xdsl_multi.lowering import llvm_ops
from xdsl_multi.lowering.llvm_types import (
    FAST_MATH,
    OpList,
    constant,
    f64_to_f16,
    finish_float,
    float_suffix,
    icmp,
    intrinsic,
    lower_type,
    round_to_bf16,
    type_suffix,
)
from xdsl_multi.lowering.walker import LoweringPattern


def _bf16_value(x: float) -> float:
    """A Python float rounded to bf16 as `round_bf16` does (for constants)."""
    (bits,) = struct.unpack("<I", struct.pack("<f", x))
    if math.isnan(x):
        bits = (bits & 0xFFFF0000) | 0x400000
    else:
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", bits))[0]


class ConstantToLLVM(LoweringPattern):
    """`arith.constant 3 : index` -> `llvm.mlir.constant(3) : i64` (scalars only)."""

    ops = (arith.ConstantOp.name,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.ConstantOp, rewriter: PatternRewriter, /):
        t, value = op.result.type, op.value
        if isinstance(value, IntegerAttr):
            new = constant(value.value.data, lower_type(t))
        elif isinstance(value, FloatAttr):
            v = value.value.data
            new = constant(_bf16_value(v) if is_bf16(t) else v, lower_type(t))
        else:
            return  # dense constants are not part of the kernel contract
        rewriter.replace(op, new)


# ---------------------------------------------------------------------------------------------
# Integer arithmetic
# ---------------------------------------------------------------------------------------------

_INT_BINARY: dict[type[Operation], type[llvm.ArithmeticBinOpOverflow]] = {
    arith.AddiOp: llvm.AddOp,
    arith.SubiOp: llvm.SubOp,
    arith.MuliOp: llvm.MulOp,
}

_INT_BITWISE: dict[type[Operation], Callable[..., Operation]] = {
    arith.AndIOp: llvm.AndOp,
    arith.OrIOp: llvm.OrOp,
    arith.XOrIOp: llvm.XOrOp,
}


class IntBinaryToLLVM(LoweringPattern):
    """addi subi muli (keeping nsw/nuw) and andi ori xori."""

    ops = tuple(op.name for op in (*_INT_BINARY, *_INT_BITWISE))

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if (make := _INT_BINARY.get(type(op))) is not None:
            assert isinstance(op, arith.SignlessIntegerBinaryOperationWithOverflow)
            flags = [llvm.OverflowFlag(f.value) for f in op.overflow_flags.data]
            overflow = llvm_ops.overflow_bits(llvm.OverflowAttr(flags or "none"))
            rewriter.replace(op, llvm_ops.int_binary(make, op.lhs, op.rhs, overflow))
        elif (make := _INT_BITWISE.get(type(op))) is not None:
            rewriter.replace(op, make(op.operands[0], op.operands[1]))


_MIN_MAX: dict[type[Operation], str] = {
    arith.MaxSIOp: "sgt",
    arith.MinSIOp: "slt",
    arith.MaxUIOp: "ugt",
    arith.MinUIOp: "ult",
}


class IntMinMaxToLLVM(LoweringPattern):
    """maxsi minsi maxui minui -> icmp + select (LLVM turns them into smax/umin...)."""

    ops = tuple(op.name for op in _MIN_MAX)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if (predicate := _MIN_MAX.get(type(op))) is None:
            return
        a, b = op.operands
        cmp = icmp(a, b, predicate)
        rewriter.replace(op, [cmp, llvm_ops.select(cmp.res, a, b)])


_DIV_REM = (
    arith.DivSIOp, arith.RemSIOp, arith.FloorDivSIOp, arith.CeilDivSIOp,
    arith.DivUIOp, arith.RemUIOp, arith.CeilDivUIOp,
)  # fmt: skip


class IntDivRemToLLVM(LoweringPattern):
    """divsi divui remsi remui floordivsi ceildivsi ceildivui, with x / 0 = 0 and x % 0 = 0;
    INT_MIN / -1 wraps to INT_MIN (signed division by -1 is computed as 0 - x)."""

    ops = tuple(op.name for op in _DIV_REM)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if not isinstance(op, _DIV_REM):
            return
        a, d = op.operands
        t = lower_type(op.results[0].type)
        b = OpList()
        zero = b.const(0, t)
        is_zero = b.add(icmp(d, zero, "eq"))
        signed = isinstance(
            op, arith.DivSIOp | arith.RemSIOp | arith.FloorDivSIOp | arith.CeilDivSIOp
        )
        if signed:
            is_minus_one = b.add(icmp(d, b.const(-1, t), "eq"))
            unsafe = b.add(llvm.OrOp(is_zero, is_minus_one))
        else:
            is_minus_one = None
            unsafe = is_zero
        safe = b.add(llvm.SelectOp(unsafe, b.const(1, t), d))
        if isinstance(op, arith.RemSIOp | arith.RemUIOp):
            rem = b.add((llvm.SRemOp if signed else llvm.URemOp)(a, safe))
            b.add(llvm.SelectOp(unsafe, zero, rem))  # x % 0 = 0, x % -1 = 0
            rewriter.replace(op, b.ops)
            return
        q = b.add((llvm.SDivOp if signed else llvm.UDivOp)(a, safe))
        if isinstance(op, arith.FloorDivSIOp | arith.CeilDivSIOp | arith.CeilDivUIOp):
            r = b.add((llvm.SRemOp if signed else llvm.URemOp)(a, safe))
            inexact = b.add(icmp(r, zero, "ne"))
            if isinstance(op, arith.CeilDivUIOp):
                adjust = inexact
            else:
                # the exact quotient is negative iff r and the divisor have opposite signs
                r_neg = b.add(icmp(r, zero, "slt"))
                d_neg = b.add(icmp(safe, zero, "slt"))
                same = "ne" if isinstance(op, arith.FloorDivSIOp) else "eq"
                adjust = b.add(llvm.AndOp(inexact, b.add(icmp(r_neg, d_neg, same))))
            step = b.add(llvm.ZExtOp(adjust, t)) if bit_width(t) > 1 else adjust
            if isinstance(op, arith.FloorDivSIOp):
                q = b.add(llvm.SubOp(q, step))
            else:
                q = b.add(llvm.AddOp(q, step))
        if is_minus_one is not None:
            negated = b.add(llvm.SubOp(zero, a))
            q = b.add(llvm.SelectOp(is_minus_one, negated, q))
        b.add(llvm.SelectOp(is_zero, zero, q))
        rewriter.replace(op, b.ops)


_SHIFTS = (arith.ShLIOp, arith.ShRUIOp, arith.ShRSIOp)


class ShiftToLLVM(LoweringPattern):
    """shli shrui shrsi; the amount is read as unsigned and a shift by >= width gives 0
    (shli, shrui) or the sign fill (shrsi)."""

    ops = tuple(op.name for op in _SHIFTS)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if not isinstance(op, _SHIFTS):
            return
        a, amount = op.operands
        t = lower_type(op.results[0].type)
        width = bit_width(t)
        b = OpList()
        too_big = b.add(icmp(amount, b.const(width, t), "uge"))
        if isinstance(op, arith.ShRSIOp):
            clamped = b.add(llvm.SelectOp(too_big, b.const(width - 1, t), amount))
            b.add(llvm.AShrOp(a, clamped))
        else:
            zero = b.const(0, t)
            clamped = b.add(llvm.SelectOp(too_big, zero, amount))
            shift = llvm.ShlOp if isinstance(op, arith.ShLIOp) else llvm.LShrOp
            shifted = b.add(shift(a, clamped))
            b.add(llvm.SelectOp(too_big, zero, shifted))
        rewriter.replace(op, b.ops)


class CmpiToLLVM(LoweringPattern):
    ops = (arith.CmpiOp.name,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.CmpiOp, rewriter: PatternRewriter, /):
        predicate = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
        rewriter.replace(op, icmp(op.lhs, op.rhs, predicate))


class SelectToLLVM(LoweringPattern):
    ops = (arith.SelectOp.name,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SelectOp, rewriter: PatternRewriter, /):
        rewriter.replace(op, llvm_ops.select(op.cond, op.lhs, op.rhs))


# ---------------------------------------------------------------------------------------------
# Float arithmetic
# ---------------------------------------------------------------------------------------------

_FLOAT_BINARY: dict[type[Operation], type[llvm.AbstractFloatArithOp]] = {
    arith.AddfOp: llvm.FAddOp,
    arith.SubfOp: llvm.FSubOp,
    arith.MulfOp: llvm.FMulOp,
    arith.DivfOp: llvm.FDivOp,
}

_FLOAT_MIN_MAX: dict[type[Operation], str] = {
    arith.MaximumfOp: "llvm.maximum",  # NaN if either is NaN, +0 > -0 (numpy's maximum)
    arith.MinimumfOp: "llvm.minimum",
    arith.MaxnumfOp: "llvm.maximumnum",  # the other operand when one is NaN, +0 > -0
    arith.MinnumfOp: "llvm.minimumnum",
}


class FloatBinaryToLLVM(LoweringPattern):
    """addf subf mulf divf with `reassoc contract` (docs/decisions.md)."""

    ops = tuple(op.name for op in _FLOAT_BINARY)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if (make := _FLOAT_BINARY.get(type(op))) is None:
            return
        t = op.results[0].type
        b = OpList()
        result = b.add(llvm_ops.float_binary(make, op.operands[0], op.operands[1], FAST_MATH))
        finish_float(b, result, t)
        rewriter.replace(op, b.ops)


class NegfToLLVM(LoweringPattern):
    ops = (arith.NegfOp.name,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.NegfOp, rewriter: PatternRewriter, /):
        rewriter.replace(op, llvm.FNegOp(op.operand, FAST_MATH))


class FloatMinMaxToLLVM(LoweringPattern):
    """maximumf minimumf (NaN-propagating) maxnumf minnumf (NaN-ignoring) -> intrinsics."""

    ops = tuple(op.name for op in _FLOAT_MIN_MAX)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if (name := _FLOAT_MIN_MAX.get(type(op))) is None:
            return
        t = lower_type(op.results[0].type)
        call = intrinsic(f"{name}.{float_suffix(t)}", op.operands, t)
        rewriter.replace(op, call)


class CmpfToLLVM(LoweringPattern):
    ops = (arith.CmpfOp.name,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.CmpfOp, rewriter: PatternRewriter, /):
        predicate = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
        if predicate in ("false", "true"):
            rewriter.replace(op, constant(int(predicate == "true"), IntegerType(1)))
            return
        rewriter.replace(op, llvm.FCmpOp(op.lhs, op.rhs, predicate))


# ---------------------------------------------------------------------------------------------
# Casts
# ---------------------------------------------------------------------------------------------


def _int_resize(b: OpList, x: SSAValue, src: Attribute, dst: Attribute, signed: bool) -> None:
    """Extend (sign or zero) or truncate the integer `x` from `src` to `dst`; index is i64."""
    src_w, dst_w = bit_width(src), bit_width(dst)
    if src_w < dst_w:
        b.add((llvm.SExtOp if signed else llvm.ZExtOp)(x, lower_type(dst)))
    elif src_w > dst_w:
        b.add(llvm.TruncOp(x, lower_type(dst)))


_INT_CASTS = (arith.ExtSIOp, arith.ExtUIOp, arith.TruncIOp, arith.IndexCastOp)


class IntCastToLLVM(LoweringPattern):
    """extsi extui trunci index_cast index_castui."""

    ops = (*(op.name for op in _INT_CASTS), "arith.index_castui")

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if not isinstance(op, _INT_CASTS) and op.name != "arith.index_castui":
            return
        src, dst = op.operands[0].type, op.results[0].type
        signed = isinstance(op, arith.ExtSIOp | arith.IndexCastOp)
        b = OpList()
        _int_resize(b, op.operands[0], src, dst, signed)
        if b.ops:
            rewriter.replace(op, b.ops)
        else:  # index <-> i64
            rewriter.replace(op, [], [op.operands[0]])


class IntToFloatToLLVM(LoweringPattern):
    """sitofp; uitofp (zero-extended to i64 first; an i64 above INT64_MAX is halved with its
    low bit kept, converted and doubled, which rounds once, as C compilers do)."""

    ops = (arith.SIToFPOp.name, arith.UIToFPOp.name)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if not isinstance(op, arith.SIToFPOp | arith.UIToFPOp):
            return
        x, src, dst = op.operands[0], op.operands[0].type, op.results[0].type
        ft = lower_type(dst)
        b = OpList()
        if isinstance(op, arith.SIToFPOp):
            result = b.add(llvm.SIToFPOp(x, ft))
        elif bit_width(src) < 64:
            result = b.add(llvm.SIToFPOp(b.add(llvm.ZExtOp(x, i64)), ft))
        else:
            negative = b.add(icmp(x, b.const(0, i64), "slt"))
            halved = b.add(llvm.LShrOp(x, b.const(1, i64)))
            odd = b.add(llvm.OrOp(halved, b.add(llvm.AndOp(x, b.const(1, i64)))))
            source = b.add(llvm.SelectOp(negative, odd, x))
            converted = b.add(llvm.SIToFPOp(source, ft))
            doubled = b.add(llvm.FAddOp(converted, converted))
            result = b.add(llvm.SelectOp(negative, doubled, converted))
        finish_float(b, result, dst)
        rewriter.replace(op, b.ops)


class FloatToIntToLLVM(LoweringPattern):
    """fptosi fptoui -> llvm.fpto[su]i.sat: truncate, saturate to the range, NaN gives 0."""

    ops = (arith.FPToSIOp.name, arith.FPToUIOp.name)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if not isinstance(op, arith.FPToSIOp | arith.FPToUIOp):
            return
        kind = "fptosi" if isinstance(op, arith.FPToSIOp) else "fptoui"
        src, dst = op.operands[0].type, lower_type(op.results[0].type)
        name = f"llvm.{kind}.sat.{type_suffix(dst)}.{float_suffix(src)}"
        rewriter.replace(op, intrinsic(name, [op.operands[0]], dst))


class FloatCastToLLVM(LoweringPattern):
    """extf truncf; bf16 is f32 in registers, so bf16 -> f32 is free and anything -> bf16
    rounds (f64 -> bf16 goes through f32, as in the interpreter); f64 -> f16 rounds once."""

    ops = (arith.ExtFOp.name, arith.TruncFOp.name)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if not isinstance(op, arith.ExtFOp | arith.TruncFOp):
            return
        x, dst = op.operands[0], op.results[0].type
        src_l, dst_l = lower_type(x.type), lower_type(dst)
        b = OpList()
        value = x
        if isinstance(src_l, Float64Type) and isinstance(dst_l, Float16Type):
            f64_to_f16(b, x)
        elif src_l != dst_l:
            cast = llvm.FPExtOp if isinstance(op, arith.ExtFOp) else llvm.FPTruncOp
            value = b.add(cast(x, dst_l))
        if is_bf16(dst):  # the operand is f32 (bf16 -> bf16 is no truncf), f64 or f16
            round_to_bf16(b, value)
        if b.ops:
            rewriter.replace(op, b.ops)
        else:
            rewriter.replace(op, [], [x])


class BitcastToLLVM(LoweringPattern):
    """arith.bitcast; a bf16 is the top half of its f32's bits."""

    ops = (arith.BitcastOp.name,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.BitcastOp, rewriter: PatternRewriter, /):
        x, src, dst = op.input, op.input.type, op.result.type
        b = OpList()
        if isinstance(dst, IntegerType) and dst.width.data == 16 and src == f32:  # bf16 -> i16
            bits = b.add(llvm.BitcastOp(x, IntegerType(32)))
            b.add(llvm.TruncOp(b.add(llvm.LShrOp(bits, b.const(16, IntegerType(32)))), dst))
        elif is_bf16(dst):  # i16 -> bf16
            wide = b.add(llvm.ZExtOp(x, IntegerType(32)))
            b.add(llvm.BitcastOp(b.add(llvm.ShlOp(wide, b.const(16, IntegerType(32)))), f32))
        else:
            b.add(llvm.BitcastOp(x, lower_type(dst)))
        rewriter.replace(op, b.ops)


ARITH_TO_LLVM_PATTERNS: tuple[LoweringPattern, ...] = (
    ConstantToLLVM(),
    IntBinaryToLLVM(),
    IntMinMaxToLLVM(),
    IntDivRemToLLVM(),
    ShiftToLLVM(),
    CmpiToLLVM(),
    SelectToLLVM(),
    FloatBinaryToLLVM(),
    NegfToLLVM(),
    FloatMinMaxToLLVM(),
    CmpfToLLVM(),
    IntCastToLLVM(),
    IntToFloatToLLVM(),
    FloatToIntToLLVM(),
    FloatCastToLLVM(),
    BitcastToLLVM(),
)
"""Every arith lowering, in the order the walker offers them an op."""

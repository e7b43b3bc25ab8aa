"""Scalar `math` to the `llvm` dialect, inside kernels.

    %r = math.exp %a : f32     ->   %r = llvm.call_intrinsic "llvm.exp.f32"(%a) : (f32) -> f32
    %r = math.tanh %a : f32    ->   %r = llvm.call @tanhf(%a) : (f32) -> f32   (+ llvm.func @tanhf declared)

Ops with an LLVM intrinsic use it (`INTRINSICS`); the others call the C math library
(`LIBM`: `tanhf` for f32, `tanh` for f64; f16 computes in f32), whose symbols the JIT resolves
from the process. Intrinsics are spelled out with their type suffix through
`llvm.call_intrinsic`, which both LLVM and upstream MLIR accept for any intrinsic.
bf16 results are rounded after the f32 computation.
"""

from __future__ import annotations

from xdsl.dialects import llvm, math
from xdsl.dialects.builtin import Float16Type, Float64Type, IntegerType, ModuleOp, f32, f64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.traits import SymbolTable

from xdsl_multi.dialects.element_types import bit_width
from xdsl_multi.lowering.llvm_types import (
    FAST_MATH,
    OpList,
    f64_to_f16,
    finish_float,
    float_suffix,
    icmp,
    intrinsic,
    lower_type,
    type_suffix,
)
from xdsl_multi.lowering.walker import LoweringPattern

INTRINSICS: dict[str, str] = {
    "math.exp": "llvm.exp",
    "math.exp2": "llvm.exp2",
    "math.log": "llvm.log",
    "math.log2": "llvm.log2",
    "math.log10": "llvm.log10",
    "math.sqrt": "llvm.sqrt",
    "math.sin": "llvm.sin",
    "math.cos": "llvm.cos",
    "math.absf": "llvm.fabs",
    "math.floor": "llvm.floor",
    "math.ceil": "llvm.ceil",
    "math.trunc": "llvm.trunc",
    "math.round": "llvm.round",  # half away from zero
    "math.roundeven": "llvm.roundeven",
    "math.powf": "llvm.pow",
    "math.copysign": "llvm.copysign",
    "math.fma": "llvm.fma",  # rounds once
}
"""Float ops whose operands and result share one type."""

LIBM: dict[str, str] = {
    "math.tan": "tan",
    "math.tanh": "tanh",
    "math.atan": "atan",
    "math.atan2": "atan2",
    "math.asin": "asin",
    "math.acos": "acos",
    "math.sinh": "sinh",
    "math.cosh": "cosh",
    "math.asinh": "asinh",
    "math.acosh": "acosh",
    "math.atanh": "atanh",
    "math.erf": "erf",
    "math.log1p": "log1p",
    "math.expm1": "expm1",
    "math.cbrt": "cbrt",
}
"""Float ops computed by the C library: the f64 name, and the f32 one with an `f` suffix."""

INT_INTRINSICS: dict[str, tuple[str, bool]] = {
    "math.absi": ("llvm.abs", True),  # abs(INT_MIN) = INT_MIN
    "math.ctlz": ("llvm.ctlz", True),  # ctlz(0) = width
    "math.cttz": ("llvm.cttz", True),
    "math.ctpop": ("llvm.ctpop", False),
}
"""Integer ops: the intrinsic, and whether it takes an `i1 false` ("zero is not poison")."""


def declare_libm(op: Operation, name: str, t: Attribute, arity: int) -> None:
    """Declare `llvm.func @name(t, ...) -> t` in the module around `op`, once."""
    module = _enclosing_module(op)
    if SymbolTable.lookup_symbol(module, name) is not None:
        return
    declaration = llvm.FuncOp(
        name, llvm.LLVMFunctionType([t] * arity, t), linkage=llvm.LinkageAttr("external")
    )
    module.body.block.add_op(declaration)


def _enclosing_module(op: Operation) -> ModuleOp:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, ModuleOp):
        parent = parent.parent_op()
    assert parent is not None, "kernel outside a module"
    return parent


class FloatIntrinsicToLLVM(LoweringPattern):
    """exp exp2 log log2 log10 sqrt sin cos absf floor ceil trunc round roundeven powf copysign
    fma -> `llvm.<name>.<type>`."""

    ops = tuple(INTRINSICS)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if (name := INTRINSICS.get(op.name)) is None:
            return
        kernel_t = op.results[0].type
        t = lower_type(kernel_t)
        b = OpList()
        if name == "llvm.fma" and isinstance(t, Float16Type):
            # in f64 and rounded once, as the interpreter does (LLVM would also widen to
            # f64, but then call __truncdfhf2, which the process may not have)
            wide = [b.add(llvm.FPExtOp(a, f64)) for a in op.operands]
            f64_to_f16(b, b.add(intrinsic("llvm.fma.f64", wide, f64)))
        else:
            result = b.add(intrinsic(f"{name}.{float_suffix(t)}", op.operands, t))
            finish_float(b, result, kernel_t)
        rewriter.replace(op, b.ops)


class RsqrtToLLVM(LoweringPattern):
    """rsqrt(x) = 1 / sqrt(x), both correctly rounded (no approximate reciprocal)."""

    ops = (math.RsqrtOp.name,)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if not isinstance(op, math.RsqrtOp):
            return
        kernel_t = op.results[0].type
        t = lower_type(kernel_t)
        b = OpList()
        root = b.add(intrinsic(f"llvm.sqrt.{float_suffix(t)}", op.operands, t))
        result = b.add(llvm.FDivOp(b.const(1.0, t), root, FAST_MATH))
        finish_float(b, result, kernel_t)
        rewriter.replace(op, b.ops)


class LibmCallToLLVM(LoweringPattern):
    """tan tanh atan atan2 asin acos sinh cosh asinh acosh atanh erf log1p expm1 cbrt ->
    `llvm.call @tanhf` (f32, bf16 and f16 through f32) or `@tanh` (f64)."""

    ops = tuple(LIBM)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if (base := LIBM.get(op.name)) is None:
            return
        kernel_t = op.results[0].type
        t = lower_type(kernel_t)
        b = OpList()
        args: list[SSAValue] = list(op.operands)
        call_t = t
        if isinstance(t, Float16Type):
            call_t = f32
            args = [b.add(llvm.FPExtOp(a, f32)) for a in args]
        name = base if isinstance(call_t, Float64Type) else base + "f"
        declare_libm(op, name, call_t, len(args))
        result = b.add(llvm.CallOp(name, *args, return_type=call_t))
        if call_t != t:
            result = b.add(llvm.FPTruncOp(result, t))
        finish_float(b, result, kernel_t)
        rewriter.replace(op, b.ops)


class FpowiToLLVM(LoweringPattern):
    """fpowi(x, n) -> `llvm.powi.<f>.<i>` (repeated multiplication)."""

    ops = (math.FPowIOp.name,)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if not isinstance(op, math.FPowIOp):
            return
        kernel_t = op.results[0].type
        t = lower_type(kernel_t)
        name = f"llvm.powi.{float_suffix(t)}.{type_suffix(op.operands[1].type)}"
        b = OpList()
        result = b.add(intrinsic(name, op.operands, t))
        finish_float(b, result, kernel_t)
        rewriter.replace(op, b.ops)


class IpowiToLLVM(LoweringPattern):
    """ipowi(a, e), wrapping: square-and-multiply over the bits of |e| (unrolled: one step per
    bit of the width, folded by LLVM when e is a constant); for e < 0 the truncated 1 / a**|e|
    (1 for a = 1, +-1 for a = -1, else 0), as the interpreter defines it."""

    ops = (math.IPowIOp.name,)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if not isinstance(op, math.IPowIOp):
            return
        a, e = op.operands
        t = lower_type(op.results[0].type)
        width = bit_width(t)
        b = OpList()
        zero, one = b.const(0, t), b.const(1, t)
        negative = b.add(icmp(e, zero, "slt"))
        magnitude = b.add(llvm.SelectOp(negative, b.add(llvm.SubOp(zero, e)), e))
        result, base = one, a
        for bit in range(width):
            shifted = b.add(llvm.LShrOp(magnitude, b.const(bit, t)))
            is_set = b.add(icmp(b.add(llvm.AndOp(shifted, one)), zero, "ne"))
            result = b.add(llvm.SelectOp(is_set, b.add(llvm.MulOp(result, base)), result))
            if bit + 1 < width:
                base = b.add(llvm.MulOp(base, base))
        odd = b.add(icmp(b.add(llvm.AndOp(e, one)), zero, "ne"))
        minus_one = b.const(-1, t)
        of_minus_one = b.add(llvm.SelectOp(odd, minus_one, one))
        inverse = b.add(
            llvm.SelectOp(
                b.add(icmp(a, one, "eq")),
                one,
                b.add(llvm.SelectOp(b.add(icmp(a, minus_one, "eq")), of_minus_one, zero)),
            )
        )
        b.add(llvm.SelectOp(negative, inverse, result))
        rewriter.replace(op, b.ops)


class IntIntrinsicToLLVM(LoweringPattern):
    """absi ctlz cttz ctpop -> `llvm.abs.iN(x, false)` ... (defined for 0 and INT_MIN)."""

    ops = tuple(INT_INTRINSICS)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if (entry := INT_INTRINSICS.get(op.name)) is None:
            return
        name, takes_flag = entry
        t = lower_type(op.results[0].type)
        b = OpList()
        args = [op.operands[0]]
        if takes_flag:
            args.append(b.const(0, IntegerType(1)))
        b.add(intrinsic(f"{name}.{type_suffix(t)}", args, t))
        rewriter.replace(op, b.ops)


MATH_TO_LLVM_PATTERNS: tuple[LoweringPattern, ...] = (
    FloatIntrinsicToLLVM(),
    RsqrtToLLVM(),
    LibmCallToLLVM(),
    FpowiToLLVM(),
    IpowiToLLVM(),
    IntIntrinsicToLLVM(),
)
"""Every math lowering, in the order the walker offers them an op."""

"""Types and small op builders shared by the kernel-to-llvm lowerings.

The one type conversion of convert-to-llvm (`lower_type`):

| kernel type | llvm type | note |
|---|---|---|
| `index` | `i64` | |
| `iN`, `f16`, `f32`, `f64` | the same | |
| `bf16` | `f32` | a bf16 value is an f32 rounded to bf16 after every op (`round_to_bf16`) |
| `memref<...xT>` | `!llvm.ptr` | bare pointer to the first element; the static shape gives the strides |

In memory (`storage_type`, numpy dtype `storage_dtype`) an `i1` element is one byte (numpy's bool) and a `bf16` element is a
float32 holding a bf16 value, as the interpreter and the runtime store them (docs/decisions.md,
"Code generation").
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    VectorType,
    f16,
    f32,
    f64,
    i8,
    i32,
    i64,
)
from xdsl.dialects.utils.fast_math import FastMathFlag
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from xdsl_multi.dialects.element_types import is_bf16
from xdsl_multi.lowering import llvm_ops

if TYPE_CHECKING:
    import numpy as np

FAST_MATH = llvm.FastMathAttr([FastMathFlag.REASSOC, FastMathFlag.ALLOW_CONTRACT])
"""Flags on every float add, sub, mul, div and neg: reassociation lets LLVM vectorize float
reductions, contraction lets it form FMAs. No `nnan`/`ninf`/`nsz`: NaN and infinities propagate
as in numpy (docs/decisions.md)."""


def lower_type(t: Attribute) -> Attribute:
    """The llvm type of a kernel-level SSA value of type `t`."""
    if isinstance(t, IndexType):
        return i64
    if isinstance(t, BFloat16Type):
        return f32
    if isinstance(t, MemRefType):
        return llvm.LLVMPointerType()
    return t


def storage_type(element: Attribute) -> Attribute:
    """The llvm type of one memref element in memory."""
    if isinstance(element, IntegerType) and element.width.data == 1:
        return i8
    return lower_type(element)


_INT_DTYPES = {1: "bool", 8: "int8", 16: "int16", 32: "int32", 64: "int64"}


def storage_dtype(element: Attribute) -> np.dtype:
    """The numpy dtype of one element in memory, for the JIT, the runtime and the interpreter
    alike: `i1` is numpy bool (a byte), `index` int64, bf16 float32 (holding a bf16 value).
    Raises ValueError for an element type no numpy array holds."""
    import numpy as np  # deferred: multi-opt lowers to LLVM without numpy (~0.1 s to import)

    if isinstance(element, Float32Type | BFloat16Type):
        return np.dtype(np.float32)
    if isinstance(element, Float64Type):
        return np.dtype(np.float64)
    if isinstance(element, Float16Type):
        return np.dtype(np.float16)
    if isinstance(element, IndexType):
        return np.dtype(np.int64)
    if isinstance(element, IntegerType) and element.width.data in _INT_DTYPES:
        return np.dtype(_INT_DTYPES[element.width.data])
    raise ValueError(f"no numpy dtype for {element}")


def float_suffix(t: Attribute) -> str:
    """The intrinsic name suffix of a (lowered) float type: f16, f32, f64; of a vector of
    them: v16f32 (a register tile's vectors, vector_to_llvm.py)."""
    if isinstance(t, VectorType):
        return f"v{t.get_shape()[0]}{float_suffix(t.element_type)}"
    t = lower_type(t)
    if isinstance(t, Float16Type):
        return "f16"
    if isinstance(t, Float32Type):
        return "f32"
    if isinstance(t, Float64Type):
        return "f64"
    raise ValueError(f"not a float type: {t}")


def type_suffix(t: Attribute) -> str:
    """The intrinsic name suffix of a lowered scalar type: i32, f32, ..."""
    t = lower_type(t)
    if isinstance(t, IntegerType):
        return f"i{t.width.data}"
    return float_suffix(t)


NSW = llvm.OverflowAttr([llvm.OverflowFlag.NO_SIGNED_WRAP])
"""`overflow<nsw>`, on the index arithmetic of memory accesses."""
NSW_BITS = llvm_ops.overflow_bits(NSW)
"""`NSW` as an op's `overflowFlags` property (`llvm_ops.int_binary`)."""


class OpList:
    """Ops built one after the other for a rewrite: `add` returns the op's (first) result."""

    def __init__(self) -> None:
        self.ops: list[Operation] = []

    def add(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def const(self, value: float, t: Attribute) -> SSAValue:
        return self.add(constant(value, t))

    def extend(self, ops: Sequence[Operation]) -> None:
        self.ops.extend(ops)


def constant(value: float, t: Attribute) -> llvm.ConstantOp:
    """`llvm.mlir.constant(value) : t` for an integer or float type (already lowered)."""
    if isinstance(t, IntegerType):
        width = t.width.data
        v = int(value) & ((1 << width) - 1)
        if width > 1 and v >= 1 << (width - 1):
            v -= 1 << width  # IntegerAttr wants the signed value for signless types
        return llvm_ops.integer_constant(IntegerAttr(v, t))
    assert isinstance(t, AnyFloat), t
    return llvm_ops.float_constant(FloatAttr(float(value), t))


_ICMP_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")


def icmp(a: SSAValue, b: SSAValue, predicate: str) -> llvm.ICmpOp:
    """`llvm.icmp "predicate" %a, %b` (predicates as in arith.cmpi)."""
    return llvm_ops.icmp(a, b, _ICMP_PREDICATES.index(predicate))


def intrinsic(name: str, args: Sequence[SSAValue], result_type: Attribute) -> llvm.CallIntrinsicOp:
    """`llvm.call_intrinsic "name"(args)`: the full, type-mangled LLVM intrinsic name."""
    return llvm_ops.call_intrinsic(name, args, result_type)


def round_to_bf16(b: OpList, x: SSAValue) -> SSAValue:
    """Round the f32 value `x` to the nearest bf16 (ties to even), kept as an f32; a NaN stays a
    quiet NaN. The interpreter's `round_bf16`, bit for bit."""
    bits = b.add(llvm.BitcastOp(x, i32))
    shifted = b.add(llvm.LShrOp(bits, b.const(16, i32)))
    lsb = b.add(llvm.AndOp(shifted, b.const(1, i32)))
    biased = b.add(llvm.AddOp(b.add(llvm.AddOp(bits, b.const(0x7FFF, i32))), lsb))
    mask = b.const(0xFFFF0000, i32)
    rounded = b.add(llvm.AndOp(biased, mask))
    quiet_nan = b.add(llvm.OrOp(b.add(llvm.AndOp(bits, mask)), b.const(0x400000, i32)))
    is_nan = b.add(llvm.FCmpOp(x, x, "uno"))
    return b.add(llvm.BitcastOp(b.add(llvm.SelectOp(is_nan, quiet_nan, rounded)), f32))


def f64_to_f16(b: OpList, x: SSAValue) -> SSAValue:
    """The f64 `x` correctly rounded to f16, without LLVM's libcall for it (x86 has no f64 ->
    f16 instruction, and `__truncdfhf2` is not in every process): x is first rounded to f32
    toward zero with the last bit set when inexact ("round to odd"), which f32 -> f16 (an
    instruction with F16C) then rounds correctly."""
    nearest = b.add(llvm.FPTruncOp(x, f32))
    back = b.add(llvm.FPExtOp(nearest, f64))
    abs_back = b.add(intrinsic("llvm.fabs.f64", [back], f64))
    abs_x = b.add(intrinsic("llvm.fabs.f64", [x], f64))
    rounded_up = b.add(llvm.FCmpOp(abs_back, abs_x, "ogt"))
    bits = b.add(llvm.BitcastOp(nearest, i32))
    toward_zero = b.add(llvm.SelectOp(rounded_up, b.add(llvm.SubOp(bits, b.const(1, i32))), bits))
    inexact = b.add(llvm.FCmpOp(back, x, "one"))
    odd = b.add(llvm.OrOp(toward_zero, b.const(1, i32)))
    odd_f32 = b.add(llvm.BitcastOp(b.add(llvm.SelectOp(inexact, odd, toward_zero)), f32))
    return b.add(llvm.FPTruncOp(odd_f32, f16))


def finish_float(b: OpList, value: SSAValue, kernel_type: Attribute) -> SSAValue:
    """`value`, rounded to bf16 when the kernel-level result type is bf16."""
    return round_to_bf16(b, value) if is_bf16(kernel_type) else value


LLVM_CTYPES: dict[str, Any] = {
    "ptr": ctypes.c_void_p,
    "i1": ctypes.c_bool,
    "i8": ctypes.c_int8,
    "i16": ctypes.c_int16,
    "i32": ctypes.c_int32,
    "i64": ctypes.c_int64,
    "float": ctypes.c_float,
    "double": ctypes.c_double,
}
"""The ctypes of each LLVM parameter type a kernel may take (bare pointers for memrefs): how
the JIT and the runtime call kernels."""


def same_body(a: Region, b: Region, *, name_hints: bool = False) -> bool:
    """Whether two kernel bodies are the same code, the one structural equality of kernels:
    op by op the same name, properties, attributes and result types, blocks with the same
    argument types, values and blocks used the same way, nested regions alike; with
    `name_hints` also the same names of blocks and values (they show in LLVM IR text). xDSL's
    `is_structurally_equivalent` does not compare result types, so two `memref.alloca`s of
    different sizes would pass."""
    seen: dict[SSAValue | Block, SSAValue | Block] = {}

    def same_values(us: Sequence[SSAValue], vs: Sequence[SSAValue]) -> bool:
        if len(us) != len(vs):
            return False
        for u, v in zip(us, vs):
            if u.type != v.type or (name_hints and u.name_hint != v.name_hint):
                return False
            seen[u] = v
        return True

    def same_uses(us: Sequence[SSAValue | Block], vs: Sequence[SSAValue | Block]) -> bool:
        if len(us) != len(vs):
            return False
        for u, v in zip(us, vs):
            if seen.get(u) is not v:
                return False
        return True

    regions = [(a, b)]
    while regions:
        ra, rb = regions.pop()
        if len(ra.blocks) != len(rb.blocks):
            return False
        for x, y in zip(ra.blocks, rb.blocks):
            if (name_hints and x.name_hint != y.name_hint) or not same_values(x.args, y.args):
                return False
            seen[x] = y
        for x, y in zip(ra.blocks, rb.blocks):
            ops_x, ops_y = list(x.ops), list(y.ops)
            if len(ops_x) != len(ops_y):
                return False
            for o, p in zip(ops_x, ops_y):
                if (
                    o.name != p.name
                    or o.properties != p.properties
                    or o.attributes != p.attributes
                    or not same_uses(o.operands, p.operands)
                    or (
                        (o.successors or p.successors) and not same_uses(o.successors, p.successors)
                    )
                    or len(o.regions) != len(p.regions)
                    or not same_values(o.results, p.results)
                ):
                    return False
                if o.regions:
                    regions.extend(zip(o.regions, p.regions))
    return True

"""`memref.load`, `memref.store` and `memref.alloca` to the `llvm` dialect, inside kernels.

A memref is a bare `!llvm.ptr` to its first element (row-major, identity layout, static shape),
so an access is one `getelementptr inbounds` on the element type with the linearized index:

    %v = memref.load %m[%i, %j] : memref<4x8xf32>
      ->
    %c8 = llvm.mlir.constant(8 : i64) : i64
    %r = llvm.mul %i, %c8 overflow<nsw> : i64
    %l = llvm.add %r, %j overflow<nsw> : i64
    %p = llvm.getelementptr inbounds %m[%l] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    %v = llvm.load %p : !llvm.ptr -> f32

Addresses stay pointers (no ptrtoint/inttoptr), so LLVM's alias analysis and vectorizer see
through them. `i1` elements are bytes (numpy's bool): loaded as i8 and compared with 0, stored
zero-extended. `memref.alloca` becomes an `llvm.alloca` in the kernel's entry block (the scratch
is static, so one allocation serves every iteration of any loop around it).
"""

from __future__ import annotations

from xdsl.dialects import func, llvm, memref
from xdsl.dialects.builtin import (
    IntegerType,
    MemRefType,
    NoneAttr,
    StridedLayoutAttr,
    i8,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import PassFailedException

from xdsl_multi.lowering import llvm_ops
from xdsl_multi.lowering.llvm_types import NSW_BITS, OpList, constant, icmp, storage_type
from xdsl_multi.lowering.walker import LoweringPattern


def memref_type_of(op: Operation, value: SSAValue) -> MemRefType:
    """The static, row-major memref type of `value`, or a PassFailedException naming `op`."""
    t = value.type
    if not isinstance(t, MemRefType):
        raise PassFailedException(f"{op.name}: expected a memref operand, found {t}")
    if any(d < 0 for d in t.get_shape()):
        raise PassFailedException(f"{op.name}: kernels take static shapes only, found {t}")
    layout = t.layout
    if not isinstance(layout, NoneAttr) and not (
        isinstance(layout, StridedLayoutAttr) and _is_row_major(t, layout)
    ):
        raise PassFailedException(f"{op.name}: kernels take row-major memrefs only, found {t}")
    return t


def _is_row_major(t: MemRefType, layout: StridedLayoutAttr) -> bool:
    strides, offset = layout.get_strides(), layout.get_offset()
    expected: list[int] = []
    step = 1
    for d in reversed(t.get_shape()):
        expected.insert(0, step)
        step *= d
    return offset in (0, None) and list(strides) == expected


def element_pointer(
    b: OpList, op: Operation, ptr: SSAValue, indices: tuple[SSAValue, ...]
) -> tuple[SSAValue, Attribute]:
    """Build the address of `ptr[indices]`; return it with the element's storage type."""
    t = memref_type_of(op, ptr)
    element = storage_type(t.element_type)
    if not indices:
        return ptr, element
    linear = indices[0]
    for size, index in zip(t.get_shape()[1:], indices[1:]):
        scaled = b.add(llvm_ops.int_binary(llvm.MulOp, linear, b.const(size, i64), NSW_BITS))
        linear = b.add(llvm_ops.int_binary(llvm.AddOp, scaled, index, NSW_BITS))
    address = b.add(llvm_ops.gep(ptr, linear, element))
    return address, element


def _is_i1(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 1


class LoadToLLVM(LoweringPattern):
    ops = (memref.LoadOp.name,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.LoadOp, rewriter: PatternRewriter, /):
        b = OpList()
        address, element = element_pointer(b, op, op.memref, tuple(op.indices))
        loaded = b.add(llvm_ops.load(address, element))
        if _is_i1(op.res.type):
            b.add(icmp(loaded, b.const(0, i8), "ne"))
        rewriter.replace(op, b.ops)


class StoreToLLVM(LoweringPattern):
    ops = (memref.StoreOp.name,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.StoreOp, rewriter: PatternRewriter, /):
        b = OpList()
        value = op.value
        if _is_i1(value.type):
            value = b.add(llvm.ZExtOp(value, i8))
        address, _ = element_pointer(b, op, op.memref, tuple(op.indices))
        b.ops.append(llvm_ops.store(value, address))
        rewriter.replace(op, b.ops)


class AllocaToLLVM(LoweringPattern):
    """`memref.alloca() : memref<4x4xf32>` -> `llvm.alloca` of 16 f32 (64-byte aligned) at the
    start of the kernel's entry block."""

    ops = (memref.AllocaOp.name,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.AllocaOp, rewriter: PatternRewriter, /):
        t = memref_type_of(op, op.memref)
        kernel = op.parent_op()
        while kernel is not None and not isinstance(kernel, func.FuncOp | llvm.FuncOp):
            kernel = kernel.parent_op()
        assert kernel is not None and kernel.body.first_block is not None
        count = 1
        for d in t.get_shape():
            count *= d
        size = constant(count, i64)
        alloca = llvm.AllocaOp(size, storage_type(t.element_type), alignment=64)
        rewriter.insert([size, alloca], InsertPoint.at_start(kernel.body.first_block))
        rewriter.replace(op, [], [alloca.res])


class CollapseShapeToLLVM(LoweringPattern):
    """`memref.collapse_shape` of an identity-layout memref (a vector tile's view without
    trailing unit axes) -> the same pointer: the accesses through it were already lowered
    with the view's shape, which is why it runs in the walk after them, with `AllocaToLLVM`."""

    ops = (memref.CollapseShapeOp.name,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.CollapseShapeOp, rewriter: PatternRewriter, /):
        memref_type_of(op, op.src)
        memref_type_of(op, op.result)
        rewriter.replace(op, [], [op.src])


MEMREF_TO_LLVM_PATTERNS: tuple[LoweringPattern, ...] = (LoadToLLVM(), StoreToLLVM())
"""The load and store lowerings. `AllocaToLLVM` and `CollapseShapeToLLVM` run after them, in a
walk of their own: the accesses need the memref type of the scratch or the view, which an
`llvm.alloca` (or the viewed pointer) no longer has."""

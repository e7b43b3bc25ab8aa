"""`cf` branches, `func.return` and the kernel `func.func` itself to the `llvm` dialect.

    func.func @k(%x: memref<16xf32>, %n: index) attributes {multi.kernel} { ... }
      ->
    llvm.func @device1_k(%x: !llvm.ptr, %n: i64) attributes {multi.kernel, multi.device = 1 : i64,
        multi.kernel_type = (memref<16xf32>, index) -> ()} { ... }

The LLVM name says device and kernel (`device{K}_{name}`, SPEC §5); K is the `devidx.device`
of the enclosing device module, else the kernel's own `multi.device`; a kernel with neither
keeps its name. `multi.kernel_type` keeps the kernel-level signature (element types and shapes)
for the JIT, which checks the arrays it is called with against it.
"""

from __future__ import annotations

from xdsl.dialects import cf, func, llvm
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    MemRefType,
    StringAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Region
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern
from xdsl.rewriter import Rewriter

from xdsl_multi.dialects.multi import (
    KERNEL_ATTR,
    KERNEL_DEVICE_ATTR,
    KERNEL_TYPE_ATTR,
    LLVM_NAME_ATTR,
    WRITES_ATTR,
)
from xdsl_multi.lowering import llvm_ops
from xdsl_multi.lowering.llvm_types import lower_type
from xdsl_multi.lowering.walker import LoweringPattern


class BranchToLLVM(LoweringPattern):
    ops = (cf.BranchOp.name,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.BranchOp, rewriter: PatternRewriter, /):
        rewriter.replace(op, llvm_ops.br(op.successor, op.arguments))


class CondBranchToLLVM(LoweringPattern):
    ops = (cf.ConditionalBranchOp.name,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.ConditionalBranchOp, rewriter: PatternRewriter, /):
        rewriter.replace(
            op,
            llvm_ops.cond_br(
                op.cond, op.then_block, op.then_arguments, op.else_block, op.else_arguments
            ),
        )


class ReturnToLLVM(LoweringPattern):
    ops = (func.ReturnOp.name,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.ReturnOp, rewriter: PatternRewriter, /):
        rewriter.replace(op, llvm.ReturnOp())


FUNC_TO_LLVM_PATTERNS: tuple[LoweringPattern, ...] = (
    BranchToLLVM(),
    CondBranchToLLVM(),
    ReturnToLLVM(),
)
"""The terminator lowerings, in the order the walker offers them an op."""


def llvm_kernel_name(kernel: func.FuncOp, device: int | None) -> str:
    name = kernel.sym_name.data
    return name if device is None else f"device{device}_{name}"


def kernel_to_llvm_func(kernel: func.FuncOp, name: str, device: int | None) -> llvm.FuncOp:
    """The `llvm.func` taking over the (already lowered) body of `kernel`; block arguments
    get their llvm types. `kernel` is left with an empty body."""
    body = kernel.detach_region(kernel.body)
    for block in body.blocks:
        for arg in block.args:
            if (new_type := lower_type(arg.type)) != arg.type:
                Rewriter.replace_value_with_new_type(arg, new_type)
    inputs = [lower_type(t) for t in kernel.function_type.inputs.data]
    attributes = {KERNEL_ATTR: UnitAttr(), KERNEL_TYPE_ATTR: kernel.function_type}
    if WRITES_ATTR in kernel.attributes:
        attributes[WRITES_ATTR] = kernel.attributes[WRITES_ATTR]
    if device is not None:
        attributes[KERNEL_DEVICE_ATTR] = IntegerAttr(device, i64)
    props: dict[str, Attribute | None] = {"arg_attrs": kernel_arg_attrs(kernel)}
    return llvm.FuncOp(
        name,
        llvm.LLVMFunctionType(inputs),
        linkage=llvm.LinkageAttr("external"),
        body=body,
        other_props=props,
        extra_attrs=attributes,
    )


def kernel_arg_attrs(kernel: func.FuncOp) -> ArrayAttr[DictionaryAttr]:
    """`noalias` on every buffer argument (and the kernel's own argument attributes): the
    kernel level guarantees that the buffer a kernel writes is none of those it reads (a fresh
    allocation; docs/kernel-level.md), so LLVM needs no runtime alias checks before it
    vectorizes a loop. Buffers read twice may be the same one: noalias only constrains memory
    that is written."""
    own = kernel.arg_attrs.data if kernel.arg_attrs is not None else None
    out = []
    for k, t in enumerate(kernel.function_type.inputs.data):
        attrs = dict(own[k].data) if own is not None else {}
        if isinstance(t, MemRefType):
            attrs.setdefault("llvm.noalias", UnitAttr())
        out.append(DictionaryAttr(attrs))
    return ArrayAttr(out)


def kernel_declaration(kernel: func.FuncOp, llvm_name: str) -> func.FuncOp:
    """`func.func private @k(...) attributes {multi.kernel, multi.llvm_kernel = "device0_k"}`:
    what the host schedule's `func.call @k` still refers to."""
    declaration = func.FuncOp(
        kernel.sym_name.data, kernel.function_type, Region(), visibility="private"
    )
    declaration.attributes[KERNEL_ATTR] = UnitAttr()
    declaration.attributes[LLVM_NAME_ATTR] = StringAttr(llvm_name)
    if WRITES_ATTR in kernel.attributes:
        declaration.attributes[WRITES_ATTR] = kernel.attributes[WRITES_ATTR]
    if KERNEL_DEVICE_ATTR in kernel.attributes:
        declaration.attributes[KERNEL_DEVICE_ATTR] = kernel.attributes[KERNEL_DEVICE_ATTR]
    return declaration

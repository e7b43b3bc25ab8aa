"""convert-to-llvm: kernels (`func.func` with `multi.kernel`) to the `llvm` dialect, in Python.

Input, the kernel level (docs/decisions.md, "Code generation"): a kernel takes static-shaped
row-major memrefs and index/integer scalars, returns nothing, and its body uses scf.for/if/yield,
memref.load/store/alloca, scalar arith and math, func.return. Kernels sit in the top module or
in the device modules (`builtin.module @device_K {devidx.device = K}`) one level down. Nothing
else in the module changes: the host schedule (`@main`) stays as it is.

For each kernel:
1. the trivially dead ops erased, then scf.for / scf.if to cf branches (xDSL's scf-to-cf
   patterns, outer ops first, on the kernel only: what xDSL's greedy scf-to-cf walk gives,
   without its repeated walks; no cse first: xDSL's cse costs about 0.3 ms per op on big
   kernels, and LLVM's EarlyCSE/GVN do the same work in a fraction of that time);
2. block arguments other than memrefs get their llvm types (index -> i64, bf16 -> f32);
3. one walk, in block order, of the arith, math, memref and terminator lowerings
   (arith_to_llvm.py, math_to_llvm.py, memref_to_llvm.py, func_to_llvm.py, devidx_to_llvm.py
   for SPMD mode's `devidx.lookup` tables, vector_to_llvm.py for register tiles; walker.py
   gives each op to the patterns that name it): an op's operands
   are already lowered when it is rewritten, except memrefs, which keep their type (and so their
   shape) for the loads and stores; the op's own result types are still the kernel-level ones;
4. a second walk turns `memref.alloca` into `llvm.alloca` and `memref.collapse_shape` (a
   vector tile's view) into the pointer it views;
5. the body moves into `llvm.func @device{K}_{name}` (func_to_llvm.py). Where the host calls
   the kernel, a bodiless `func.func private` with the kernel's name and signature stays for
   those calls, pointing at the llvm function (`multi.llvm_kernel`).

`-t llvm` (llvm_target.py) prints one LLVM module with every kernel of every device.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, llvm, scf
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, StringAttr, i64
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import PassFailedException

from xdsl_multi.dialects.devidx import DEVICE_ATTR
from xdsl_multi.dialects.multi import (
    KERNEL_ATTR,
    KERNEL_DEVICE_ATTR,
    KERNEL_OF_ATTR,
    LLVM_NAME_ATTR,
)
from xdsl_multi.lowering.arith_to_llvm import ARITH_TO_LLVM_PATTERNS
from xdsl_multi.lowering.devidx_to_llvm import DEVIDX_TO_LLVM_PATTERNS
from xdsl_multi.lowering.func_to_llvm import (
    FUNC_TO_LLVM_PATTERNS,
    kernel_declaration,
    kernel_to_llvm_func,
    llvm_kernel_name,
)
from xdsl_multi.lowering.llvm_types import lower_type, same_body
from xdsl_multi.lowering.math_to_llvm import MATH_TO_LLVM_PATTERNS
from xdsl_multi.lowering.memref_to_llvm import (
    MEMREF_TO_LLVM_PATTERNS,
    AllocaToLLVM,
    CollapseShapeToLLVM,
)
from xdsl_multi.lowering.scf_to_branches import ForToCfBranches, IfToCfBranches
from xdsl_multi.lowering.vector_to_llvm import VECTOR_TO_LLVM_PATTERNS
from xdsl_multi.lowering.walker import LoweringPattern, LoweringWalker, erase_dead_ops


def find_kernels(module: ModuleOp) -> Iterator[tuple[func.FuncOp, int | None]]:
    """Every kernel of the module and of its device modules, with its device number (not the
    declarations of SPMD mode, `multi.kernel_of = K`: device K's module holds the body)."""
    for op in list(module.ops):
        if isinstance(op, func.FuncOp) and KERNEL_ATTR in op.attributes:
            if not _is_shared_declaration(op):
                yield op, _device_of(op, None)
        elif isinstance(op, ModuleOp):
            device = _device_of(op, None, DEVICE_ATTR)
            for inner in list(op.ops):
                if (
                    isinstance(inner, func.FuncOp)
                    and KERNEL_ATTR in inner.attributes
                    and not _is_shared_declaration(inner)
                ):
                    yield inner, _device_of(inner, device)


def _is_shared_declaration(op: func.FuncOp) -> bool:
    return not op.body.blocks and KERNEL_OF_ATTR in op.attributes


def name_shared_declarations(module: ModuleOp) -> None:
    """SPMD mode: each declaration `{multi.kernel_of = K}` of a device module names the llvm
    function of device K's kernel (`multi.llvm_kernel`), which the runtime calls for it."""
    for op in _module_ops(module):
        if isinstance(op, func.FuncOp) and _is_shared_declaration(op):
            owner = op.attributes[KERNEL_OF_ATTR]
            if not isinstance(owner, IntegerAttr):
                raise PassFailedException(
                    f"convert-to-llvm: @{op.sym_name.data}: {KERNEL_OF_ATTR} must be an integer"
                )
            op.attributes[LLVM_NAME_ATTR] = StringAttr(llvm_kernel_name(op, owner.value.data))


def _module_ops(module: ModuleOp) -> Iterator[Operation]:
    """The ops of `module` and of the modules nested in it, not those inside functions."""
    for op in module.ops:
        yield op
        if isinstance(op, ModuleOp):
            yield from _module_ops(op)


def _device_of(op: Operation, default: int | None, attr: str = KERNEL_DEVICE_ATTR) -> int | None:
    value = op.attributes.get(attr)
    if isinstance(value, IntegerAttr):
        return value.value.data
    return default


def _is_called(module: ModuleOp, name: str) -> bool:
    """Whether a `func.call @name` exists anywhere in `module`."""
    return name in called_names(module)


def called_names(module: ModuleOp) -> set[str]:
    """The callees of every `func.call` anywhere in `module`."""
    return {op.callee.string_value() for op in module.walk() if isinstance(op, func.CallOp)}


def check_kernel(op: func.FuncOp) -> None:
    """Reject what the kernel contract excludes, before rewriting anything."""
    if op.function_type.outputs.data:
        raise PassFailedException(
            f"convert-to-llvm: kernel @{op.sym_name.data} returns values; kernels write "
            "their results to memref arguments"
        )
    if not op.body.blocks:
        raise PassFailedException(f"convert-to-llvm: kernel @{op.sym_name.data} has no body")


def check_lowered(kernel: func.FuncOp) -> None:
    """After the patterns, every op of the body must be in the llvm dialect."""
    for op in kernel.body.walk():
        if not op.name.startswith("llvm."):
            raise PassFailedException(
                f"convert-to-llvm: cannot lower '{op.name}' in kernel @{kernel.sym_name.data} "
                "(not part of the kernel contract)"
            )


class IfToBranches(IfToCfBranches, LoweringPattern):
    """xDSL's `scf.if` lowering (convert_scf_to_cf.py; ours builds its ops cheaply:
    scf_to_branches.py), for the walker."""

    ops = (scf.IfOp.name,)


class ForToBranches(ForToCfBranches, LoweringPattern):
    """xDSL's `scf.for` lowering (convert_scf_to_cf.py; ours builds its ops cheaply:
    scf_to_branches.py), for the walker."""

    ops = (scf.ForOp.name,)


_LOWER_SCF = LoweringWalker([IfToBranches(), ForToBranches()])
_TO_LLVM = LoweringWalker(
    [
        *ARITH_TO_LLVM_PATTERNS,
        *MATH_TO_LLVM_PATTERNS,
        *MEMREF_TO_LLVM_PATTERNS,
        *FUNC_TO_LLVM_PATTERNS,
        *DEVIDX_TO_LLVM_PATTERNS,
        *VECTOR_TO_LLVM_PATTERNS,
    ]
)
_ALLOCA_TO_LLVM = LoweringWalker([AllocaToLLVM(), CollapseShapeToLLVM()])


def lower_scalar_block_args(kernel: func.FuncOp) -> None:
    """Give every non-memref block argument its llvm type (index -> i64, bf16 -> f32)."""
    for block in kernel.body.blocks:
        for arg in block.args:
            if not isinstance(arg.type, MemRefType) and (t := lower_type(arg.type)) != arg.type:
                Rewriter.replace_value_with_new_type(arg, t)


def lower_kernel(
    kernel: func.FuncOp,
    device: int | None,
    twin: llvm.FuncOp | None = None,
    *,
    called: bool | None = None,
) -> llvm.FuncOp:
    """Lower one kernel in place; return its llvm.func (inserted where the kernel was).
    `twin`: the lowered form of a kernel with the same signature and body (another device's
    copy): its clone is taken instead of lowering again. `called`: whether the kernel's module
    calls it (looked up when not given)."""
    check_kernel(kernel)
    name = llvm_kernel_name(kernel, device)
    if called is None:
        module = kernel.parent_op()
        assert isinstance(module, ModuleOp)
        called = _is_called(module, kernel.sym_name.data)
    if twin is not None:
        llvm_func = clone_function(twin)
        llvm_func.sym_name = StringAttr(name)
        if device is not None:
            llvm_func.attributes[KERNEL_DEVICE_ATTR] = IntegerAttr(device, i64)
        module = kernel.parent_op()
        assert isinstance(module, ModuleOp)
        _declare_callees(llvm_func, twin, module)
        replacement: list[Operation] = [llvm_func]
        if called:
            replacement.insert(0, kernel_declaration(kernel, name))
        Rewriter.replace_op(kernel, replacement, [])
        return llvm_func
    erase_dead_ops(kernel.body)
    _LOWER_SCF.rewrite_region(kernel.body)
    lower_scalar_block_args(kernel)
    _TO_LLVM.rewrite_region(kernel.body)
    _ALLOCA_TO_LLVM.rewrite_region(kernel.body)
    check_lowered(kernel)
    if called and name == kernel.sym_name.data:
        raise PassFailedException(
            f"convert-to-llvm: kernel @{name} is called by the host but has no device "
            "(no enclosing devidx.device module, no multi.device attribute), so its llvm "
            "function would take the name the calls need"
        )
    llvm_func = kernel_to_llvm_func(kernel, name, device)
    replacement: list[Operation] = [llvm_func]
    if called:
        replacement.insert(0, kernel_declaration(kernel, name))
    Rewriter.replace_op(kernel, replacement, [])
    return llvm_func


@dataclass(frozen=True)
class ConvertToLLVM(ModulePass):
    """Kernels to the llvm dialect (see the module docstring)."""

    name = "convert-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # Devices of an even program hold identical kernels: each group of identical ones is
        # lowered once, the others are clones of it (SPMD mode keeps one copy to begin with).
        kernels = list(find_kernels(op))
        first_of: dict[int, int] = {}  # kernel position -> the identical one before it
        by_type: dict[Attribute, list[int]] = {}
        for k, (kernel, _) in enumerate(kernels):
            same = by_type.setdefault(kernel.function_type, [])
            twin = next((j for j in same if same_body(kernels[j][0].body, kernel.body)), None)
            if twin is None:
                same.append(k)
            else:
                first_of[k] = twin
        # the calls of each module (host code, which lowering leaves alone), found once
        calls: dict[Operation | None, set[str]] = {}
        for kernel, _ in kernels:
            module = kernel.parent_op()
            if module not in calls:
                assert isinstance(module, ModuleOp)
                calls[module] = called_names(module)
        lowered: dict[int, llvm.FuncOp] = {}
        for k, (kernel, device) in enumerate(kernels):
            if k not in first_of:
                called = kernel.sym_name.data in calls[kernel.parent_op()]
                lowered[k] = lower_kernel(kernel, device, called=called)
        for k, twin in first_of.items():
            kernel, device = kernels[k]
            called = kernel.sym_name.data in calls[kernel.parent_op()]
            lowered[k] = lower_kernel(kernel, device, lowered[twin], called=called)
        name_shared_declarations(op)


def clone_function(op: llvm.FuncOp) -> llvm.FuncOp:
    """`op.clone()` for an llvm function whose body has no nested regions (a lowered
    kernel): the same ops, attributes, locations and name hints, each op built once with its
    operands (xDSL's clone sets every op's operands twice and walks the body twice)."""
    new = op.clone_without_regions()
    values: dict[SSAValue, SSAValue] = {}
    blocks: dict[Block, Block] = {}
    for block in op.body.blocks:
        copy = Block(arg_types=block.arg_types)
        for arg, new_arg in zip(block.args, copy.args, strict=True):
            new_arg.name_hint, new_arg.location = arg.name_hint, arg.location
            values[arg] = new_arg
        blocks[block] = copy
        new.body.add_block(copy)
    later: list[tuple[Operation, Operation]] = []  # ops using a value defined further down
    for block in op.body.blocks:
        ops: list[Operation] = []
        for inner in block.ops:
            assert not inner.regions, inner.name
            operands = [values.get(v) for v in inner.operands]
            copy = type(inner).create(
                operands=[v for v in operands if v is not None],
                result_types=inner.result_types,
                properties=inner.properties,
                attributes=inner.attributes,
                location=inner.location,
                successors=[blocks.get(b, b) for b in inner.successors],
            )
            if len(copy.operands) != len(operands):
                later.append((inner, copy))
            for result, new_result in zip(inner.results, copy.results, strict=True):
                new_result.name_hint = result.name_hint
                values[result] = new_result
            ops.append(copy)
        blocks[block].add_ops(ops)
    for inner, copy in later:
        copy.operands = [values.get(v, v) for v in inner.operands]
    return new


def _declare_callees(llvm_func: llvm.FuncOp, twin: llvm.FuncOp, module: ModuleOp) -> None:
    """The functions a cloned kernel calls (libm) declared in its module as in its twin's."""
    twin_module = twin.parent_op()
    assert isinstance(twin_module, ModuleOp)
    for op in llvm_func.walk():
        if isinstance(op, llvm.CallOp) and op.callee is not None:
            name = op.callee.string_value()
            if SymbolTable.lookup_symbol(module, name) is None:
                declaration = SymbolTable.lookup_symbol(twin_module, name)
                assert declaration is not None, f"@{name} is declared next to the twin"
                module.body.block.add_op(declaration.clone())

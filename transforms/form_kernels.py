"""`form-kernels`: each device's tensor program becomes kernels over memrefs and a host schedule
(SPEC §5; the kernel-level contract is docs/kernel-level.md).

```mlir
// before (device level)
builtin.module @device_0 attributes {devidx.device = 0 : i64} {
  func.func @main(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
    %s = tg.reduce add %x [1] : tensor<4x16xf32> -> tensor<4x1xf32>
    ...
    func.return %y : tensor<4x16xf32>
  }
}
// after (kernel level)
builtin.module @device_0 attributes {devidx.device = 0 : i64} {
  func.func @kernel0(%x: memref<4x16xf32>, %out: memref<4x16xf32>) attributes {multi.kernel} {
    scf.for %i = ... {  %s = scf.for ... iter_args(...) { ... }  ...  scf.for %j = ... { memref.store ... } }
    func.return
  }
  func.func @main(%x: memref<4x16xf32>) -> memref<4x16xf32> {
    %y = memref.alloc() : memref<4x16xf32>
    func.call @kernel0(%x, %y) : (memref<4x16xf32>, memref<4x16xf32>) -> ()
    func.return %y : memref<4x16xf32>
  }
}
```

The pieces: kernel_analysis.py decides what is materialized and how each kernel loops,
scalar_graph.py, tensor_elements.py and index_maps.py say what one element is, kernel_codegen.py writes the loops.
Here: the host schedule. It follows @main's op order: each materialized value's kernel runs where
the value was defined, sends and receives keep their order (so the devices still meet their
messages in one global order), and each buffer is freed after its last use. A result that is an
argument, or a buffer already returned, is copied (`memref.copy`) so results never alias.

A module with device modules (`devidx.device = K`) gets this per device module; a module that is
only a `func.func @main` on plain tensors is treated as one device.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import ModuleOp, NoneAttr, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import PassFailedException

from xdsl_multi.dialects import devidx
from xdsl_multi.transforms.kernel_analysis import Fusion, TilePolicy, analyze
from xdsl_multi.transforms.kernel_codegen import build_kernel, memref_type
from xdsl_multi.transforms.tensor_elements import Splats

DEVICE_ATTR = "devidx.device"
SIGNATURE_ATTR = "multi.signature"

RECURSION_LIMIT = 100_000
"""Fused expressions are followed recursively; long elementwise chains (the C1 benchmark) go
deeper than Python's default limit, which is raised while the pass runs."""


@contextmanager
def deep_recursion(limit: int = RECURSION_LIMIT) -> Iterator[None]:
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


# --------------------------------------------------------------------------------------------
# The host schedule
# --------------------------------------------------------------------------------------------


def build_schedule(main: func.FuncOp, fusion: Fusion, kernels: dict[SSAValue, str]) -> func.FuncOp:
    """@main over memrefs: allocate, call kernels, send, receive, free, return."""
    old = main.body.block
    inputs = [memref_type(t) for t in main.function_type.inputs]
    outputs = [memref_type(t) for t in main.function_type.outputs]
    block = Block(arg_types=inputs)
    for old_arg, new_arg in zip(old.args, block.args, strict=True):
        new_arg.name_hint = old_arg.name_hint
    buffer: dict[SSAValue, SSAValue] = dict(zip(old.args, block.args, strict=True))
    for op in old.ops:
        for r in op.results:
            plan = fusion.plan_of(r)
            if plan is None:
                continue
            if plan.alias is not None:
                buffer[r] = buffer[plan.alias]
                continue
            t = memref_type(r.type)
            alloc = memref.AllocOp.get(t.element_type, shape=t.get_shape())
            block.add_op(alloc)
            args = [buffer[v] for v in plan.leaves] + [alloc.memref]
            block.add_op(func.CallOp(kernels[r], args, []))
            buffer[r] = alloc.memref
        if isinstance(op, devidx.RecvOp):
            recv = devidx.RecvOp(
                op.source.value.data, op.channel.value.data, memref_type(op.result.type)
            )
            block.add_op(recv)
            buffer[op.result] = recv.result
        elif isinstance(op, devidx.SendOp):
            block.add_op(devidx.SendOp(buffer[op.value], op.dest.value.data, op.channel.value.data))
        elif isinstance(op, func.ReturnOp):
            block.add_op(func.ReturnOp(*_results(block, [buffer[v] for v in op.operands])))
        elif isinstance(op, func.CallOp):
            raise PassFailedException("form-kernels: @main may not call functions")
    _free_after_last_use(block)
    new = func.FuncOp(main.sym_name.data, (inputs, outputs), Region(block))
    return new


def _results(block: Block, values: list[SSAValue]) -> list[SSAValue]:
    """Results that never alias an argument or each other (copies where they would)."""
    out: list[SSAValue] = []
    for v in values:
        if v in block.args or v in out:
            t = v.type
            assert isinstance(t, memref.MemRefType)
            alloc = memref.AllocOp.get(t.element_type, shape=t.get_shape())
            block.add_op(alloc)
            block.add_op(memref.CopyOp(v, alloc.memref))
            v = alloc.memref
        out.append(v)
    return out


def _free_after_last_use(block: Block) -> None:
    ops = list(block.ops)
    returned = set(ops[-1].operands) if isinstance(ops[-1], func.ReturnOp) else set()
    last_use: dict[SSAValue, Operation] = {}
    for op in ops:
        for r in op.results:
            if isinstance(op, memref.AllocOp | devidx.RecvOp):
                last_use[r] = op
        for v in op.operands:
            if v in last_use:
                last_use[v] = op
    for v, op in last_use.items():
        if v not in returned:
            Rewriter.insert_op(memref.DeallocOp.get(v), InsertPoint.after(op))


# --------------------------------------------------------------------------------------------
# The pass
# --------------------------------------------------------------------------------------------


def _unique_name(module: ModuleOp, counter: list[int]) -> str:
    while True:
        name = f"kernel{counter[0]}"
        counter[0] += 1
        if SymbolTable.lookup_symbol(module, name) is None:
            return name


def form_module_kernels(module: ModuleOp, policy: TilePolicy, splats: Splats) -> None:
    """Kernels and a host schedule for the @main of one (device) module."""
    main = SymbolTable.lookup_symbol(module, "main")
    if not isinstance(main, func.FuncOp) or not main.body.blocks:
        raise PassFailedException("form-kernels: the module has no func.func @main with a body")
    for t in [*main.function_type.inputs, *main.function_type.outputs]:
        if not isinstance(t, TensorType) or not isinstance(t.encoding, NoneAttr):
            raise PassFailedException(
                f"form-kernels: @main must take and return plain tensors (the device level: run "
                f"multi-to-devidx, devidx-simplify and specialize-devices first), found {t}"
            )
    top = module
    while isinstance(top.parent_op(), ModuleOp):
        top = top.parent_op()
    assert isinstance(top, ModuleOp)
    if SIGNATURE_ATTR not in top.attributes:  # every level keeps the logical signature
        top.attributes[SIGNATURE_ATTR] = main.function_type
    with deep_recursion():
        fusion = analyze(main.body.block, policy, splats)
        counter = [0]
        kernels: dict[SSAValue, str] = {}
        for plan in fusion.plans:
            if plan.alias is not None:
                continue
            name = _unique_name(module, counter)
            Rewriter.insert_op(build_kernel(plan, name), InsertPoint.before(main))
            kernels[plan.root] = name
        schedule = build_schedule(main, fusion, kernels)
    Rewriter.replace_op(main, schedule)


@dataclass(frozen=True)
class FormKernels(ModulePass):
    """Fuse each device's tensor ops into kernels over memrefs and leave a host schedule.

    Options: the register tile of matmul-shaped reductions (`tile-rows`, `tile-cols`)."""

    name = "form-kernels"

    tile_rows: int = 8
    tile_cols: int = 32

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.tile_rows < 1 or self.tile_cols < 1:
            raise PassFailedException("form-kernels: tile-rows and tile-cols must be >= 1")
        policy = TilePolicy(self.tile_rows, self.tile_cols)
        devices = [
            m for m in op.body.block.ops if isinstance(m, ModuleOp) and DEVICE_ATTR in m.attributes
        ]
        splats = Splats()
        for m in devices or [op]:
            form_module_kernels(m, policy, splats)

"""`devidx.lookup` in a kernel to the `llvm` dialect: a constant global table indexed by the
index (data, not ops: a kernel of SPMD mode has the same ops whatever the number of devices).

```mlir
%k = devidx.lookup %d in [2, 0, 1] : index
// becomes, with @devidx_table_<digest> = dense<[2, 0, 1]> : !llvm.array<3 x i64> in the module:
%t = llvm.mlir.addressof @devidx_table_<digest> : !llvm.ptr
%p = llvm.getelementptr inbounds %t[0, %d] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.array<3 x i64>
%k = llvm.load %p : !llvm.ptr -> i64
```
"""

from __future__ import annotations

import hashlib

from xdsl.dialects import llvm
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, TensorType, i64
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import SymbolTable

from xdsl_multi.dialects import devidx
from xdsl_multi.lowering.walker import LoweringPattern


def table_global(module: ModuleOp, values: tuple[int, ...]) -> str:
    """The name of the module's constant global holding `values` (made on first use)."""
    digest = hashlib.sha1(repr(values).encode()).hexdigest()[:16]
    name = f"devidx_table_{digest}"
    if SymbolTable.lookup_symbol(module, name) is None:
        array = llvm.LLVMArrayType(len(values), i64)
        data = DenseIntOrFPElementsAttr.from_list(TensorType(i64, [len(values)]), list(values))
        g = llvm.GlobalOp(array, name, "internal", constant=True, value=data)
        Rewriter.insert_op(g, InsertPoint.at_start(module.body.block))
    return name


def _top_module(op: Operation) -> ModuleOp:
    top: ModuleOp | None = None
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, ModuleOp):
            top = parent
        parent = parent.parent_op()
    assert top is not None, "devidx.lookup outside a module"
    return top


class LookupToLLVM(LoweringPattern):
    """`devidx.lookup %i in [...]` -> load of entry %i of a constant global array."""

    ops = (devidx.LookupOp.name,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: devidx.LookupOp, rewriter: PatternRewriter, /) -> None:
        values = op.values
        name = table_global(_top_module(op), values)
        array = llvm.LLVMArrayType(len(values), i64)
        address = llvm.AddressOfOp(name, llvm.LLVMPointerType())
        entry = llvm.GEPOp(
            address, [0, llvm.GEP_USE_SSA_VAL], array, ssa_indices=[op.index], inbounds=True
        )
        rewriter.replace(op, [address, entry, llvm.LoadOp(entry, i64)])


DEVIDX_TO_LLVM_PATTERNS: list[LoweringPattern] = [LookupToLLVM()]

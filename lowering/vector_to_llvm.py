"""The `vector` ops of the kernel level (a register tile, form_kernels/vector_tile.py) to the
`llvm` dialect. Vector types stay as they are (`vector<16xf32>` is an LLVM vector type); the
tile's `arith` ops on vectors take the scalar lowerings (arith_to_llvm.py), whose intrinsic
names carry the vector suffix (`llvm.maximum.v16f32`).

| kernel op | llvm |
|---|---|
| `vector.load %m[%i, %j] : memref<..xf32>, vector<16xf32>` | `getelementptr inbounds` of [i, j], `llvm.load` of the vector, `align` of one element |
| `vector.store %v, %m[%i, %j]` | the same address, `llvm.store` with the element's alignment |
| `vector.broadcast %x : f32 to vector<16xf32>` | `llvm.insertelement` into lane 0 of an undef vector, `llvm.shufflevector` with an all-zero mask |
| `vector.fma %a, %b, %c` | `llvm.fma.v16f32` (rounds once per lane, as math.fma) |

Accesses are aligned to one element only: a tile's row starts at any column.
"""

from __future__ import annotations

from xdsl.dialects import llvm, vector
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, VectorType, i32, i64
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern
from xdsl.utils.exceptions import PassFailedException

from xdsl_multi.dialects.element_types import bit_width
from xdsl_multi.lowering import llvm_ops
from xdsl_multi.lowering.llvm_types import OpList, float_suffix, intrinsic, storage_type
from xdsl_multi.lowering.memref_to_llvm import element_pointer, memref_type_of
from xdsl_multi.lowering.walker import LoweringPattern


def _element_alignment(op: vector.LoadOp | vector.StoreOp) -> IntegerAttr:
    element = storage_type(memref_type_of(op, op.base).element_type)
    return IntegerAttr(max(1, bit_width(element) // 8), i64)


class VectorLoadToLLVM(LoweringPattern):
    ops = (vector.LoadOp.name,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: vector.LoadOp, rewriter: PatternRewriter, /):
        b = OpList()
        address, _ = element_pointer(b, op, op.base, tuple(op.indices))
        load = llvm_ops.load(address, op.result.type)
        load.properties["alignment"] = _element_alignment(op)
        b.add(load)
        rewriter.replace(op, b.ops)


class VectorStoreToLLVM(LoweringPattern):
    ops = (vector.StoreOp.name,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: vector.StoreOp, rewriter: PatternRewriter, /):
        b = OpList()
        address, _ = element_pointer(b, op, op.base, tuple(op.indices))
        store = llvm_ops.store(op.vector, address)
        store.properties["alignment"] = _element_alignment(op)
        b.ops.append(store)
        rewriter.replace(op, b.ops)


class BroadcastToLLVM(LoweringPattern):
    ops = (vector.BroadcastOp.name,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: vector.BroadcastOp, rewriter: PatternRewriter, /):
        t = op.vector.type
        if not isinstance(t, VectorType) or isinstance(op.source.type, VectorType):
            raise PassFailedException(
                f"vector.broadcast: expected a scalar to a 1-d vector, found {t}"
            )
        lanes = t.get_shape()[0]
        b = OpList()
        undef = b.add(llvm.UndefOp(t))
        lane0 = b.add(llvm.InsertElementOp(undef, op.source, b.const(0, i32)))
        mask = DenseArrayBase.from_list(i32, [0] * lanes)
        b.add(llvm.ShuffleVectorOp(lane0, undef, mask, t))
        rewriter.replace(op, b.ops)


class VectorFmaToLLVM(LoweringPattern):
    ops = (vector.FMAOp.name,)

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: vector.FMAOp, rewriter: PatternRewriter, /):
        t = op.res.type
        rewriter.replace(op, intrinsic(f"llvm.fma.{float_suffix(t)}", op.operands, t))


VECTOR_TO_LLVM_PATTERNS: tuple[LoweringPattern, ...] = (
    VectorLoadToLLVM(),
    VectorStoreToLLVM(),
    BroadcastToLLVM(),
    VectorFmaToLLVM(),
)

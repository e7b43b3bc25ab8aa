"""Facts about a kernel that the runtime needs and that its IR says: which arguments it writes
(the executor's hand-over sends copy a buffer that a later kernel would overwrite).

```python
written_arguments(kernel)         # frozenset of argument positions
with_writes(kernel)               # the same fact as the attribute `multi.writes`
```

The attribute `multi.writes = array<i64: ...>` carries the fact where the body is gone (the
compile cache's runtime form keeps only each kernel's name and signature); without it, the
body is analysed.
"""

from __future__ import annotations

from xdsl.dialects import func, llvm, memref, vector
from xdsl.dialects.builtin import DenseArrayBase, i64
from xdsl.ir import Block, Operation, SSAValue

from xdsl_multi.dialects.multi import WRITES_ATTR

_MEMREF_VIEWS = (
    memref.SubviewOp,
    memref.CastOp,
    memref.ReinterpretCastOp,
    memref.CollapseShapeOp,
    memref.ExpandShapeOp,
    memref.ViewOp,
    memref.MemorySpaceCastOp,
)


def written_arguments(kernel: Operation) -> frozenset[int]:
    """The argument positions a kernel (`func.func` over memrefs or `llvm.func` over
    pointers) may write: followed through views and address arithmetic to stores and copies.
    An argument used any other way (passed to a call, stored as a value...) counts as
    written. A kernel carrying `multi.writes` (`with_writes`) is taken at its word."""
    given = kernel.attributes.get(WRITES_ATTR)
    if isinstance(given, DenseArrayBase):
        return frozenset(int(i) for i in given.get_values())
    if not isinstance(kernel, func.FuncOp | llvm.FuncOp) or not kernel.body.blocks:
        return frozenset()
    block: Block = kernel.body.blocks[0]
    written: set[int] = set()
    for index, arg in enumerate(block.args):
        work: list[SSAValue] = [arg]
        while work and index not in written:
            value = work.pop()
            for use in value.uses:
                op = use.operation
                if isinstance(op, memref.LoadOp | llvm.LoadOp | memref.DimOp | vector.LoadOp):
                    continue
                if (
                    isinstance(op, memref.StoreOp)
                    and op.memref is value
                    and op.value is not value
                    or isinstance(op, llvm.StoreOp)
                    and op.ptr is value
                    and op.value is not value
                ):
                    written.add(index)
                elif isinstance(op, memref.CopyOp) and op.source is value:
                    if op.destination is value:
                        written.add(index)
                elif isinstance(op, _MEMREF_VIEWS) or (
                    isinstance(op, llvm.GEPOp) and op.ptr is value
                ):
                    work.extend(op.results)
                else:
                    written.add(index)
    return frozenset(written)


def with_writes(kernel: Operation) -> frozenset[int]:
    """Record `written_arguments(kernel)` on it as `multi.writes`; return them."""
    written = written_arguments(kernel)
    kernel.attributes[WRITES_ATTR] = DenseArrayBase.from_list(i64, sorted(written))
    return written


__all__ = ["with_writes", "written_arguments"]

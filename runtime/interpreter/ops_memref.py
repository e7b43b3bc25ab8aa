"""Handlers of `memref` at the kernel level (form-kernels' output, docs/kernel-level.md).

A memref is a `Buffer` (values.py): a numpy array written in place. The interpreter checks the
kernel-level contract as it runs, so a pass that breaks it fails here with the op named:
- loads and stores stay in bounds (numpy would silently wrap a negative index);
- nothing reads or writes a buffer after `memref.dealloc`, and only `memref.alloc`ed or
  received buffers are freed (never an argument, an `alloca` or a buffer freed before);
- a fresh `alloc`/`alloca` holds garbage (NaN, or a fixed bit pattern for integers), so a kernel
  that reads what it never wrote gives visibly wrong results.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation

from xdsl_multi.runtime.interpreter.machine import Handler, Machine
from xdsl_multi.runtime.values import Buffer, Value, dtype_of, op_error

GARBAGE_INT = 0x5A
"""What a fresh integer buffer holds in every byte (floats hold NaN, i1 holds true)."""


def garbage(t: MemRefType) -> np.ndarray:
    shape = tuple(t.get_shape())
    dtype = dtype_of(t.element_type)
    if dtype.kind == "f":
        return np.full(shape, np.nan, dtype)
    if dtype == np.bool_:
        return np.ones(shape, bool)
    raw = np.full((*shape, dtype.itemsize), GARBAGE_INT, np.uint8)
    return raw.view(dtype).reshape(shape)


def buffer_of(op: Operation, v: Value, what: str = "memref") -> Buffer:
    if not isinstance(v, Buffer):
        raise op_error(op, f"expected a {what} operand, found {v!r}")
    if v.freed:
        raise op_error(op, f"the {what} was freed by memref.dealloc before this use")
    return v


def indices_of(op: Operation, buf: Buffer, args: list[Value]) -> tuple[int, ...]:
    shape = buf.data.shape
    if len(args) != len(shape):
        raise op_error(op, f"{len(args)} indices for a memref of rank {len(shape)}")
    out = []
    for axis, (v, n) in enumerate(zip(args, shape, strict=True)):
        if not isinstance(v, np.integer):
            raise op_error(op, f"index {axis} must be an index scalar, found {v!r}")
        i = int(v)
        if not 0 <= i < n:
            raise op_error(op, f"index {i} is out of bounds for axis {axis} of size {n}")
        out.append(i)
    return tuple(out)


def alloc(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    t = op.results[0].type
    if not isinstance(t, MemRefType) or any(d < 0 for d in t.get_shape()) or args:
        raise op_error(op, f"only static shapes are supported, found {t}")
    kind = "alloca" if isinstance(op, memref.AllocaOp) else "alloc"
    return [Buffer(garbage(t), kind)]


def dealloc(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    buf = buffer_of(op, args[0])
    if buf.kind not in ("alloc", "recv"):
        raise op_error(op, f"frees a buffer that was not allocated by memref.alloc ({buf.kind})")
    buf.freed = True
    return []


def load(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    buf = buffer_of(op, args[0])
    return [buf.data[indices_of(op, buf, args[1:])]]


def store(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    value, buf = args[0], buffer_of(op, args[1])
    if not isinstance(value, np.generic) or value.dtype != buf.data.dtype:
        raise op_error(op, f"stores {value!r} into a buffer of {buf.data.dtype}")
    buf.data[indices_of(op, buf, args[2:])] = value
    return []


def copy(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    src, dst = buffer_of(op, args[0], "source"), buffer_of(op, args[1], "destination")
    if src.data.shape != dst.data.shape or src.data.dtype != dst.data.dtype:
        raise op_error(op, f"copies {src.data.shape} into {dst.data.shape}")
    dst.data[...] = src.data
    return []


def collapse_shape(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    """A view of the same elements (a vector tile's, without trailing unit axes): writes
    through it reach the buffer."""
    buf = buffer_of(op, args[0])
    t = op.results[0].type
    assert isinstance(t, MemRefType)
    view = buf.data.reshape(tuple(t.get_shape()))
    if not np.shares_memory(view, buf.data):
        raise op_error(op, f"cannot view {buf.data.shape} as {t} without a copy")
    return [Buffer(view, "view")]


MEMREF_HANDLERS: dict[type[Operation], Handler] = {
    memref.AllocOp: alloc,
    memref.AllocaOp: alloc,
    memref.DeallocOp: dealloc,
    memref.LoadOp: load,
    memref.StoreOp: store,
    memref.CopyOp: copy,
    memref.CollapseShapeOp: collapse_shape,
}

"""Handlers of the `vector` ops of the kernel level (docs/kernel-level.md, "Body"): a vector
register tile's values are 1-d numpy arrays of the vector's length, so the tile's `arith` ops
(ops_arith.py) compute on them lanewise as on scalars.

- `vector.load %m[%i, %j]` / `vector.store %v, %m[%i, %j]`: `lanes` consecutive elements along
  the last axis from [i, j], all in bounds (checked: a tile never reads past a row);
- `vector.broadcast %x`: the scalar in every lane;
- `vector.fma %a, %b, %c`: a*b + c rounded once per lane (math.fma's numerics).
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import vector
from xdsl.dialects.builtin import VectorType
from xdsl.ir import Operation

from xdsl_multi.runtime.interpreter.machine import Handler, Machine
from xdsl_multi.runtime.interpreter.ops_arith import fused_multiply_add
from xdsl_multi.runtime.interpreter.ops_memref import buffer_of, indices_of
from xdsl_multi.runtime.values import Value, dtype_of, op_error


def _lanes(op: Operation, t: object) -> int:
    if not isinstance(t, VectorType) or len(t.get_shape()) != 1:
        raise op_error(op, f"expected a 1-d vector type, found {t}")
    return t.get_shape()[0]


def _span(op: Operation, shape: tuple[int, ...], index: tuple[int, ...], lanes: int) -> tuple:
    end = index[-1] + lanes
    if end > shape[-1]:
        raise op_error(
            op, f"lanes {index[-1]}..{end - 1} are out of bounds for the last axis of size "
            f"{shape[-1]}"
        )
    return (*index[:-1], slice(index[-1], end))


def load(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    assert isinstance(op, vector.LoadOp)
    buf = buffer_of(op, args[0])
    index = indices_of(op, buf, args[1:])
    lanes = _lanes(op, op.result.type)
    return [np.array(buf.data[_span(op, buf.data.shape, index, lanes)])]


def store(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    assert isinstance(op, vector.StoreOp)
    value, buf = args[0], buffer_of(op, args[1])
    lanes = _lanes(op, op.vector.type)
    if not isinstance(value, np.ndarray) or value.shape != (lanes,) or value.dtype != buf.data.dtype:
        raise op_error(op, f"stores {value!r} into a buffer of {buf.data.dtype}")
    index = indices_of(op, buf, args[2:])
    buf.data[_span(op, buf.data.shape, index, lanes)] = value
    return []


def broadcast(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    assert isinstance(op, vector.BroadcastOp)
    lanes = _lanes(op, op.vector.type)
    if not isinstance(args[0], np.generic):
        raise op_error(op, f"broadcasts {args[0]!r}: expected a scalar")
    return [np.full((lanes,), args[0], dtype_of(op.vector.type.element_type))]


def fma(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    a, b, c = (np.asarray(x) for x in args)
    with np.errstate(all="ignore"):
        return [fused_multiply_add(a, b, c)]


VECTOR_HANDLERS: dict[type[Operation], Handler] = {
    vector.LoadOp: load,
    vector.StoreOp: store,
    vector.BroadcastOp: broadcast,
    vector.FMAOp: fma,
}

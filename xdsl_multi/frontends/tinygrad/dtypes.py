"""tinygrad dtypes as element types (SPEC §1, §3): the one table of this front end.

Unsigned integers are signless `iN` values (the ops that care say `unsigned`); weak dtypes (the
dtype of a Python scalar, `weakint`, `weakfloat`) take the default strong dtype unless a strong
operand of the same op gives them one (`importer.py`).
"""

from __future__ import annotations

import numpy as np
from tinygrad.dtype import DType, dtypes, strong_dtype
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, Float64Type, IntegerType
from xdsl.ir import Attribute

from xdsl_multi.frontends.tinygrad.errors import UnsupportedGraph

_TABLE: dict[DType, tuple[Attribute, type[np.generic]]] = {
    dtypes.bool: (IntegerType(1), np.bool_),
    dtypes.int8: (IntegerType(8), np.int8),
    dtypes.uint8: (IntegerType(8), np.int8),
    dtypes.int16: (IntegerType(16), np.int16),
    dtypes.uint16: (IntegerType(16), np.int16),
    dtypes.int32: (IntegerType(32), np.int32),
    dtypes.uint32: (IntegerType(32), np.int32),
    dtypes.int64: (IntegerType(64), np.int64),
    dtypes.uint64: (IntegerType(64), np.int64),
    dtypes.float16: (Float16Type(), np.float16),
    dtypes.bfloat16: (BFloat16Type(), np.float32),
    dtypes.float32: (Float32Type(), np.float32),
    dtypes.float64: (Float64Type(), np.float64),
}
"""tinygrad dtype -> (our element type, the numpy dtype `Program` takes for it)."""

_UNSIGNED_NUMPY: dict[DType, type[np.generic]] = {
    dtypes.uint8: np.uint8,
    dtypes.uint16: np.uint16,
    dtypes.uint32: np.uint32,
    dtypes.uint64: np.uint64,
}
"""How the results of unsigned dtypes are handed back (the program's signless bits, viewed)."""


def strong(dt: DType) -> DType:
    """The dtype a weak one stands for by default (weakint -> int32, weakfloat -> float32)."""
    return strong_dtype(dt)


def element_type(dt: DType, op: str = "CAST") -> Attribute:
    """Our element type for `dt` (weak dtypes: their default), or UnsupportedGraph."""
    entry = _TABLE.get(strong(dt))
    if entry is None:
        raise UnsupportedGraph(op, f"dtype {dt} has no element type in the IR")
    return entry[0]


def program_numpy_dtype(dt: DType) -> type[np.generic]:
    """The numpy dtype `Program` takes and returns for `dt` (signless for unsigned ones)."""
    return _TABLE[strong(dt)][1]


def user_numpy_dtype(dt: DType) -> type[np.generic]:
    """The numpy dtype tinygrad's `Tensor.numpy()` gives for `dt`."""
    return _UNSIGNED_NUMPY.get(strong(dt), program_numpy_dtype(dt))


def is_unsigned(dt: DType) -> bool:
    return strong(dt) in _UNSIGNED_NUMPY


def is_float(dt: DType) -> bool:
    return dtypes.is_float(dt)


def is_weak(dt: DType) -> bool:
    return dt in dtypes.weaks

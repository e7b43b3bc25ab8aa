"""The interpreter's value model (SPEC §4, §6).

- A tensor of one program instance is `Lanes`: its data and, lane by lane, whether the lane is
  valid. Invalid lanes (tinygrad's Invalid) exist only between ops; a materialization (`store`)
  writes them as 0 and the result is fully valid.
- A scalar (`index`, `i1`, scalar ints and floats) is a numpy scalar.
- A memref (the kernel level) is a `Buffer`: a mutable array, written in place by
  `memref.store` and kernels.
- At the multi level a `#multi.on` value is an `OnValue`: one `Lanes` buffer per device of its
  encoding, in the encoding's order. A `#multi.shard` value is the `Lanes` of the full LOGICAL
  tensor (its type's shape): ops on sharded values compute on logical arrays.

Values other than Buffers are immutable: no handler writes into an array it did not create,
so arrays may be shared (and `np.broadcast_to` views, which are read-only, are fine).

Element types map to numpy dtypes by `dtype_of`; bf16 is stored as float32 whose values are
rounded to bf16 (`round_bf16`) after every op that produces bf16.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import (
    FileLineColLoc,
)
from xdsl.ir import Attribute, Operation

from xdsl_multi.dialects.element_types import element_type_of, is_bf16
from xdsl_multi.lowering.llvm_types import storage_dtype


class InterpreterError(Exception):
    """The program cannot be run as given: an unsupported op, bad inputs, a fetch from a device
    that does not exist, a deadlock... The message names the op and its location when known."""


def op_label(op: Operation) -> str:
    """`arith.addf (file.mlir:3:5)`, or just the op name when it has no file location."""
    loc = op.location
    if isinstance(loc, FileLineColLoc):
        return f"{op.name} ({loc.filename.data}:{loc.line.data}:{loc.column.data})"
    return op.name


def op_error(op: Operation, message: str) -> InterpreterError:
    return InterpreterError(f"{op_label(op)}: {message}")


# ---------------------------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Lanes:
    """A tensor of one program instance; `valid` None means every lane is valid."""

    data: np.ndarray
    valid: np.ndarray | None = None

    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    def mask(self) -> np.ndarray:
        """The validity of every lane as a bool array (all True when `valid` is None)."""
        if self.valid is None:
            return np.ones(self.data.shape, dtype=bool)
        return self.valid

    def map(self, fn) -> Lanes:
        """Apply one movement (reshape, transpose, slice...) to the data and the mask."""
        return Lanes(fn(self.data), None if self.valid is None else fn(self.valid))

    @staticmethod
    def of(data: np.ndarray, valid: np.ndarray | None) -> Lanes:
        """Lanes with `valid` dropped when it is all True."""
        if valid is not None and valid.all():
            valid = None
        return Lanes(data, valid)


@dataclass(frozen=True)
class OnValue:
    """A `#multi.on` value at the multi level: one buffer per device, in the encoding's order."""

    buffers: tuple[Lanes, ...]


@dataclass(eq=False)
class Buffer:
    """A memref at the kernel level (form-kernels): a mutable array. `kind` says where it came
    from (argument, alloc, alloca, recv); a freed buffer may not be used again."""

    data: np.ndarray
    kind: str
    freed: bool = False


Scalar = np.generic
Value = Lanes | OnValue | Scalar | Buffer


def store(x: Lanes) -> Lanes:
    """Materialize: Invalid lanes are stored as 0 and read back as valid zeros (SPEC §4 rule 3)."""
    if x.valid is None:
        return x
    return Lanes(np.where(x.valid, x.data, np.zeros((), x.data.dtype)), None)


def and_masks(*masks: np.ndarray | None) -> np.ndarray | None:
    """The conjunction of validity masks (None = all valid)."""
    result: np.ndarray | None = None
    for m in masks:
        if m is None:
            continue
        result = m if result is None else (result & m)
    return result


# ---------------------------------------------------------------------------------------------
# Element types
# ---------------------------------------------------------------------------------------------


_UINT_DTYPES = {
    8: np.dtype(np.uint8),
    16: np.dtype(np.uint16),
    32: np.dtype(np.uint32),
    64: np.dtype(np.uint64),
}


def dtype_of(t: Attribute) -> np.dtype:
    """The numpy dtype holding values of element (or tensor) type `t` (lowering's
    `storage_dtype`)."""
    try:
        return storage_dtype(element_type_of(t))
    except ValueError:
        raise InterpreterError(f"element type {t} is not supported by the interpreter") from None


def unsigned_dtype(width: int) -> np.dtype:
    """The unsigned dtype used to read a `width`-bit integer as unsigned (i1 reads as uint8)."""
    return _UINT_DTYPES[max(width, 8)]


def round_bf16(x: np.ndarray) -> np.ndarray:
    """Round float32 values to the nearest bf16 (ties to even), keeping them as float32."""
    a = np.asarray(x, dtype=np.float32)
    bits = a.view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) & np.uint32(
        0xFFFF0000
    )
    # NaN stays NaN (rounding could carry a NaN's payload into infinity): keep it quiet.
    rounded = np.where(np.isnan(a), (bits & np.uint32(0xFFFF0000)) | np.uint32(0x00400000), rounded)
    return rounded.astype(np.uint32).view(np.float32).reshape(a.shape)


def scalar_of(t: Attribute, v: object) -> Scalar:
    """A numpy scalar of type `t` (an element type) from a Python value."""
    dtype = dtype_of(t)
    if dtype == np.bool_:
        return np.bool_(bool(v))
    out = np.asarray(v).astype(dtype)[()]
    if is_bf16(t):
        out = round_bf16(np.asarray(out))[()]
    return out

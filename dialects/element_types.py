"""Element types and integer division: the facts every level shares, defined once.

| function | answers |
|---|---|
| `element_type_of(t)` | the element type of a tensor or memref type; a scalar type itself |
| `is_float(t)` | f16, bf16, f32, f64 (of a scalar, tensor or memref type) |
| `is_int(t)` | `iN` or `index` |
| `is_bool(t)` | `i1` |
| `is_bf16(t)` | bf16 (stored as float32 everywhere) |
| `bit_width(t)` | bits of an integer, index (`INDEX_BITS` = 64) or float type |
| `trunc_div(a, b)`, `trunc_rem(a, b)` | `arith.divsi` / `remsi` on Python ints |
| `INDEX_BINARY`, `INDEX_COMPARE` | the binary integer `arith` ops and `cmpi` predicates on Python ints (index arithmetic folded at compile time or run by a host schedule) |

Integer division (docs/decisions.md, "Numerics where MLIR leaves a choice"): signed division
truncates toward zero and the remainder has the dividend's sign; division and remainder by zero
give 0 (the interpreter's runtime/interpreter/numerics.py and the lowering's selects give the same). A
caller that must not fold a division by zero (a pass) checks `b == 0` itself. Python ints do
not wrap: a caller wraps the result to the type's width (`INT_MIN / -1` wraps to INT_MIN).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    IndexType,
    IntegerType,
    MemRefType,
    TensorType,
)
from xdsl.ir import Attribute, Operation

INDEX_BITS = 64
"""The width of `index` (`i64` in lowered code)."""


def element_type_of(t: Attribute) -> Attribute:
    """The element type of a tensor or memref type, or the type itself for a scalar type."""
    return t.element_type if isinstance(t, TensorType | MemRefType) else t


def is_float(t: Attribute) -> bool:
    """Whether `t` (or its element type) is a float type."""
    return isinstance(element_type_of(t), AnyFloat)


def is_int(t: Attribute) -> bool:
    """Whether `t` (or its element type) is an integer or `index` type."""
    return isinstance(element_type_of(t), IntegerType | IndexType)


def is_bool(t: Attribute) -> bool:
    """Whether `t` (or its element type) is `i1`."""
    e = element_type_of(t)
    return isinstance(e, IntegerType) and e.width.data == 1


def is_bf16(t: Attribute) -> bool:
    """Whether `t` (or its element type) is bf16."""
    return isinstance(element_type_of(t), BFloat16Type)


def bit_width(t: Attribute) -> int:
    """The bit width of an integer, index (64 bits) or float type (or of such element type)."""
    e = element_type_of(t)
    if isinstance(e, IntegerType):
        return e.width.data
    if isinstance(e, IndexType):
        return INDEX_BITS
    if isinstance(e, AnyFloat):
        return e.bitwidth
    raise ValueError(f"{t} has no bit width (not an integer, index or float type)")


def trunc_div(a: int, b: int) -> int:
    """`arith.divsi`: the quotient truncated toward zero; 0 when `b` is 0."""
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def trunc_rem(a: int, b: int) -> int:
    """`arith.remsi`: the remainder of `trunc_div`, with the sign of `a`; 0 when `b` is 0."""
    return 0 if b == 0 else a - trunc_div(a, b) * b


INDEX_BINARY: dict[type[Operation], Callable[[int, int], int]] = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b,
    arith.DivSIOp: trunc_div,
    arith.DivUIOp: lambda a, b: a // b,
    arith.FloorDivSIOp: lambda a, b: a // b,
    arith.CeilDivSIOp: lambda a, b: -((-a) // b),
    arith.RemSIOp: trunc_rem,
    arith.RemUIOp: lambda a, b: a % b,
    arith.MinSIOp: min,
    arith.MaxSIOp: max,
    arith.MinUIOp: min,
    arith.MaxUIOp: max,
    arith.AndIOp: lambda a, b: a & b,
    arith.OrIOp: lambda a, b: a | b,
    arith.XOrIOp: lambda a, b: a ^ b,
}
"""The binary integer `arith` ops on Python ints (no wrapping: a caller wraps to the width)."""

INDEX_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "slt": lambda a, b: a < b,
    "sle": lambda a, b: a <= b,
    "sgt": lambda a, b: a > b,
    "sge": lambda a, b: a >= b,
    "ult": lambda a, b: a < b,
    "ule": lambda a, b: a <= b,
    "ugt": lambda a, b: a > b,
    "uge": lambda a, b: a >= b,
}
"""`arith.cmpi` predicates on Python ints (unsigned ones on values already non-negative)."""

"""Splat dense constants in O(1): `dense<2.0> : tensor<4096x4096xf32>` stored as its one element.

xDSL 0.74's `DenseIntOrFPElementsAttr` has no splat form of its own, and its `from_list`
repeats a splat's element for every element of the type (a 4096x4096 f32 splat is 64 MiB of
bytes). The class is final, so xdsl-multi keeps xDSL's attribute and stores a splat *compact*:
the full shaped type with the bytes of ONE element (MLIR stores its splats the same way). xDSL
accepts that attribute as it is: `arith.constant` only ties the attribute's type to its result,
`verify` only checks zero-rank values, and the printer prints any one-element value as a splat,
so the text is the same as the expanded attribute's: `dense<2.000000e+00> : tensor<...>`.

| function | answers |
|---|---|
| `splat_attr(t, v)` | the compact splat of value `v` (normalized like `from_list`) with type `t` |
| `splat_of_bytes(t, one)` | the compact splat whose element is the packed bytes `one` |
| `splat_value(attr)` | the one element of a splat (compact in O(1), expanded by its bytes), else None |
| `is_compact_splat(attr)` | whether `attr` is stored as one element for a larger type |
| `expanded(attr)` | the attribute with every element stored (xDSL's form; O(n), for comparisons) |

Every reader of dense data in xdsl-multi goes through these (or reads a compact splat's one
element): the parser (dialects/parsing.py), the constant builders (transforms/value_facts.py,
spmd_builder.py, the Builder), the splat checks of devidx-simplify and form-kernels, the
interpreter (a broadcast view) and the compile cache's digest (it prints the compact splat).
An expanded splat made elsewhere (`from_list` by a user) stays correct everywhere, only slower.
"""

from __future__ import annotations

from math import prod

from xdsl.dialects.builtin import (
    AnyFloat,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerType,
    RankedStructure,
)
from xdsl.ir import Attribute

_SPLAT_CHUNK = 1 << 16
"""Bytes compared at a time when checking an expanded splat: the repeated element fills a chunk
that stays in cache, so a 64 MiB constant is checked in a few milliseconds."""


def is_compact_splat(attr: DenseIntOrFPElementsAttr) -> bool:
    """Whether `attr` holds one element for a type of more than one (see the module docstring)."""
    return len(attr.data.data) == attr.get_element_type().compile_time_size and prod(
        attr.get_shape()
    ) > 1


def splat_of_bytes(t: RankedStructure[AnyFloat | IntegerType | IndexType], one: bytes) -> (
    DenseIntOrFPElementsAttr
):
    """The splat of type `t` whose element is the packed bytes `one`: compact when `t` has more
    than one element, no data when it has none (xDSL's `dense<>`), else that one element."""
    n = prod(t.get_shape())
    return DenseIntOrFPElementsAttr(t, BytesAttr(one if n else b""))


def splat_attr(
    t: RankedStructure[AnyFloat | IntegerType | IndexType], value: float
) -> DenseIntOrFPElementsAttr:
    """The compact splat of `value` with type `t`: an int is normalized to the element type
    (wrapped as `from_list` does), a float packed at the element type's precision."""
    element = t.get_element_type()
    if isinstance(element, IntegerType):
        value = element.get_normalized_value(int(value))
    elif isinstance(element, IndexType):
        value = int(value)
    else:
        value = float(value)
    return splat_of_bytes(t, element.pack([value]))  # type: ignore[arg-type, list-item]


def _repeats(raw: bytes, size: int) -> bool:
    """Whether `raw` is its first `size` bytes repeated (compared as bytes, chunk by chunk)."""
    if size <= 0 or len(raw) % size:
        return False
    chunk = raw[:size] * max(1, _SPLAT_CHUNK // size)
    step = len(chunk)
    end = len(raw) - len(raw) % step
    for offset in range(0, end, step):
        if not raw.startswith(chunk, offset):
            return False
    return end == len(raw) or raw.startswith(chunk[: len(raw) - end], end)


def splat_value(attr: Attribute) -> int | float | None:
    """The one element value of a splat dense attribute (ints, floats, i1), else None.

    A splat is every element with the same bytes (so a NaN splat is one, and a mix of 0.0 and
    -0.0 is not). A compact splat is read in O(1); an expanded one is compared as bytes and
    only its first element unpacked."""
    if not isinstance(attr, DenseIntOrFPElementsAttr):
        return None
    element = attr.get_element_type()
    if not isinstance(element, IntegerType | IndexType | AnyFloat):
        return None
    raw = attr.data.data
    size = element.compile_time_size
    if len(raw) < size or (len(raw) > size and not _repeats(raw, size)):
        return None
    first = element.unpack(raw[:size], 1)[0]
    return first if isinstance(first, int | float) else None


def expanded(attr: DenseIntOrFPElementsAttr) -> DenseIntOrFPElementsAttr:
    """`attr` with every element stored, as xDSL's `from_list` makes a splat (O(n): for
    comparing with attributes made by xDSL's own parser, not for the compiler's paths)."""
    if not is_compact_splat(attr):
        return attr
    return DenseIntOrFPElementsAttr(attr.type, BytesAttr(attr.data.data * prod(attr.get_shape())))

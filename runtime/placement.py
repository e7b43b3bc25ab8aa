"""Logical arrays and where they live: the program's device list, checking and converting the
logical inputs and outputs of SPEC §6, and each device's local part of a logical value (the
SPMD and device levels).

Logical array of a value of type T:
- `#multi.shard`: the full array (T's shape);
- `#multi.on` on one device, or no encoding: the array (T's shape);
- `#multi.on` on N > 1 devices: shape (N, *T's shape), slice i is the buffer of the encoding's
  i-th device (an input of T's shape means the same buffer on every device);
- a scalar type (index, i32, f32...): a 0-d array.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import (
    FunctionType,
    IndexType,
    TensorType,
)
from xdsl.ir import Attribute

from xdsl_multi.dialects.element_types import element_type_of, is_bf16
from xdsl_multi.dialects.multi import (
    OnAttr,
    ShardAttr,
    placement_of,
)
from xdsl_multi.runtime.buffers import aligned_copy, aligned_empty
from xdsl_multi.runtime.values import (
    InterpreterError,
    dtype_of,
    round_bf16,
)

# ---------------------------------------------------------------------------------------------
# Devices
# ---------------------------------------------------------------------------------------------


def device_number(devices: Sequence[str], name: str) -> int:
    if name not in devices:
        raise InterpreterError(
            f'device "{name}" is not in the program\'s device list {list(devices)}'
        )
    return list(devices).index(name)


# ---------------------------------------------------------------------------------------------
# Logical arrays
# ---------------------------------------------------------------------------------------------


def logical_shape(t: Attribute) -> tuple[int, ...]:
    """The shape of the logical array of a value of type `t`."""
    if not isinstance(t, TensorType):
        return ()
    shape = tuple(t.get_shape())
    enc = placement_of(t)
    if isinstance(enc, OnAttr) and enc.num_devices > 1:
        return (enc.num_devices, *shape)
    return shape


def prepare_input(t: Attribute, x: object, what: str, *, copy: bool = True) -> np.ndarray:
    """Check a logical input against its type and return a private copy of it as the logical
    array (a many-device `#multi.on` input without the device axis is repeated on it).
    `copy=False`: a numpy array that needs no change is returned as it is (a check only, for
    a caller that hands the result to one that copies it).

    A numpy array must have exactly the element type's dtype (float32 for bf16, whose values
    are then rounded to bf16); Python scalars and lists are converted."""
    want_dtype = dtype_of(t)
    if isinstance(x, np.ndarray | np.generic):
        arr = np.asarray(x)
        if arr.dtype != want_dtype:
            raise InterpreterError(
                f"{what}: expected dtype {want_dtype} for {t}, found {arr.dtype}"
            )
        if copy:
            arr = arr.copy()
    else:
        try:
            arr = np.array(x, dtype=want_dtype)
        except (TypeError, ValueError, OverflowError) as e:
            raise InterpreterError(f"{what}: cannot convert {x!r} to {want_dtype}: {e}") from e
    want = logical_shape(t)
    if arr.shape != want:
        enc = placement_of(t)
        if (
            isinstance(enc, OnAttr)
            and enc.num_devices > 1
            and isinstance(t, TensorType)
            and arr.shape == tuple(t.get_shape())
        ):
            arr = np.repeat(arr[None], enc.num_devices, axis=0)
        else:
            raise InterpreterError(f"{what}: expected shape {want} for {t}, found {arr.shape}")
    if is_bf16(t):
        arr = round_bf16(arr)
    return arr


def prepare_inputs(
    signature: FunctionType,
    inputs: Sequence[object],
    names: Sequence[str] | None = None,
    *,
    copy: bool = True,
) -> list[np.ndarray]:
    """The checked logical inputs (prepare_input of each; `copy=False` for a caller that
    copies them itself)."""
    types = signature.inputs.data
    if len(inputs) != len(types):
        raise InterpreterError(f"@main takes {len(types)} arguments, got {len(inputs)} inputs")
    names = names or [f"arg{i}" for i in range(len(types))]
    return [
        prepare_input(t, x, f"argument {i} ({names[i]})", copy=copy)
        for i, (t, x) in enumerate(zip(types, inputs, strict=True))
    ]


def random_inputs(signature: FunctionType, seed: int) -> list[np.ndarray]:
    """Random logical inputs for a signature: floats standard normal in the element type (bf16
    as float32 rounded to bf16), integers in [-10, 10], index in [0, 10], i1 random bools."""
    rng = np.random.default_rng(seed)
    out = []
    for t in signature.inputs.data:
        shape = logical_shape(t)
        dtype = dtype_of(t)
        if dtype == np.bool_:
            arr = rng.integers(0, 2, shape).astype(bool)
        elif dtype.kind == "f":
            arr = rng.standard_normal(shape).astype(dtype)
            if is_bf16(t):
                arr = round_bf16(arr)
        elif isinstance(element_type_of(t), IndexType):
            arr = rng.integers(0, 11, shape).astype(dtype)
        else:
            arr = rng.integers(-10, 11, shape).astype(dtype)
        out.append(np.asarray(arr))
    return out


# ---------------------------------------------------------------------------------------------
# Local parts (SPMD and device levels)
# ---------------------------------------------------------------------------------------------


def placed_local_part(
    t: Attribute, x: np.ndarray, d: int, devices: Sequence[str]
) -> np.ndarray:
    """Device d's local argument (`local_part`) in a fresh 64-byte aligned buffer, each
    element written once: a shard's block is copied straight into it and only the padding
    beyond the block is zeroed (no zero fill, no intermediate copy)."""
    enc = placement_of(t)
    if not isinstance(enc, ShardAttr):
        return aligned_copy(local_part(t, x, d, devices))
    out = aligned_empty(enc.local_shape(x.shape), x.dtype)
    name = devices[d] if d < len(devices) else None
    if name not in enc.device_names:
        out[...] = 0
        return out
    block = enc.block(x.shape, enc.device_names.index(name))
    out[tuple(slice(0, hi - lo) for lo, hi in block)] = x[tuple(slice(lo, hi) for lo, hi in block)]
    for axis, (lo, hi) in enumerate(block):
        if hi - lo < out.shape[axis]:
            out[(slice(None),) * axis + (slice(hi - lo, None),)] = 0
    return out


def local_part(t: Attribute, x: np.ndarray, d: int, devices: Sequence[str]) -> np.ndarray:
    """Device d's local argument for the logical array `x` of type `t`.

    shard: its block (SPEC §1.1 bounds) zero-padded to the local (ceil) shape (zeros off the list);
    on many devices: its slice of the device axis (zeros off the list); on one device: the
    array there, zeros elsewhere; unplaced: the array everywhere."""
    enc = placement_of(t)
    name = devices[d] if d < len(devices) else None
    if enc is None:
        return x
    assert isinstance(t, TensorType)
    if isinstance(enc, ShardAttr):
        out = np.zeros(enc.local_shape(x.shape), x.dtype)
        if name in enc.device_names:
            block = enc.block(x.shape, enc.device_names.index(name))
            out[tuple(slice(0, hi - lo) for lo, hi in block)] = x[
                tuple(slice(lo, hi) for lo, hi in block)
            ]
        return out
    if name not in enc.device_names:
        return np.zeros(tuple(t.get_shape()), x.dtype)
    if enc.num_devices == 1:
        return x
    return x[enc.device_names.index(name)]


Index = tuple[slice | int, ...]


def local_blocks(t: Attribute, devices: Sequence[str]) -> list[tuple[int, Index, Index]] | None:
    """How the logical array of type `t` is made of the devices' local (stored) results:
    (device, where in the logical array, where in that device's local part) for each piece,
    every element once (a shard's first replicas; a many-device `#multi.on` value's buffers);
    None when it is one device's local part as it is (no encoding, one device)."""
    enc = placement_of(t)
    if enc is None:
        return None
    assert isinstance(t, TensorType)
    if isinstance(enc, ShardAttr):
        shape = tuple(t.get_shape())
        out: list[tuple[int, Index, Index]] = []
        for k, name in enumerate(enc.device_names):
            if enc.is_first_replica(k):
                block = enc.block(shape, k)
                out.append((
                    device_number(devices, name),
                    tuple(slice(lo, hi) for lo, hi in block),
                    tuple(slice(0, hi - lo) for lo, hi in block),
                ))  # fmt: skip
        return out
    if enc.num_devices == 1:
        return None
    return [(device_number(devices, name), (i,), ()) for i, name in enumerate(enc.device_names)]


def gathered_zeros(t: Attribute, blocks: list[tuple[int, Index, Index]],
                   parts: Sequence[np.ndarray | None]) -> np.ndarray:
    """The logical array of type `t` to copy `blocks` (local_blocks) of `parts` into."""
    first = parts[blocks[0][0]]
    assert first is not None
    return np.zeros(logical_shape(t), first.dtype)


def from_local_parts(
    t: Attribute, parts: Sequence[np.ndarray], devices: Sequence[str]
) -> np.ndarray:
    """The logical array of type `t` from every device's local (stored) result."""
    blocks = local_blocks(t, devices)
    if blocks is None:
        enc = placement_of(t)
        return parts[0] if enc is None else parts[device_number(devices, enc.device_names[0])]
    out = gathered_zeros(t, blocks, parts)
    for d, dst, src in blocks:
        out[dst] = parts[d][src]
    return out


def check_devices_known(signature: FunctionType, devices: Sequence[str]) -> None:
    for t in (*signature.inputs.data, *signature.outputs.data):
        enc = placement_of(t)
        if enc is not None:
            for name in enc.device_names:
                device_number(devices, name)

"""Element semantics of arith, math and tg on numpy arrays: integer division and shifts, casts,
comparisons, reductions, erf, threefry. Pure functions of arrays; no IR here.

Integers are two's complement of the type's width, and wrap. `i1` is stored as bool; read as a
signed integer it is 0 or -1 (MLIR), read as unsigned 0 or 1. Choices where MLIR leaves the
result undefined (division by zero, shifts by the width or more, float-to-int overflow) are
recorded in docs/decisions.md and implemented here:
- integer division and remainder by zero give 0;
- a shift by >= width (amount read as unsigned) gives 0 (shli, shrui) or the sign fill (shrsi);
- float to int saturates to the type's range and NaN gives 0.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from xdsl_multi.dialects.multi import ReduceKind
from xdsl_multi.dialects.tg import THREEFRY_GROUPS, THREEFRY_PARITY, THREEFRY_ROTATIONS
from xdsl_multi.runtime.values import unsigned_dtype

IntFn = Callable[[np.ndarray, np.ndarray], np.ndarray]

_SIGNED = {
    1: np.dtype(np.int8),
    8: np.dtype(np.int8),
    16: np.dtype(np.int16),
    32: np.dtype(np.int32),
    64: np.dtype(np.int64),
}


# ---------------------------------------------------------------------------------------------
# Integer views
# ---------------------------------------------------------------------------------------------


def as_signed(a: np.ndarray, width: int) -> np.ndarray:
    """Integer data read as signed values of `width` bits (i1 true is -1)."""
    a = np.asarray(a)
    if width == 1:
        return np.where(a, np.int8(-1), np.int8(0))
    return a


def as_unsigned(a: np.ndarray, width: int) -> np.ndarray:
    """Integer data read as unsigned values of `width` bits (i1 true is 1)."""
    a = np.asarray(a)
    if width == 1:
        return a.astype(np.uint8)
    return a.view(unsigned_dtype(width))


def wrap_int(r: np.ndarray, width: int) -> np.ndarray:
    """Integer results (any integer dtype) reduced modulo 2**width into the type's dtype."""
    r = np.asarray(r)
    if width == 1:
        return (r.astype(np.int64) & 1).astype(bool)
    return r.astype(_SIGNED[width])


def signed_range(width: int) -> tuple[int, int]:
    return -(2 ** (width - 1)), 2 ** (width - 1) - 1


# ---------------------------------------------------------------------------------------------
# Integer arithmetic (arith)
# ---------------------------------------------------------------------------------------------


def _nonzero_divisor(b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    zero = b == 0
    return zero, np.where(zero, np.ones((), b.dtype), b)


def divsi(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Signed division truncating toward zero; x / 0 = 0; INT_MIN / -1 wraps to INT_MIN."""
    zero, sb = _nonzero_divisor(b)
    q = a // sb
    inexact = (a - q * sb) != 0
    q = q + (inexact & ((a < 0) != (sb < 0))).astype(q.dtype)
    return np.where(zero, np.zeros((), q.dtype), q)


def remsi(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Signed remainder with the sign of the dividend (C's %); x % 0 = 0."""
    zero, sb = _nonzero_divisor(b)
    return np.where(zero, np.zeros((), a.dtype), np.fmod(a, sb))


def floordivsi(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Signed division rounding toward negative infinity; x / 0 = 0."""
    zero, sb = _nonzero_divisor(b)
    return np.where(zero, np.zeros((), a.dtype), a // sb)


def ceildivsi(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Signed division rounding toward positive infinity; x / 0 = 0."""
    zero, sb = _nonzero_divisor(b)
    q = a // sb
    q = q + ((a % sb) != 0).astype(q.dtype)
    return np.where(zero, np.zeros((), q.dtype), q)


def divui(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Unsigned division (operands already unsigned); x / 0 = 0."""
    zero, sb = _nonzero_divisor(b)
    return np.where(zero, np.zeros((), a.dtype), a // sb)


def remui(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    zero, sb = _nonzero_divisor(b)
    return np.where(zero, np.zeros((), a.dtype), a % sb)


def ceildivui(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    zero, sb = _nonzero_divisor(b)
    q = a // sb + ((a % sb) != 0).astype(a.dtype)
    return np.where(zero, np.zeros((), a.dtype), q)


def shli(a: np.ndarray, amount: np.ndarray, width: int) -> np.ndarray:
    """Shift left; `a` signed, `amount` unsigned; by >= width gives 0."""
    big = amount >= width
    s = np.where(big, 0, amount).astype(a.dtype)
    return np.where(big, np.zeros((), a.dtype), np.left_shift(a, s))


def shrui(a: np.ndarray, amount: np.ndarray, width: int) -> np.ndarray:
    """Logical shift right; `a` unsigned, `amount` unsigned; by >= width gives 0."""
    big = amount >= width
    s = np.where(big, 0, amount).astype(a.dtype)
    return np.where(big, np.zeros((), a.dtype), np.right_shift(a, s))


def shrsi(a: np.ndarray, amount: np.ndarray, width: int) -> np.ndarray:
    """Arithmetic shift right; `a` signed, `amount` unsigned; by >= width gives the sign fill."""
    big = amount >= width
    s = np.where(big, 0, amount).astype(a.dtype)
    fill = np.where(a < 0, np.array(-1, a.dtype), np.zeros((), a.dtype))
    return np.where(big, fill, np.right_shift(a, s))


def ipowi(a: np.ndarray, e: np.ndarray) -> np.ndarray:
    """Integer power, wrapping; a negative exponent gives 1 / a**|e| truncated (0 unless a is
    1 or -1; 0 for a = 0)."""
    dtype = a.dtype
    neg = e < 0
    mag = np.abs(e.astype(np.int64)).astype(np.uint64)
    result = np.ones(np.broadcast(a, e).shape, dtype)
    base = np.broadcast_to(a, result.shape).copy()
    for _ in range(64):
        if not mag.any():
            break
        odd = (mag & np.uint64(1)).astype(bool)
        result = np.where(odd, result * base, result)
        base = base * base
        mag = mag >> np.uint64(1)
    one, minus_one = a == 1, a == -1
    odd_e = (np.abs(e.astype(np.int64)) & 1).astype(bool)
    inverse = np.where(one, 1, np.where(minus_one, np.where(odd_e, -1, 1), 0)).astype(dtype)
    return np.where(neg, inverse, result)


def count_bits(u: np.ndarray, width: int, what: str) -> np.ndarray:
    """ctlz / cttz / ctpop of unsigned data of `width` bits (a loop over bit positions)."""
    u = np.asarray(u)
    count = np.zeros(u.shape, np.int64)
    if what == "ctpop":
        for i in range(width):
            count += ((u >> np.array(i, u.dtype)) & np.array(1, u.dtype)).astype(np.int64)
        return count
    still = np.ones(u.shape, bool)
    order = range(width - 1, -1, -1) if what == "ctlz" else range(width)
    for i in order:
        bit = ((u >> np.array(i, u.dtype)) & np.array(1, u.dtype)).astype(bool)
        still &= ~bit
        count += still
    return count


# ---------------------------------------------------------------------------------------------
# Floats
# ---------------------------------------------------------------------------------------------


def _fix_zero_sign(r: np.ndarray, a: np.ndarray, b: np.ndarray, negative_wins: bool) -> np.ndarray:
    both_zero = (a == 0) & (b == 0)
    if negative_wins:
        neg = np.signbit(a) | np.signbit(b)
    else:
        neg = np.signbit(a) & np.signbit(b)
    signed_zero = np.where(neg, np.array(-0.0, r.dtype), np.array(0.0, r.dtype))
    return np.where(both_zero, signed_zero, r)


def maximumf(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IEEE 754-2019 maximum: NaN if either is NaN; +0 > -0."""
    return _fix_zero_sign(np.maximum(a, b), a, b, negative_wins=False)


def minimumf(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return _fix_zero_sign(np.minimum(a, b), a, b, negative_wins=True)


def maxnumf(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """maxNum: the other operand when one is NaN."""
    return _fix_zero_sign(np.fmax(a, b), a, b, negative_wins=False)


def minnumf(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return _fix_zero_sign(np.fmin(a, b), a, b, negative_wins=True)


def round_half_away(x: np.ndarray) -> np.ndarray:
    """math.round: to nearest, ties away from zero."""
    t = np.trunc(x)
    return t + np.where(np.abs(x - t) >= 0.5, np.sign(x), np.zeros((), x.dtype)).astype(x.dtype)


def erf(x: np.ndarray) -> np.ndarray:
    """The error function, vectorized, to about 1e-15 relative (computed in float64).

    |x| < 2.5: erf(x) = 2/sqrt(pi) exp(-x^2) sum_n 2^n x^(2n+1) / (1*3*...*(2n+1)) (all terms
    positive, no cancellation); otherwise erfc from its continued fraction, erf = 1 - erfc.
    """
    x64 = np.asarray(x, dtype=np.float64)
    ax = np.abs(x64)
    small = ax < 2.5
    xs = np.where(small, ax, 0.0)
    term = xs.copy()
    total = xs.copy()
    x2 = xs * xs
    for n in range(1, 90):
        term = term * 2.0 * x2 / (2 * n + 1)
        total = total + term
    series = 2.0 / np.sqrt(np.pi) * np.exp(-x2) * total
    xl = np.where(small, 3.0, ax)
    frac = xl.copy()
    for k in range(80, 0, -1):
        frac = xl + (k / 2.0) / frac
    with np.errstate(over="ignore", under="ignore"):
        erfc = np.exp(-xl * xl) / (np.sqrt(np.pi) * frac)
    result = np.where(small, series, 1.0 - erfc)
    result = np.where(np.isnan(x64), np.nan, result)
    return (np.sign(x64) * result).astype(np.asarray(x).dtype)


# ---------------------------------------------------------------------------------------------
# Comparisons
# ---------------------------------------------------------------------------------------------


_ORDERED_CMP: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
}


def compare(pred: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """lt le gt ge eq ne on numbers as numpy compares them (NaN: all false except ne)."""
    return _ORDERED_CMP[pred](a, b)


def cmpi(pred: str, a: np.ndarray, b: np.ndarray, width: int) -> np.ndarray:
    """arith.cmpi: eq ne slt sle sgt sge ult ule ugt uge."""
    if pred in ("eq", "ne"):
        return compare(pred, as_unsigned(a, width), as_unsigned(b, width))
    view = as_signed if pred[0] == "s" else as_unsigned
    return compare(pred[1:], view(a, width), view(b, width))


def cmpf(pred: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """arith.cmpf: false true ord uno, o* (ordered: false if either is NaN) and u* (unordered:
    true if either is NaN) of eq gt ge lt le ne."""
    ordered = ~(np.isnan(a) | np.isnan(b))
    shape = np.broadcast(a, b).shape
    if pred == "false":
        return np.zeros(shape, bool)
    if pred == "true":
        return np.ones(shape, bool)
    if pred == "ord":
        return ordered
    if pred == "uno":
        return ~ordered
    rel = _ORDERED_CMP[pred[1:]](a, b)
    return (ordered & rel) if pred[0] == "o" else (~ordered | rel)


# ---------------------------------------------------------------------------------------------
# Conversions
# ---------------------------------------------------------------------------------------------


def float_to_int(x: np.ndarray, width: int, signed: bool) -> np.ndarray:
    """Truncate toward zero, saturate to the (signed or unsigned) range of `width` bits, NaN to 0;
    the result holds the bits in the signed dtype of that width (bool for i1)."""
    t = np.trunc(np.asarray(x, dtype=np.float64))
    lo, hi = signed_range(width) if signed else (0, 2**width - 1)
    nan = np.isnan(t)
    above, below = t >= float(hi), t <= float(lo)
    itype = np.dtype(np.int64) if signed or width < 64 else np.dtype(np.uint64)
    inside = np.where(nan | above | below, 0.0, t).astype(itype)
    r = np.where(above, np.array(hi, itype), np.where(below, np.array(lo, itype), inside))
    r = np.where(nan, np.zeros((), itype), r)
    return wrap_int(r, width)


def c_cast(
    x: np.ndarray, src_float: bool, src_width: int, dst_dtype: np.dtype, unsigned: bool = False
) -> np.ndarray:
    """tg.cast: convert like C. float -> int truncates toward zero (saturating, NaN -> 0);
    int -> float rounds to nearest; i1 reads as 0 or 1; any nonzero value cast to i1 is 1.
    `unsigned` reads (or writes) the integer side as unsigned: uint -> float, float -> uint
    saturating to [0, 2^N - 1], and an int source zero-extends."""
    x = np.asarray(x)
    if dst_dtype == np.bool_:
        return x != 0
    if unsigned and not src_float and x.dtype != np.bool_:
        x = as_unsigned(x, src_width)
    if dst_dtype.kind == "f":
        return x.astype(dst_dtype)
    width = dst_dtype.itemsize * 8
    if src_float:
        return float_to_int(x, width, signed=not unsigned)
    return x.astype(dst_dtype)


def threefry2x32(x: np.ndarray, key: np.ndarray) -> np.ndarray:
    """tg.threefry (tinygrad's THREEFRY): Random123's threefry2x32_20 of each lane's counter
    (low 32 bits of x, high 32 bits of x) under its key (low, high 32 bits of key); output
    word 0 is the result's low half, word 1 its high half. uint32 arithmetic wraps."""
    u32, mask = np.uint32, np.uint64(0xFFFFFFFF)
    ux, uk = np.asarray(x).astype(np.uint64), np.asarray(key).astype(np.uint64)
    x0, x1 = (ux & mask).astype(u32), (ux >> np.uint64(32)).astype(u32)
    k0, k1 = (uk & mask).astype(u32), (uk >> np.uint64(32)).astype(u32)
    ks = (k0, k1, k0 ^ k1 ^ u32(THREEFRY_PARITY))
    x0, x1 = x0 + ks[0], x1 + ks[1]
    for g in range(THREEFRY_GROUPS):
        for r in THREEFRY_ROTATIONS[g % 2]:
            x0 = x0 + x1
            x1 = ((x1 << u32(r)) | (x1 >> u32(32 - r))) ^ x0
        x0 = x0 + ks[(g + 1) % 3]
        x1 = x1 + ks[(g + 2) % 3] + u32(g + 1)
    out = (x1.astype(np.uint64) << np.uint64(32)) | x0.astype(np.uint64)
    return out.astype(np.int64)


def bitcast(x: np.ndarray, src_bf16: bool, dst_dtype: np.dtype, dst_bf16: bool) -> np.ndarray:
    """Reinterpret the bits; bf16 (stored as float32) is the top half of the float32 bits."""
    x = np.asarray(x)
    if src_bf16:
        x = (x.view(np.uint32) >> np.uint32(16)).astype(np.uint16)
    elif x.dtype == np.bool_:
        x = x.astype(np.uint8)
    if dst_bf16:
        return (x.view(np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32)
    if dst_dtype == np.bool_:
        return (x.view(np.uint8) & 1).astype(bool)
    return x.view(dst_dtype)


# ---------------------------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------------------------


def reduce_identity(kind: ReduceKind, dtype: np.dtype) -> np.generic:
    """add 0, mul 1, max the smallest value of the type (-inf for floats, false for i1)."""
    if kind == ReduceKind.ADD:
        return np.zeros((), dtype)[()]
    if kind == ReduceKind.MUL:
        return np.ones((), dtype)[()]
    if dtype == np.bool_:
        return np.bool_(False)
    if dtype.kind == "f":
        return np.array(-np.inf, dtype)[()]
    return np.array(np.iinfo(dtype).min, dtype)[()]


def reduce_axes(data: np.ndarray, axes: tuple[int, ...], kind: ReduceKind) -> np.ndarray:
    """Reduce `axes` (kept as size 1) with add, mul or max. Integers wrap; f16 accumulates in
    float32; i1 add is parity (addition mod 2), mul is and, max is or."""
    dtype = data.dtype
    if dtype == np.bool_:
        if kind == ReduceKind.ADD:
            return (np.add.reduce(data.astype(np.int64), axis=axes, keepdims=True) % 2).astype(bool)
        fn = np.logical_and if kind == ReduceKind.MUL else np.logical_or
        return fn.reduce(data, axis=axes, keepdims=True, initial=kind == ReduceKind.MUL)
    acc = np.dtype(np.float32) if dtype == np.float16 else dtype
    ufunc = _UFUNCS[kind]
    out = ufunc.reduce(
        data.astype(acc), axis=axes, keepdims=True, dtype=acc, initial=reduce_identity(kind, acc)
    )
    return out.astype(dtype)


_UFUNCS = {ReduceKind.ADD: np.add, ReduceKind.MUL: np.multiply, ReduceKind.MAX: np.maximum}
_BOOL_UFUNCS = {
    ReduceKind.ADD: np.logical_xor,
    ReduceKind.MUL: np.logical_and,
    ReduceKind.MAX: np.logical_or,
}


def combine(kind: ReduceKind, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise add, mul or max of two buffers (allreduce), with the semantics of
    `reduce_axes` for two values."""
    if a.dtype == np.bool_:
        return _BOOL_UFUNCS[kind](a, b)
    return _UFUNCS[kind](a, b)

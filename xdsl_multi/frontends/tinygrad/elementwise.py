"""tinygrad's ALU ops, CAST and BITCAST as arith / math / tg ops on tensors (SPEC §2-§3).

tinygrad broadcasts elementwise operands implicitly (right-aligned, size-1 axes) and lets a
device-less weak constant take the dtype of the other operand; our ops take operands of one type.
So each operand is first coerced to the operand type (`ImportContext.coerce`: cast, reshape +
expand, copy to the result's placement) and then the op is one row of the tables below.

| tinygrad | float | signed int | unsigned int |
|---|---|---|---|
| ADD, SUB, MUL | addf, subf, mulf | addi, subi, muli | addi, subi, muli |
| FDIV | divf | | |
| CDIV, CMOD | | divsi, remsi | divui, remui |
| FLOORDIV, FLOORMOD | | divsi, remsi (Python's rounding, from C's) | divui, remui |
| MAX | maximumf | maxsi | maxui |
| AND, OR, XOR, SHL | | andi, ori, xori, shli | andi, ori, xori, shli |
| SHR | | shrsi | shrui |
| CMPLT, CMPNE, CMPEQ | tg.cmp lt, ne, eq | tg.cmp lt, ne, eq | tg.cmp ult, ne, eq |
| WHERE | tg.where | tg.where | tg.where |
| THREEFRY | | tg.threefry | tg.threefry |
| EXP2, LOG2, SIN, SQRT, TRUNC | math.exp2, log2, sin, sqrt, trunc | | |
| RECIPROCAL | divf(1, x) | | |
| POW | tinygrad's `xpow`: exp2(e * log2(abs(b))), NaN or negated for a negative base, 1 for e = 0 | | |
| NEG | negf | subi(0, x) | subi(0, x) |
| CAST | tg.cast (`unsigned` when either side is unsigned) | | |
| BITCAST | arith.bitcast (same width) | | |
| STACK (as a value) | tg.reshape + tg.pad per row, tg.where | | |

Booleans (i1) use the unsigned column (`a < b` on bools is `ult`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from tinygrad.dtype import DType, dtypes
from tinygrad.uop.ops import Ops, UOp
from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import SSAValue

from xdsl_multi.builder import Builder, tensor
from xdsl_multi.dialects.multi import OnAttr, ShardAttr
from xdsl_multi.frontends.tinygrad import dtypes as tgdtypes
from xdsl_multi.frontends.tinygrad.context import ImportContext
from xdsl_multi.frontends.tinygrad.errors import UnsupportedGraph

Emit = Callable[[ImportContext, list[SSAValue]], SSAValue]


def _binary(method: Callable[[Builder, SSAValue, SSAValue], SSAValue]) -> Emit:
    return lambda ctx, xs: method(ctx.b, xs[0], xs[1])


def _unary(method: Callable[[Builder, SSAValue], SSAValue]) -> Emit:
    return lambda ctx, xs: method(ctx.b, xs[0])


def _cmp(predicate: str) -> Emit:
    return lambda ctx, xs: ctx.b.cmp(predicate, xs[0], xs[1])


def _of_type(x: SSAValue) -> TensorType:
    assert isinstance(x.type, TensorType)
    return x.type


def _reciprocal(ctx: ImportContext, xs: list[SSAValue]) -> SSAValue:
    return ctx.b.divf(ctx.constant(1.0, _of_type(xs[0])), xs[0])


def _negi(ctx: ImportContext, xs: list[SSAValue]) -> SSAValue:
    return ctx.b.subi(ctx.constant(0, _of_type(xs[0])), xs[0])


def _floormod(ctx: ImportContext, xs: list[SSAValue]) -> SSAValue:
    """Python's `a % b` (sign of b) from C's remainder: `((a rem b) + b) rem b`."""
    b = ctx.b
    return b.remsi(b.addi(b.remsi(xs[0], xs[1]), xs[1]), xs[1])


def _floordiv(ctx: ImportContext, xs: list[SSAValue]) -> SSAValue:
    """Python's `a // b`: `(a - a mod b) / b`, an exact division."""
    b = ctx.b
    return b.divsi(b.subi(xs[0], _floormod(ctx, xs)), xs[1])


def _pow(ctx: ImportContext, xs: list[SSAValue]) -> SSAValue:
    """POW as tinygrad lowers it (codegen/decomp/transcendental.py `xpow`): exp2(e * log2|b|);
    a negative base gives NaN for a non-integer exponent (but -inf stays |b| ** e) and the
    negated power for an odd integer one; x ** 0 is 1."""
    b = ctx.b
    base, exponent = xs
    t = _of_type(base)
    i32 = tensor(list(t.get_shape()), IntegerType(32), t.encoding)  # type: ignore[arg-type]

    def const(value: float) -> SSAValue:
        return ctx.constant(value, t)

    negative = b.cmp("lt", base, const(0.0))
    power = b.exp2(b.mulf(b.log2(b.where(negative, b.negf(base), base)), exponent))
    whole = b.cast(b.cast(exponent, IntegerType(32)), t.element_type)
    non_int = b.cmp("ne", exponent, whole)
    magnitude = b.where(b.cmp("lt", exponent, const(0.0)), b.negf(exponent), exponent)
    odd = b.cast(b.remsi(b.cast(magnitude, IntegerType(32)), ctx.constant(2, i32)), IntegerType(1))
    keep_inf = b.where(b.cmp("ne", base, const(-math.inf)), const(math.nan), power)
    of_negative = b.where(non_int, keep_inf, b.where(odd, b.negf(power), power))
    return b.where(
        b.cmp("eq", exponent, const(0.0)), const(1.0), b.where(negative, of_negative, power)
    )


_COMMON: dict[Ops, Emit] = {
    Ops.WHERE: lambda ctx, xs: ctx.b.where(xs[0], xs[1], xs[2]),
    Ops.CMPNE: _cmp("ne"),
    Ops.CMPEQ: _cmp("eq"),
}

FLOAT_OPS: dict[Ops, Emit] = {
    **_COMMON,
    Ops.ADD: _binary(Builder.addf),
    Ops.SUB: _binary(Builder.subf),
    Ops.MUL: _binary(Builder.mulf),
    Ops.FDIV: _binary(Builder.divf),
    Ops.MAX: _binary(Builder.maximumf),
    Ops.CMPLT: _cmp("lt"),
    Ops.EXP2: _unary(Builder.exp2),
    Ops.LOG2: _unary(Builder.log2),
    Ops.SIN: _unary(Builder.sin),
    Ops.SQRT: _unary(Builder.sqrt),
    Ops.TRUNC: _unary(Builder.trunc),
    Ops.NEG: _unary(Builder.negf),
    Ops.RECIPROCAL: _reciprocal,
    Ops.POW: _pow,
}
"""tinygrad op -> the ops on float operands."""

_INTEGER: dict[Ops, Emit] = {
    **_COMMON,
    Ops.ADD: _binary(Builder.addi),
    Ops.SUB: _binary(Builder.subi),
    Ops.MUL: _binary(Builder.muli),
    Ops.AND: _binary(Builder.andi),
    Ops.OR: _binary(Builder.ori),
    Ops.XOR: _binary(Builder.xori),
    Ops.SHL: _binary(Builder.shli),
    Ops.NEG: _negi,
    Ops.THREEFRY: lambda ctx, xs: ctx.b.threefry(xs[0], xs[1]),
}

SIGNED_OPS: dict[Ops, Emit] = {
    **_INTEGER,
    Ops.CDIV: _binary(Builder.divsi),
    Ops.CMOD: _binary(Builder.remsi),
    Ops.MAX: _binary(Builder.maxsi),
    Ops.SHR: _binary(Builder.shrsi),
    Ops.FLOORDIV: _floordiv,
    Ops.FLOORMOD: _floormod,
    Ops.CMPLT: _cmp("lt"),
}
"""tinygrad op -> the ops on signed integer operands."""

UNSIGNED_OPS: dict[Ops, Emit] = {
    **_INTEGER,
    Ops.CDIV: _binary(Builder.divui),
    Ops.CMOD: _binary(Builder.remui),
    Ops.MAX: _binary(Builder.maxui),
    Ops.SHR: _binary(Builder.shrui),
    Ops.FLOORDIV: _binary(Builder.divui),
    Ops.FLOORMOD: _binary(Builder.remui),
    Ops.CMPLT: _cmp("ult"),
}
"""tinygrad op -> the ops on unsigned integer and bool operands."""


def _table(dt: DType) -> dict[Ops, Emit]:
    if tgdtypes.is_float(dt):
        return FLOAT_OPS
    if tgdtypes.is_unsigned(dt) or dt == dtypes.bool:
        return UNSIGNED_OPS
    return SIGNED_OPS


def scalar_constant(u: UOp) -> float | int | bool | None:
    """The value of a device-less constant (CONST, possibly cast, reshaped or expanded), whose
    consumer may splat it with any type; None when `u` is something else."""
    if u.device is not None:
        return None
    if u.op is Ops.CONST:
        return (
            u.arg
            if isinstance(u.arg, bool)
            else (int(u.arg) if dtypes.is_int(u.dtype) else float(u.arg))
        )
    if u.op in (Ops.RESHAPE, Ops.EXPAND, Ops.DETACH, Ops.CAST):
        inner = scalar_constant(u.src[0])
        if inner is None:
            return None
        if u.op is not Ops.CAST:
            return inner
        if u.dtype == dtypes.bool:
            return bool(inner)
        return int(inner) if dtypes.is_int(u.dtype) else float(inner)
    return None


COMPARISONS = frozenset({Ops.CMPLT, Ops.CMPNE, Ops.CMPEQ})


def operand_dtype(u: UOp) -> DType:
    """The dtype the value operands of ALU op `u` share. tinygrad converts operands to the
    op's own dtype (an int's RECIPROCAL is a float op on the int cast to float; a weakfloat
    RECIPROCAL of a weakint constant is a float op), so the result dtype is it; a comparison's
    (bool) is not: there it is the first strong operand's (a weak constant takes it), else the
    default for the weak one."""
    if u.op not in COMPARISONS:  # a weak result (all operands weak: 1.0 / 32) is its default
        return tgdtypes.strong(u.dtype)
    values = u.src[1:] if u.op is Ops.WHERE else u.src
    strong = [s.dtype for s in values if not tgdtypes.is_weak(s.dtype)]
    return strong[0] if strong else tgdtypes.strong(values[0].dtype)


def result_placement(placed: list[SSAValue], where: OnAttr | None, rank: int) -> OnAttr | ShardAttr:
    """The result placement of an elementwise op of rank `rank`: a shard operand's (its axis
    right-aligned into the result, as tinygrad broadcasts: a (4,) shard of axis 0 added to a
    (1, 4) value is a (1, 4) shard of axis 1), else any operand's, else the consumer's (every
    operand device-less)."""
    for v in placed:
        enc = _of_type(v).encoding
        if isinstance(enc, ShardAttr):
            shift = rank - len(_of_type(v).get_shape())
            if shift == 0:
                return enc
            axes = [None if a is None else a + shift for a in enc.mesh_axes]
            return ShardAttr(enc.devices, mesh=enc.mesh_shape, axes=axes)
    for v in placed:
        enc = _of_type(v).encoding
        if isinstance(enc, OnAttr):
            return enc
    assert where is not None, "the importer always computes device-less values somewhere"
    return where


def alu(ctx: ImportContext, u: UOp, where: OnAttr | None) -> SSAValue:
    """Any ALU op: operands coerced to one type, then the table's op."""
    dt = operand_dtype(u)
    emit = _table(dt).get(u.op)
    if emit is None:
        raise UnsupportedGraph(u.op.name, f"no rule for {u.op.name} on {dt}")
    placed = {i: ctx.value(s, where) for i, s in enumerate(u.src) if s.device is not None}
    enc = result_placement(list(placed.values()), where, len(u.shape))
    devices = OnAttr(list(enc.device_names))
    shape = list(u.shape)
    operand_elt = tgdtypes.element_type(dt, u.op.name)
    operands: list[SSAValue] = []
    for i, s in enumerate(u.src):
        elt = IntegerType(1) if (u.op is Ops.WHERE and i == 0) else operand_elt
        target = tensor(shape, elt, enc)
        if i in placed:
            operands.append(ctx.coerce(placed[i], target, tgdtypes.is_unsigned(s.dtype)))
            continue
        const = scalar_constant(s)
        if const is not None:
            operands.append(ctx.constant(const, target))
        else:
            v = ctx.value(s, devices)
            operands.append(ctx.coerce(v, target, tgdtypes.is_unsigned(s.dtype)))
    return emit(ctx, operands)


def cast(ctx: ImportContext, u: UOp, where: OnAttr | None) -> SSAValue:
    """CAST: `tg.cast`, `unsigned` when either dtype is unsigned; a no-op between dtypes with one
    element type (int32 <-> uint32)."""
    src = u.src[0]
    v = ctx.value(src, where)
    elt = tgdtypes.element_type(u.dtype, u.op.name)
    if _of_type(v).element_type == elt:
        return v
    unsigned = tgdtypes.is_unsigned(src.dtype) or tgdtypes.is_unsigned(u.dtype)
    return ctx.b.cast(v, elt, unsigned)


def bitcast(ctx: ImportContext, u: UOp, where: OnAttr | None) -> SSAValue:
    """BITCAST between dtypes of one width: `arith.bitcast` (or nothing: int32 <-> uint32)."""
    src = u.src[0]
    if src.dtype.itemsize != u.dtype.itemsize:
        raise UnsupportedGraph(
            u.op.name, f"bitcast from {src.dtype} to {u.dtype} changes the element width"
        )
    v = ctx.value(src, where)
    elt = tgdtypes.element_type(u.dtype, u.op.name)
    return v if _of_type(v).element_type == elt else ctx.b.bitcast(v, elt)


def stack(ctx: ImportContext, u: UOp, where: OnAttr | None) -> SSAValue:
    """STACK(x0..xn-1) as a value (`Tensor.cat` of small pieces): a new leading axis of n, built
    as `where(row i, pad(xi), ...)` (exact: no arithmetic on the values)."""
    n = len(u.src)
    inner = list(u.src[0].shape)
    placed = [ctx.value(s, where) for s in u.src if s.device is not None]
    enc = result_placement(placed, where, len(inner))
    devices = OnAttr(list(enc.device_names))
    elt = tgdtypes.element_type(u.dtype, u.op.name)
    fill = False if u.dtype == dtypes.bool else 0
    rows: SSAValue | None = None
    for i, s in enumerate(u.src):
        const = scalar_constant(s)
        item = tensor(inner, elt, enc)
        if const is not None:
            v = ctx.constant(const, item)
        else:
            v = ctx.coerce(ctx.value(s, devices), item, tgdtypes.is_unsigned(s.dtype))
        v = ctx.b.reshape(v, [1, *inner])
        if n == 1:
            return v
        bounds = [(i, n - 1 - i)] + [(0, 0)] * len(inner)
        padded = ctx.b.pad(v, bounds, fill)
        if rows is None:
            rows = padded
            continue
        stacked = _of_type(v).encoding  # the item's, its shard axis moved by the new one
        row = ctx.b.pad(
            ctx.constant(True, tensor([1, *inner], IntegerType(1), stacked)), bounds, False
        )  # type: ignore[arg-type]
        rows = ctx.b.where(row, padded, rows)
    assert rows is not None
    return rows

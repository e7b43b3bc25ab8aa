"""Handlers of `arith` and `math`, on tensors (Lanes) and scalars alike.

Every op here is elementwise: it computes on the operands' data and the result's lanes are valid
where every operand's are (Invalid poisons, SPEC §4 rule 1). `arith.select` takes the chosen
operand whole, mask included. The element semantics live in numerics.py.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
)
from xdsl.ir import Attribute, Operation

from xdsl_multi.dialects.element_types import bit_width, is_bf16
from xdsl_multi.runtime.interpreter import numerics as nx
from xdsl_multi.runtime.interpreter.machine import Handler, Machine
from xdsl_multi.runtime.values import (
    Lanes,
    Value,
    and_masks,
    dtype_of,
    op_error,
    scalar_of,
)

ArrayFn = Callable[[Operation, list[np.ndarray]], np.ndarray]


# ---------------------------------------------------------------------------------------------
# Plumbing: values <-> arrays
# ---------------------------------------------------------------------------------------------


def parts(v: Value) -> tuple[np.ndarray, np.ndarray | None]:
    """The data and validity mask of a tensor, or a 0-d array and None for a scalar."""
    if isinstance(v, Lanes):
        return v.data, v.valid
    return np.asarray(v), None


def pack(t: Attribute, data: np.ndarray, valid: np.ndarray | None) -> Value:
    """A result of type `t` from computed data: Lanes for a tensor, a numpy scalar otherwise."""
    if isinstance(t, TensorType):
        return Lanes.of(np.asarray(data), valid)
    return np.asarray(data)[()]


def elementwise(fn: ArrayFn) -> Handler:
    """A handler that computes `fn(op, operand data)` and ANDs the operands' masks."""

    def handler(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
        datas, masks = zip(*(parts(a) for a in args), strict=True)
        with np.errstate(all="ignore"):
            out = fn(op, list(datas))
        return [pack(op.results[0].type, out, and_masks(*masks))]

    return handler


def _width(op: Operation, i: int = 0) -> int:
    return bit_width(op.operands[i].type)


def _result_width(op: Operation) -> int:
    return bit_width(op.results[0].type)


def _float_binary(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Handler:
    return elementwise(lambda op, d: fn(d[0], d[1]))


def _float_unary(fn: Callable[[np.ndarray], np.ndarray]) -> Handler:
    return elementwise(lambda op, d: fn(d[0]))


def _int_binary(fn: Callable[[np.ndarray, np.ndarray], np.ndarray], signed: bool) -> Handler:
    """Integer op on the operands read as signed (or unsigned), wrapped to the result width."""
    view = nx.as_signed if signed else nx.as_unsigned

    def run(op: Operation, d: list[np.ndarray]) -> np.ndarray:
        w = _width(op)
        return nx.wrap_int(fn(view(d[0], w), view(d[1], w)), w)

    return elementwise(run)


def _shift(fn: Callable[[np.ndarray, np.ndarray, int], np.ndarray], signed: bool) -> Handler:
    view = nx.as_signed if signed else nx.as_unsigned

    def run(op: Operation, d: list[np.ndarray]) -> np.ndarray:
        w = _width(op)
        return nx.wrap_int(fn(view(d[0], w), nx.as_unsigned(d[1], w), w), w)

    return elementwise(run)


def _int_unary(fn: Callable[[np.ndarray, int], np.ndarray], signed: bool) -> Handler:
    view = nx.as_signed if signed else nx.as_unsigned

    def run(op: Operation, d: list[np.ndarray]) -> np.ndarray:
        w = _width(op)
        return nx.wrap_int(fn(view(d[0], w), w), w)

    return elementwise(run)


# ---------------------------------------------------------------------------------------------
# arith.constant, arith.select, comparisons
# ---------------------------------------------------------------------------------------------


def dense_array(attr: DenseIntOrFPElementsAttr, t: TensorType) -> np.ndarray:
    """The elements of a dense attribute as an array of the tensor type's shape and dtype."""
    et = t.element_type
    raw = attr.data.data
    if isinstance(et, BFloat16Type):
        data = (np.frombuffer(raw, "<u2").astype(np.uint32) << np.uint32(16)).view(np.float32)
    elif isinstance(et, IntegerType) and et.width.data == 1:
        data = np.frombuffer(raw, np.uint8) != 0
    elif isinstance(et, IntegerType | IndexType | Float16Type | Float32Type | Float64Type):
        data = np.frombuffer(raw, dtype_of(et).newbyteorder("<")).astype(dtype_of(et))
    else:
        raise ValueError(f"dense elements of type {et}")
    shape = tuple(t.get_shape())
    if data.size == 1:
        return np.broadcast_to(data.reshape(()), shape)
    return data.reshape(shape)


def constant(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    assert isinstance(op, arith.ConstantOp)
    attr, t = op.value, op.result.type
    if isinstance(attr, IntegerAttr | FloatAttr) and not isinstance(t, TensorType):
        return [scalar_of(t, attr.value.data)]
    if isinstance(attr, DenseIntOrFPElementsAttr) and isinstance(t, TensorType):
        try:
            return [Lanes(dense_array(attr, t))]
        except ValueError as e:
            raise op_error(op, f"cannot read {e}") from e
    raise op_error(op, f"constant value {attr} of type {t} is not supported")


def select(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    cond, true_value, false_value = args
    if not isinstance(cond, np.bool_):
        raise op_error(op, "the condition must be a scalar i1 (use tg.where on tensors)")
    return [true_value if bool(cond) else false_value]


def _scalar_only(op: Operation, args: list[Value]) -> None:
    if any(isinstance(a, Lanes) for a in args):
        raise op_error(op, "comparison of tensors gives a scalar in xDSL 0.74; use tg.cmp")


def cmpi(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    assert isinstance(op, arith.CmpiOp)
    _scalar_only(op, args)
    pred = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
    return [np.bool_(nx.cmpi(pred, np.asarray(args[0]), np.asarray(args[1]), _width(op)))]


def cmpf(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    assert isinstance(op, arith.CmpfOp)
    _scalar_only(op, args)
    pred = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
    with np.errstate(all="ignore"):
        return [np.bool_(nx.cmpf(pred, np.asarray(args[0]), np.asarray(args[1])))]


# ---------------------------------------------------------------------------------------------
# Conversions
# ---------------------------------------------------------------------------------------------


def _to_float(op: Operation, d: list[np.ndarray]) -> np.ndarray:
    return d[0].astype(dtype_of(op.results[0].type))


def _ext_signed(op: Operation, d: list[np.ndarray]) -> np.ndarray:
    return nx.wrap_int(nx.as_signed(d[0], _width(op)).astype(np.int64), _result_width(op))


def _ext_unsigned(op: Operation, d: list[np.ndarray]) -> np.ndarray:
    return nx.wrap_int(nx.as_unsigned(d[0], _width(op)).astype(np.uint64), _result_width(op))


def _signed_to_float(op: Operation, d: list[np.ndarray]) -> np.ndarray:
    return nx.as_signed(d[0], _width(op)).astype(dtype_of(op.results[0].type))


def _unsigned_to_float(op: Operation, d: list[np.ndarray]) -> np.ndarray:
    return nx.as_unsigned(d[0], _width(op)).astype(dtype_of(op.results[0].type))


def _bitcast(op: Operation, d: list[np.ndarray]) -> np.ndarray:
    src, dst = op.operands[0].type, op.results[0].type
    return nx.bitcast(d[0], is_bf16(src), dtype_of(dst), is_bf16(dst))


def _fma(op: Operation, d: list[np.ndarray]) -> np.ndarray:
    return fused_multiply_add(*d)


def fused_multiply_add(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a*b + c; exact product and one rounding for f16/f32/bf16 (computed in float64), not
    fused for f64 (math.fma, vector.fma)."""
    if a.dtype == np.float64:
        return a * b + c
    return (a.astype(np.float64) * b + c).astype(a.dtype)


def _fpowi(op: Operation, d: list[np.ndarray]) -> np.ndarray:
    return np.power(d[0], nx.as_signed(d[1], _width(op, 1)).astype(d[0].dtype))


def _rsqrt(x: np.ndarray) -> np.ndarray:
    return np.reciprocal(np.sqrt(x))


# ---------------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------------


ARITH_HANDLERS: dict[type[Operation], Handler] = {
    arith.ConstantOp: constant,
    arith.SelectOp: select,
    arith.CmpiOp: cmpi,
    arith.CmpfOp: cmpf,
    # floats
    arith.AddfOp: _float_binary(np.add),
    arith.SubfOp: _float_binary(np.subtract),
    arith.MulfOp: _float_binary(np.multiply),
    arith.DivfOp: _float_binary(np.divide),
    arith.MaximumfOp: _float_binary(nx.maximumf),
    arith.MinimumfOp: _float_binary(nx.minimumf),
    arith.MaxnumfOp: _float_binary(nx.maxnumf),
    arith.MinnumfOp: _float_binary(nx.minnumf),
    arith.NegfOp: _float_unary(np.negative),
    # integers
    arith.AddiOp: _int_binary(np.add, signed=True),
    arith.SubiOp: _int_binary(np.subtract, signed=True),
    arith.MuliOp: _int_binary(np.multiply, signed=True),
    arith.DivSIOp: _int_binary(nx.divsi, signed=True),
    arith.DivUIOp: _int_binary(nx.divui, signed=False),
    arith.RemSIOp: _int_binary(nx.remsi, signed=True),
    arith.RemUIOp: _int_binary(nx.remui, signed=False),
    arith.FloorDivSIOp: _int_binary(nx.floordivsi, signed=True),
    arith.CeilDivSIOp: _int_binary(nx.ceildivsi, signed=True),
    arith.CeilDivUIOp: _int_binary(nx.ceildivui, signed=False),
    arith.MaxSIOp: _int_binary(np.maximum, signed=True),
    arith.MinSIOp: _int_binary(np.minimum, signed=True),
    arith.MaxUIOp: _int_binary(np.maximum, signed=False),
    arith.MinUIOp: _int_binary(np.minimum, signed=False),
    arith.AndIOp: _int_binary(np.bitwise_and, signed=False),
    arith.OrIOp: _int_binary(np.bitwise_or, signed=False),
    arith.XOrIOp: _int_binary(np.bitwise_xor, signed=False),
    arith.ShLIOp: _shift(nx.shli, signed=True),
    arith.ShRUIOp: _shift(nx.shrui, signed=False),
    arith.ShRSIOp: _shift(nx.shrsi, signed=True),
    # conversions
    arith.ExtFOp: elementwise(_to_float),
    arith.TruncFOp: elementwise(_to_float),
    arith.ExtSIOp: elementwise(_ext_signed),
    arith.ExtUIOp: elementwise(_ext_unsigned),
    arith.TruncIOp: elementwise(_ext_signed),
    arith.IndexCastOp: elementwise(_ext_signed),
    arith.SIToFPOp: elementwise(_signed_to_float),
    arith.UIToFPOp: elementwise(_unsigned_to_float),
    arith.FPToSIOp: elementwise(lambda op, d: nx.float_to_int(d[0], _result_width(op), True)),
    arith.FPToUIOp: elementwise(lambda op, d: nx.float_to_int(d[0], _result_width(op), False)),
    arith.BitcastOp: elementwise(_bitcast),
}

_MATH_FLOAT_UNARY: dict[type[Operation], Callable[[np.ndarray], np.ndarray]] = {
    math.AbsFOp: np.abs,
    math.AcosOp: np.arccos,
    math.AcoshOp: np.arccosh,
    math.AsinOp: np.arcsin,
    math.AsinhOp: np.arcsinh,
    math.AtanOp: np.arctan,
    math.AtanhOp: np.arctanh,
    math.CbrtOp: np.cbrt,
    math.CeilOp: np.ceil,
    math.CosOp: np.cos,
    math.CoshOp: np.cosh,
    math.ErfOp: nx.erf,
    math.Exp2Op: np.exp2,
    math.ExpM1Op: np.expm1,
    math.ExpOp: np.exp,
    math.FloorOp: np.floor,
    math.Log10Op: np.log10,
    math.Log1pOp: np.log1p,
    math.Log2Op: np.log2,
    math.LogOp: np.log,
    math.RoundEvenOp: np.rint,
    math.RoundOp: nx.round_half_away,
    math.RsqrtOp: _rsqrt,
    math.SinOp: np.sin,
    math.SinhOp: np.sinh,
    math.SqrtOp: np.sqrt,
    math.TanOp: np.tan,
    math.TanhOp: np.tanh,
    math.TruncOp: np.trunc,
}

MATH_HANDLERS: dict[type[Operation], Handler] = {
    **{cls: _float_unary(fn) for cls, fn in _MATH_FLOAT_UNARY.items()},
    math.Atan2Op: _float_binary(np.arctan2),
    math.CopySignOp: _float_binary(np.copysign),
    math.PowFOp: _float_binary(np.power),
    math.FmaOp: elementwise(_fma),
    math.FPowIOp: elementwise(_fpowi),
    math.AbsIOp: _int_unary(lambda a, w: np.abs(a), signed=True),
    math.CountLeadingZerosOp: _int_unary(lambda a, w: nx.count_bits(a, w, "ctlz"), signed=False),
    math.CountTrailingZerosOp: _int_unary(lambda a, w: nx.count_bits(a, w, "cttz"), signed=False),
    math.CtPopOp: _int_unary(lambda a, w: nx.count_bits(a, w, "ctpop"), signed=False),
    math.IPowIOp: _int_binary(nx.ipowi, signed=True),
}

# Ops whose results are "computed elements" in InterpStats (constants and select are not).
ARITH_MATH_COMPUTING = frozenset(
    set(ARITH_HANDLERS) - {arith.ConstantOp, arith.SelectOp, arith.CmpiOp, arith.CmpfOp}
) | frozenset(MATH_HANDLERS)

"""Handlers of `tg`: movement ops move the validity mask with the data; `reduce` reads Invalid
lanes as the reduction's identity and gives valid lanes; `contiguous` stores (Invalid -> 0);
`cmp`, `where`, `cast` and `threefry` are elementwise (SPEC §3, §4).

At the multi level a sharded operand is its logical tensor, so these handlers compute sharded
ops on logical arrays; a result typed `#multi.on` (reduce over the shard axis, shrink to one
shard) is replicated on the devices by `Machine.conform`.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, TensorType
from xdsl.ir import Operation

from xdsl_multi.dialects import tg
from xdsl_multi.dialects.element_types import bit_width, is_float
from xdsl_multi.runtime.interpreter import numerics as nx
from xdsl_multi.runtime.interpreter.machine import Handler, Machine
from xdsl_multi.runtime.interpreter.ops_arith import elementwise, pack, parts
from xdsl_multi.runtime.values import (
    Lanes,
    Value,
    and_masks,
    dtype_of,
    op_error,
    scalar_of,
    store,
)


def _tensor(op: Operation, v: Value) -> Lanes:
    if not isinstance(v, Lanes):
        raise op_error(op, f"expected a tensor operand, found {v!r}")
    return v


def _shape(op: Operation) -> tuple[int, ...]:
    t = op.results[0].type
    assert isinstance(t, TensorType)
    return tuple(t.get_shape())


def resolve_bounds(op: tg.PadOp | tg.ShrinkOp, dynamic: list[Value]) -> list[tuple[int, int]]:
    """The op's [lo, hi] pairs with each SSA bound replaced by its current value."""
    values = iter(dynamic)
    flat: list[int] = []
    for b in op.static_bounds.get_values():
        if b == tg.DYNAMIC:
            v = next(values)
            if not isinstance(v, np.integer):
                raise op_error(op, f"a dynamic bound must be an index, found {v!r}")
            flat.append(int(v))
        else:
            flat.append(b)
    return [(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)]


# ---------------------------------------------------------------------------------------------
# Movement
# ---------------------------------------------------------------------------------------------


def reshape(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    shape = _shape(op)
    return [_tensor(op, args[0]).map(lambda a: a.reshape(shape))]


def permute(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    assert isinstance(op, tg.PermuteOp)
    order = op.order_list
    return [_tensor(op, args[0]).map(lambda a: np.transpose(a, order))]


def expand(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    shape = _shape(op)
    return [_tensor(op, args[0]).map(lambda a: np.broadcast_to(a, shape))]


def pad(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    """Invalid padding is invalid lanes (data 0); `value V` padding is V, valid (rule 4)."""
    assert isinstance(op, tg.PadOp)
    x = _tensor(op, args[0])
    bounds = resolve_bounds(op, args[1:])
    new = _shape(op)
    for i, ((lo, hi), old, size) in enumerate(zip(bounds, x.shape, new, strict=True)):
        if lo < 0 or hi < 0 or old + lo + hi != size:
            raise op_error(
                op, f"axis {i}: padding [{lo}, {hi}] of {old} rows does not give {size} rows"
            )
    if op.is_invalid:
        data = np.pad(x.data, bounds, constant_values=np.zeros((), x.data.dtype))
        return [Lanes(data, np.pad(x.mask(), bounds, constant_values=False))]
    fill = op.value
    assert isinstance(fill, FloatAttr | IntegerAttr)
    value = scalar_of(op.operands[0].type, fill.value.data)  # type: ignore[arg-type]
    data = np.pad(x.data, bounds, constant_values=value)
    valid = None if x.valid is None else np.pad(x.valid, bounds, constant_values=True)
    return [Lanes(data, valid)]


def shrink(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    assert isinstance(op, tg.ShrinkOp)
    x = _tensor(op, args[0])
    bounds = resolve_bounds(op, args[1:])
    new = _shape(op)
    for i, ((lo, hi), old, size) in enumerate(zip(bounds, x.shape, new, strict=True)):
        if not 0 <= lo <= hi <= old or hi - lo != size:
            raise op_error(op, f"axis {i}: bounds [{lo}, {hi}] do not select {size} of {old} rows")
    index = tuple(slice(lo, hi) for lo, hi in bounds)
    return [x.map(lambda a: a[index])]


def flip(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    assert isinstance(op, tg.FlipOp)
    axes = op.axes_list
    x = _tensor(op, args[0])
    return [x.map(lambda a: np.flip(a, axes)) if axes else x]


# ---------------------------------------------------------------------------------------------
# Reduce, materialization
# ---------------------------------------------------------------------------------------------


def reduce(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    """Invalid lanes read as the identity (rule 2); the result is valid everywhere."""
    assert isinstance(op, tg.ReduceOp)
    x = _tensor(op, args[0])
    kind = op.reduce_kind
    data = x.data
    if x.valid is not None:
        data = np.where(x.valid, data, nx.reduce_identity(kind, data.dtype))
    with np.errstate(all="ignore"):
        return [Lanes(nx.reduce_axes(data, op.axes_list, kind))]


def contiguous(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    return [store(_tensor(op, args[0]))]


# ---------------------------------------------------------------------------------------------
# Elementwise helpers
# ---------------------------------------------------------------------------------------------


def _cmp(op: Operation, d: list[np.ndarray]) -> np.ndarray:
    """Signed for integers (i1 compares false < true, as tinygrad's bools), ordered for floats
    except ne; ult ule ugt uge compare the integers' unsigned values."""
    assert isinstance(op, tg.CmpOp)
    pred = op.cmp_predicate
    if pred.is_unsigned:
        width = bit_width(op.lhs.type)
        return nx.compare(pred.relation, nx.as_unsigned(d[0], width), nx.as_unsigned(d[1], width))
    return nx.compare(pred, d[0], d[1])


def _cast(op: Operation, d: list[np.ndarray]) -> np.ndarray:
    assert isinstance(op, tg.CastOp)
    src = op.operands[0].type
    width = dtype_of(src).itemsize * 8
    return nx.c_cast(
        d[0], is_float(src), width, dtype_of(op.results[0].type), unsigned=op.is_unsigned
    )


def _threefry(op: Operation, d: list[np.ndarray]) -> np.ndarray:
    return nx.threefry2x32(d[0], d[1])


def where(m: Machine, op: Operation, args: list[Value]) -> list[Value]:
    """The chosen operand's lane, valid if it is valid and the condition's lane is valid."""
    (c, c_valid), (t, t_valid), (f, f_valid) = (parts(a) for a in args)
    valid = None
    if t_valid is not None or f_valid is not None:
        t_mask = np.ones(t.shape, bool) if t_valid is None else t_valid
        f_mask = np.ones(f.shape, bool) if f_valid is None else f_valid
        valid = np.where(c, t_mask, f_mask)
    return [pack(op.results[0].type, np.where(c, t, f), and_masks(valid, c_valid))]


TG_HANDLERS: dict[type[Operation], Handler] = {
    tg.ReshapeOp: reshape,
    tg.PermuteOp: permute,
    tg.ExpandOp: expand,
    tg.PadOp: pad,
    tg.ShrinkOp: shrink,
    tg.FlipOp: flip,
    tg.ReduceOp: reduce,
    tg.ContiguousOp: contiguous,
    tg.CmpOp: elementwise(_cmp),
    tg.WhereOp: where,
    tg.CastOp: elementwise(_cast),
    tg.ThreefryOp: elementwise(_threefry),
}

TG_COMPUTING = frozenset({tg.CmpOp, tg.WhereOp, tg.CastOp, tg.ThreefryOp, tg.ReduceOp})

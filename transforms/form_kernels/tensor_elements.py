"""From tensors to scalars (`form-kernels`): the element of a device-level tensor value at a
symbolic index, as scalar nodes (scalar_graph.py), with its validity (SPEC §4 Invalid).

`TensorEvaluator.eval(value, index)` follows a value back through its producers down to
materialized values (`load`s of their buffers) and returns two nodes: the element's value and
its validity. Movement ops only transform the index (index_maps.py); elementwise ops become the
same `arith`/`math` op on scalars (`tg.threefry` its rounds in i32 arith); `tg.reduce` becomes a `reduce` node that binds fresh loop
variables for its reduced axes.

Validity is True unless an invalid pad or `devidx.invalid` is involved. An elementwise op is
valid where all operands are (rule 1) and nothing is computed when one is never valid; `where`
and `select` take the chosen side's validity; a reduction reads an Invalid lane as its
identity (rule 2) and is always valid; a pad with a value is valid in its padding (rule 4);
`tg.contiguous` stores Invalid as 0 (rule 3).

A value computed from a reduction and wanted at a third position of a row (a chain of row
reductions, BENCH C1) is written once into a scratch row (`fill`) and read back (`sload`).
"""

from __future__ import annotations

from collections.abc import Callable
from math import prod
from typing import Any

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    FloatAttr,
    IntegerAttr,
    TensorType,
    f32,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.exceptions import PassFailedException

from xdsl_multi.dialects import devidx, tg
from xdsl_multi.dialects.element_types import bit_width, is_bool, is_float
from xdsl_multi.transforms.form_kernels import index_maps as im
from xdsl_multi.transforms.form_kernels.device_scalars import DeviceScalars
from xdsl_multi.transforms.form_kernels.index_maps import InBounds, Index, Var
from xdsl_multi.transforms.form_kernels.scalar_graph import (
    FillInfo,
    Graph,
    ReduceInfo,
    SNode,
    Valid,
    accumulator_type,
    reduce_combine,
    walk,
    zero_of,
)
from xdsl_multi.transforms.value_facts import int_constant, splat_value

SCRATCH_AFTER = 3
"""A value computed from a reduction and wanted at this many positions of a row goes to a
scratch row (twice is recomputed: layernorm's x - mean feeds the variance and the output),
when its validity is the same all along the row (it is read back with it)."""
SCRATCH_LIMIT = 16384
"""Largest scratch row, in elements (it lives on the kernel's stack)."""
SCRATCH_MIN_COST = 4
"""Scalar ops per element below which recomputing beats a scratch row's store and load."""


def row_cost(x: SNode, row_vars: set[Var]) -> int:
    """The scalar ops computing `x` that run once per element of a row over `row_vars` (what
    is hoisted out of the row, loaded or read from scratch costs nothing; a reduction inside
    the row costs a lot)."""
    seen: set[int] = set()
    stack = [x]
    cost = 0
    while stack:
        n = stack.pop()
        if n.id in seen or not (n.fv & row_vars):
            continue
        seen.add(n.id)
        if n.kind in ("reduce", "fill"):
            cost += 1000
        elif n.kind == "op":
            cost += 1
            stack.extend(n.operands)
    return cost


# tg.cmp predicate -> arith.cmpf / arith.cmpi predicate, by element kind.
_P = tg.CmpPredicate
_CMP_FLOAT = {_P.LT: "olt", _P.LE: "ole", _P.GT: "ogt", _P.GE: "oge", _P.EQ: "oeq", _P.NE: "une"}
_CMP_SIGNED = {_P.LT: "slt", _P.LE: "sle", _P.GT: "sgt", _P.GE: "sge", _P.EQ: "eq", _P.NE: "ne"}
_CMP_BOOL = {_P.LT: "ult", _P.LE: "ule", _P.GT: "ugt", _P.GE: "uge", _P.EQ: "eq", _P.NE: "ne"}
_CMP_UNSIGNED = {_P.ULT: "ult", _P.ULE: "ule", _P.UGT: "ugt", _P.UGE: "uge"}

Element = tuple[SNode, Valid]


def shape_of(value: SSAValue) -> tuple[int, ...]:
    t = value.type
    assert isinstance(t, TensorType)
    return tuple(t.get_shape())


def element_type(value: SSAValue) -> Attribute:
    t = value.type
    return t.element_type if isinstance(t, TensorType) else t


class TensorEvaluator:
    """Builds the scalar element of device-level tensor values at symbolic indices.

    `is_leaf(value)` says which tensors are materialized: those are read with `load` nodes
    (a buffer holds 0 in the value's Invalid lanes, see `_stored`). `leaves` lists the ones
    read, in first-use order.
    """

    def __init__(
        self, graph: Graph, is_leaf: Callable[[SSAValue], bool], splats: Splats | None = None
    ) -> None:
        self.g = graph
        self.is_leaf = is_leaf
        self.splats = splats or Splats()
        self.leaves: list[SSAValue] = []
        self.shared_vars: dict[tuple[Operation, int], Var] = {}
        """Reduced axes (reduce op, axis) that take these variables instead of fresh ones, so
        that several elements of one reduction can share its loop (register tiles)."""
        self.checks: list[InBounds] = []
        """The pads' bounds checks that the indices did not decide (where loops may split)."""
        self.scratch = True
        """Whether values needed at many positions of a row may go to a scratch row."""
        self._memo: dict[tuple, Element] = {}
        self._memo_index: dict[tuple, Index] = {}
        self._fills_of: dict[SSAValue, list[SNode]] = {}
        self._reread = False
        """`reread_from_scratch` is building the element again."""
        self._scalars: dict[SSAValue, SNode] = {}
        self._seen: dict[SSAValue, list[Index]] = {}
        self._seen_keys: dict[SSAValue, set[tuple]] = {}
        self._fills: dict[tuple, SNode | None] = {}
        self._row_valid: dict[int, Valid] = {}
        """Each scratch row's validity (by fill node id): the same all along the row."""
        self._reduce_vars: set[Var] = set()
        """The variables this evaluator made for reduced axes whose element is built (a scratch
        row may take them: the reduction cannot depend on a row made after it)."""
        self._reduces_above: dict[SSAValue, bool] = {}
        self._device_scalars: DeviceScalars | None = None
        self._window_vars: dict[tuple, Var] = {}
        self.device_value: int | None = None
        """SPMD mode: build the element for this one device (a kernel's version for d = k)."""

    def eval(self, value: SSAValue, idx: Index) -> Element:
        """Element `idx` of `value` and its validity."""
        key = (value, tuple(x.key for x in idx), self._shared_key())
        hit = self._memo.get(key)
        if hit is None:
            if self.is_leaf(value):
                hit = self._stored(value, idx)
            else:
                hit = self._from_scratch(value, idx) or self.define(value, idx)
            self._memo[key] = hit
            self._memo_index[key] = idx
        return hit

    def reread_from_scratch(self, root: SSAValue, index: Index) -> Element | None:
        """`root`'s element `index` built again, now that the scratch rows are known, with
        every value that has one read from it, except where a row is written. The first
        build computes a value where it is first wanted, which for every value of a chain is
        the output row (BENCH C1: the output loop recomputed all 50 iterations from the input,
        as much work as the other 51 loops together); the rebuild reads the last row instead.
        Only the elements at positions along the rows' axes are built again (the reductions
        and the rows themselves are kept). None when there is no scratch row."""
        fills = [f for f in self._fills.values() if f is not None]
        if not fills:
            return None
        row_vars = {v for x in index for v in x.vars} - {
            v for f in fills for x in f.payload.outer for v in x.vars
        }
        for key, idx in list(self._memo_index.items()):
            if any(x.vars & row_vars for x in idx):
                del self._memo[key], self._memo_index[key]
        self._reread = True
        try:
            return self.define(root, index)
        finally:
            self._reread = False

    def _written_row(self, value: SSAValue, idx: Index) -> Element | None:
        """`reread_from_scratch`: the read of `value`'s scratch row at `idx`, if it has one
        there and `idx` is not where the row is written."""
        for fill in self._fills_of.get(value, []):
            info = fill.payload
            if any(idx[a].key != x.key for a, x in enumerate(info.outer) if a not in info.inner):
                continue
            if all(idx[a].as_var() is v for a, v in zip(info.inner, info.vars, strict=True)):
                continue
            return self.g.sload(fill, tuple(idx[a] for a in info.inner)), self._row_valid[fill.id]
        return None

    # -- materialized values ----------------------------------------------------------------

    def _stored(self, value: SSAValue, idx: Index) -> Element:
        """Element `idx` of a materialized value: a `load` of its buffer, valid where the value
        is. A result or a sent value may carry Invalid lanes: its buffer holds 0 there (rule 3),
        but the value's other users still see them Invalid (rule 1), so its validity is built
        from its producers (a separate evaluator: only the buffers that validity reads join
        this kernel's leaves)."""
        valid: Valid = True
        if not _free_of_invalid(value):
            probe = TensorEvaluator(self.g, self.is_leaf, self.splats)
            probe.shared_vars, probe.device_value = self.shared_vars, self.device_value
            probe.scratch = False
            _, valid = probe.define(value, idx)
            if valid is False:
                et = element_type(value)
                return self.g.const(zero_of(et), et), False
            if valid is not True:
                read = {n.payload[0] for n in walk([valid]) if n.kind == "load"}
                self.leaves += [v for v in probe.leaves if v in read and v not in self.leaves]
                self.checks += probe.checks
        if value not in self.leaves:
            self.leaves.append(value)
        return self.g.load(value, idx), valid

    # -- scratch rows -----------------------------------------------------------------------

    def _from_scratch(self, value: SSAValue, idx: Index) -> Element | None:
        """A value wanted at a third position along some axes (a chain of row reductions, each
        reading the previous normalized row: BENCH C1) is written once into a scratch row and
        read back, instead of being recomputed at every position: the kernel stays linear in
        the chain's length."""
        if self._reread:
            return self._written_row(value, idx)
        seen = self._seen.setdefault(value, [])
        seen_keys = self._seen_keys.setdefault(value, set())
        keys = tuple(x.key for x in idx)
        if not self.scratch or keys in seen_keys:
            return None
        seen.append(idx)
        seen_keys.add(keys)
        if len(seen) < SCRATCH_AFTER or not self._has_reduce_above(value):
            return None
        inner = tuple(a for a in range(len(idx)) if any(s[a].key != idx[a].key for s in seen[:-1]))
        shape = tuple(shape_of(value)[a] for a in inner)
        if not inner or prod(shape) > SCRATCH_LIMIT:
            return None
        outer = tuple(im.const(0) if a in inner else x for a, x in enumerate(idx))
        fkey = (value, tuple(x.key for x in outer))
        if fkey not in self._fills:
            vars_ = self._fill_vars(seen[:-1], inner, shape)
            full = list(outer)
            for a, v in zip(inner, vars_, strict=True):
                full[a] = im.var(v)
            x, valid = self.define(value, tuple(full))
            worth = _same_along(valid, vars_) and row_cost(x, set(vars_)) >= SCRATCH_MIN_COST
            info = FillInfo(value, outer, inner, vars_, shape)
            fill = self._fills[fkey] = self.g.fill(info, x) if worth else None
            if fill is not None:
                self._fills_of.setdefault(value, []).append(fill)
                self._row_valid[fill.id] = valid
        fill = self._fills[fkey]
        if fill is None:
            return None
        info = fill.payload
        if any(idx[a].key != x.key for a, x in enumerate(info.outer) if a not in info.inner):
            return None
        return self.g.sload(fill, tuple(idx[a] for a in info.inner)), self._row_valid[fill.id]

    def _fill_vars(
        self, seen: list[Index], inner: tuple[int, ...], shape: tuple[int, ...]
    ) -> tuple[Var, ...]:
        """The loop variables of a scratch row along its `inner` axes: those of a reduction
        that already read the value directly, at a position `seen` before, over the whole row
        in order (each inner axis exactly one of its variables, over the axis's full length);
        else fresh ones. With the reduction's variables the row is the same scalar node
        inside that reduction's loop, which then writes it too (kernel_codegen.emit_reduce):
        one loop where there were two (BENCH C1: 51 loops, not 100). Only a reduction whose
        node is built (not one whose element is being built, which could come to read this
        row) and only one row per reduction (its element cannot read a row of its own loop)."""
        for idx in seen:
            found = [idx[a].as_var() for a in inner]
            reused = tuple(v for v in found if v is not None and v in self._reduce_vars)
            if (
                len(reused) == len(inner)
                and len(set(reused)) == len(reused)
                and all((v.lo, v.hi) == (0, n - 1) for v, n in zip(reused, shape, strict=True))
                and not any(n.kind == "fill" for n in self.g.by_loop_vars.get(reused, []))
            ):
                return reused
        return tuple(self.g.new_var(0, n - 1, "s") for n in shape)

    def _has_reduce_above(self, value: SSAValue) -> bool:
        """Whether a tg.reduce computes part of `value` inside this kernel."""
        hit = self._reduces_above.get(value)
        if hit is None:
            op = value.owner
            hit = (
                not self.is_leaf(value)
                and isinstance(op, Operation)
                and (
                    isinstance(op, tg.ReduceOp)
                    or any(
                        isinstance(o.type, TensorType) and self._has_reduce_above(o)
                        for o in op.operands
                    )
                )
            )
            self._reduces_above[value] = hit
        return hit

    def _shared_key(self) -> tuple:
        return tuple(sorted((id(op), a, v.id) for (op, a), v in self.shared_vars.items()))

    def define(self, value: SSAValue, idx: Index) -> Element:
        """Element `idx` of `value` computed from its defining op (even if `value` is itself
        materialized: this is how its kernel computes it)."""
        op = value.owner
        assert isinstance(op, Operation), f"unmaterialized block argument {value}"
        rule = _RULES.get(type(op))
        if rule is not None:
            return rule(self, op, value, idx)
        if op.dialect_name() in ("arith", "math") and all(
            isinstance(o.type, TensorType) for o in op.operands
        ):
            et, props = element_type(value), dict(op.properties)
            return self._elementwise(op, idx, lambda a: self.g.op(type(op), a, et, props))
        raise PassFailedException(f"form-kernels: cannot fuse {op.name} at the device level")

    # -- one rule per op (the table _RULES below) ---------------------------------------

    def _constant(self, op: Operation, value: SSAValue, idx: Index) -> Element:
        x = self.splats.value(op.properties["value"])
        assert x is not None, "non-splat constants are materialized"
        return self.g.const(x, element_type(value)), True

    def _invalid(self, op: Operation, value: SSAValue, idx: Index) -> Element:
        et = element_type(value)
        return self.g.const(zero_of(et), et), False

    def _contiguous(self, op: Operation, value: SSAValue, idx: Index) -> Element:
        """Stored: Invalid reads back as 0 (rule 3)."""
        x, xv = self.eval(op.operands[0], idx)
        if xv is True:
            return x, True
        et = element_type(value)
        zero = self.g.const(zero_of(et), et)
        return (zero if xv is False else self.g.select(xv, x, zero)), True

    def _reshape(self, op: Operation, value: SSAValue, idx: Index) -> Element:
        src = op.operands[0]
        return self.eval(src, im.reshape_map(idx, shape_of(src), shape_of(value)))

    def _permute(self, op: Operation, value: SSAValue, idx: Index) -> Element:
        assert isinstance(op, tg.PermuteOp)
        return self.eval(op.operands[0], im.permute_map(idx, op.order_list))

    def _expand(self, op: Operation, value: SSAValue, idx: Index) -> Element:
        src = op.operands[0]
        return self.eval(src, im.expand_map(idx, shape_of(src), shape_of(value)))

    def _shrink(self, op: Operation, value: SSAValue, idx: Index) -> Element:
        assert isinstance(op, tg.ShrinkOp)
        return self.eval(op.operands[0], im.shrink_map(idx, self.low_bounds(op)))

    def _flip(self, op: Operation, value: SSAValue, idx: Index) -> Element:
        assert isinstance(op, tg.FlipOp)
        return self.eval(op.operands[0], im.flip_map(idx, shape_of(value), op.axes_list))

    def _where(self, op: Operation, value: SSAValue, idx: Index) -> Element:
        g = self.g
        c, cv = self.eval(op.operands[0], idx)
        t, tv = self.eval(op.operands[1], idx)
        f, fv = self.eval(op.operands[2], idx)
        return g.select(c, t, f), g.all_of(cv, g.choose(c, tv, fv))

    def _select(self, op: Operation, value: SSAValue, idx: Index) -> Element:
        """arith.select with a scalar condition of @main."""
        g = self.g
        c = self.scalar(op.operands[0])
        t, tv = self.eval(op.operands[1], idx)
        f, fv = self.eval(op.operands[2], idx)
        return g.select(c, t, f), g.choose(c, tv, fv)

    def _tg_cmp(self, op: Operation, value: SSAValue, idx: Index) -> Element:
        assert isinstance(op, tg.CmpOp)
        return self._elementwise(op, idx, lambda a: self._cmp(op, a))

    def _tg_cast(self, op: Operation, value: SSAValue, idx: Index) -> Element:
        assert isinstance(op, tg.CastOp)
        et = element_type(value)
        return self._elementwise(op, idx, lambda a: self._cast(a[0], et, op.is_unsigned))

    def _tg_threefry(self, op: Operation, value: SSAValue, idx: Index) -> Element:
        return self._elementwise(op, idx, lambda a: self._threefry(a[0], a[1]))

    def _elementwise(
        self, op: Operation, idx: Index, build: Callable[[list[SNode]], SNode]
    ) -> Element:
        parts = [self.eval(o, idx) for o in op.operands]
        valid = self.g.all_of(*(v for _, v in parts))
        if valid is False:  # nothing is computed for a lane that is never valid
            et = element_type(op.results[0])
            return self.g.const(zero_of(et), et), False
        return build([x for x, _ in parts]), valid

    def _pad(self, op: tg.PadOp, value: SSAValue, idx: Index) -> Element:
        g = self.g
        src_idx, checks = im.pad_map(idx, shape_of(op.source), self.low_bounds(op))
        self.checks.extend(c for c in checks if c.decided is None)
        inside = g.all_of(*(g.check(c) for c in checks))
        if inside is False:
            if op.is_invalid:
                et = element_type(op.result)
                return g.const(zero_of(et), et), False
            return self._fill(op), True
        x, xv = self.eval(op.source, src_idx)
        if inside is True:
            return x, xv
        if op.is_invalid:
            return x, g.all_of(inside, xv)
        return g.select(inside, x, self._fill(op)), g.choose(inside, xv, True)

    def _fill(self, op: tg.PadOp) -> SNode:
        fill = op.value
        assert isinstance(fill, FloatAttr | IntegerAttr)
        return self.g.const(fill.value.data, element_type(op.result))

    def _reduce(self, op: tg.ReduceOp, value: SSAValue, idx: Index) -> Element:
        g = self.g
        src_shape = shape_of(op.source)
        et = element_type(op.result)
        acc_t = accumulator_type(et)
        combine, identity = reduce_combine(op.reduce_kind, acc_t)
        if any(src_shape[a] == 0 for a in op.axes_list):
            result = g.const(identity, acc_t)
            return (g.op(arith.TruncFOp, [result], et) if acc_t != et else result), True
        vars_: list[Var] = []
        inner = list(idx)
        for a in op.axes_list:
            if src_shape[a] == 1:
                inner[a] = im.const(0)
            else:
                v = self.shared_vars.get((op, a)) or g.new_var(0, src_shape[a] - 1, "r")
                vars_.append(v)
                inner[a] = im.var(v)
        first_check = len(self.checks)
        x, xv = self.eval(op.source, tuple(inner))
        if g.device_var is not None and isinstance(xv, SNode):
            windowed = self._device_windows(vars_, inner, self.checks[first_check:], xv)
            if windowed is not None:
                vars_, inner = windowed
                x, xv = self.eval(op.source, tuple(inner))
        if acc_t != et:
            x = g.op(arith.ExtFOp, [x], acc_t)
        if xv is False:
            result = g.const(identity, acc_t)
        elif not vars_:  # unit axes only: the element itself, or the identity where Invalid
            result = x if xv is True else g.select(xv, x, g.const(identity, acc_t))
        else:
            info = ReduceInfo(op.reduce_kind, tuple(vars_), combine, identity, op)
            result = g.reduce(info, acc_t, x, xv)
            if not any(v in self.shared_vars.values() for v in vars_):
                self._reduce_vars.update(vars_)
        if acc_t != et:
            result = g.op(arith.TruncFOp, [result], et)
        return result, True

    def _index(self, op: Operation, value: SSAValue, idx: Index) -> Element:
        """`devidx.index %stack[%k]`: element (k, idx) of the stack (k may depend on d)."""
        assert isinstance(op, devidx.IndexOp)
        return self.eval(op.source, (self.index_of(op.index), *idx))

    def _stack(self, op: Operation, value: SSAValue, idx: Index) -> Element:
        """`devidx.stack`: the source that idx[0] selects; a chain of selects when idx[0] is
        symbolic, ending in Invalid outside [0, n) (SPEC §4 rule 6)."""
        g = self.g
        assert isinstance(op, devidx.StackOp)
        k, rest = idx[0], idx[1:]
        sources = list(op.sources)
        if k.is_const:
            if 0 <= k.const < len(sources):
                return self.eval(sources[k.const], rest)
            return self._invalid(op, value, idx)
        lo, hi = k.range
        et = element_type(value)
        out: SNode = g.const(zero_of(et), et)
        out_valid: Valid = False
        k_node = g.ix(k)
        for c in range(min(hi, len(sources) - 1), max(lo, 0) - 1, -1):
            x, xv = self.eval(sources[c], rest)
            hit = g.cmpi("eq", k_node, g.index(c))
            out, out_valid = g.select(hit, x, out), g.choose(hit, xv, out_valid)
        return out, out_valid

    # -- SPMD mode: bounds and indices that depend on the device number ---------------------

    def low_bounds(self, op: tg.PadOp | tg.ShrinkOp) -> list[im.Ix | int]:
        """The low bound of each axis: an integer, or in SPMD mode an expression of d."""
        return [self.bound_of(lo) for lo, _ in op.bounds]

    def bound_of(self, b: int | SSAValue) -> im.Ix | int:
        if isinstance(b, int):
            return b
        c = int_constant(b)
        if c is not None:
            return c
        if self.g.devices is None:
            owner = b.owner
            name = owner.name if isinstance(owner, Operation) else "a block argument"
            raise PassFailedException(
                f"form-kernels: a bound computed by {name} is not a constant at the device level "
                "(run specialize-devices first, or form-kernels{spmd=true} on the SPMD level)"
            )
        return self.index_of(b)

    def index_of(self, value: SSAValue) -> im.Ix:
        """An index scalar of @main as an expression of d (affine where its values are)."""
        c = int_constant(value)
        if c is not None:
            return im.const(c)
        if self.g.devices is None:
            raise PassFailedException(
                f"form-kernels: the index {value.name_hint or value} is not a constant at the "
                "device level"
            )
        if self.device_value is not None:
            return im.const(int(self.device_scalars.value(value, self.device_value)))
        affine = self._affine_in_device(value)
        if affine is not None:  # no table of N values: the kernel does not depend on N
            return affine
        table = [int(v) for v in self.device_scalars.table(value)]
        return im.table(im.var(self.g.device()), table)

    def _affine_in_device(self, value: SSAValue) -> im.Ix | None:
        """`value` as a*d + b read off its ops (d, constants, addi, subi, muli by a
        constant), or None: then its table over the devices decides."""
        c = int_constant(value)
        if c is not None:
            return im.const(c)
        op = value.owner
        if isinstance(op, devidx.DeviceNumOp):
            return im.var(self.g.device())
        if not isinstance(op, arith.AddiOp | arith.SubiOp | arith.MuliOp):
            return None
        a, b = (self._affine_in_device(v) for v in op.operands)
        if a is None or b is None:
            return None
        if isinstance(op, arith.AddiOp):
            return im.add(a, b)
        if isinstance(op, arith.SubiOp):
            return im.sub(a, b)
        if b.is_const:
            return im.scale(a, b.const)
        if a.is_const:
            return im.scale(b, a.const)
        return None

    @property
    def device_scalars(self) -> DeviceScalars:
        if self._device_scalars is None:
            assert self.g.devices is not None
            self._device_scalars = DeviceScalars(self.g.devices)
        return self._device_scalars

    def _device_windows(
        self, vars_: list[Var], inner: list[im.Ix], checks: list[InBounds], valid: SNode
    ) -> tuple[list[Var], list[im.Ix]] | None:
        """SPMD mode: a reduced axis whose lanes are valid only in a window that moves with
        the device (a check `lo <= r + e(d) < hi` that the element's validity requires, the
        window always inside the axis) loops over that window alone: r = r' + lo - e(d) with
        r' in [0, hi - lo). The lanes left out are Invalid, so the reduction's identity: the
        result is the same, with no masked iterations."""
        d = self.g.device_var
        required = _conjuncts(valid)
        new_vars: list[Var | None] = list(vars_)
        new_inner, changed = list(inner), False
        for k, v in enumerate(vars_):
            for c in checks:
                if im.coefficient(c.x, v) != 1 or not (c.x.vars - {v}) <= {d}:
                    continue
                check = self.g.check(c)
                if isinstance(check, bool) or not _conjuncts(check) <= required:
                    continue
                e = im.sub(c.x, im.var(v))
                start = im.sub(im.const(c.lo), e)  # the window is [start, start + hi - lo)
                length = c.hi - c.lo
                if length <= 0 or start.range[0] < v.lo or start.range[1] + length > v.hi + 1:
                    continue
                # one window variable per (variable, window): the elements of a register
                # tile share their reduction's variable, and so its window's
                w: Var | None = None
                if length > 1:  # a window of one lane is no loop
                    key = (v, start.key, length)
                    w = self._window_vars.get(key)
                    if w is None:
                        w = self._window_vars[key] = self.g.new_var(0, length - 1, v.name)
                shifted = start if w is None else im.add(im.var(w), start)
                new_inner = [im.substitute(x, {v: shifted}) for x in new_inner]
                new_vars[k], changed = w, True
                break
        if not changed:
            return None
        return [v for v in new_vars if v is not None], new_inner

    def _cmp(self, op: tg.CmpOp, a: list[SNode]) -> SNode:
        t = element_type(op.operands[0])
        pred = op.cmp_predicate
        if is_float(t):
            return self.g.cmpf(_CMP_FLOAT[pred], a[0], a[1])
        if pred.is_unsigned:
            return self.g.cmpi(_CMP_UNSIGNED[pred], a[0], a[1])
        table = _CMP_BOOL if is_bool(t) else _CMP_SIGNED
        return self.g.cmpi(table[pred], a[0], a[1])

    def _cast(self, x: SNode, dst: Attribute, unsigned: bool = False) -> SNode:
        """C conversion (SPEC §3 tg.cast); `unsigned` reads or writes the integer side as
        unsigned (uitofp, fptoui, zero extension)."""
        g = self.g
        src = x.type
        if src == dst:
            return x
        if is_bool(dst):
            zero = g.const(zero_of(src), src)
            return g.cmpf("une", x, zero) if is_float(src) else g.cmpi("ne", x, zero)
        if is_float(dst):
            if is_float(src):
                if bit_width(src) == bit_width(dst):  # f16 <-> bf16 through f32
                    return g.op(arith.TruncFOp, [g.op(arith.ExtFOp, [x], f32)], dst)
                cls = arith.ExtFOp if bit_width(src) < bit_width(dst) else arith.TruncFOp
                return g.op(cls, [x], dst)
            from_uint = is_bool(src) or unsigned
            return g.op(arith.UIToFPOp if from_uint else arith.SIToFPOp, [x], dst)
        if is_float(src):
            return g.op(arith.FPToUIOp if unsigned else arith.FPToSIOp, [x], dst)
        if is_bool(src):
            return g.op(arith.ExtUIOp, [x], dst)
        if bit_width(src) == bit_width(dst):
            return x
        if bit_width(src) > bit_width(dst):
            return g.op(arith.TruncIOp, [x], dst)
        return g.op(arith.ExtUIOp if unsigned else arith.ExtSIOp, [x], dst)

    def _threefry(self, x: SNode, key: SNode) -> SNode:
        """tg.threefry on scalars: threefry2x32_20 of x's (low, high) i32 halves under key's,
        in i32 arith (wrapping adds, xori, rotations as shli | shrui), packed back into i64
        (output word 1 high): the same function as runtime/interpreter/numerics.py `threefry2x32`."""
        g = self.g

        def word(v: int) -> SNode:
            return g.const(v, i32)

        def add(a: SNode, b: SNode) -> SNode:
            return g.op(arith.AddiOp, [a, b], i32)

        def xor(a: SNode, b: SNode) -> SNode:
            return g.op(arith.XOrIOp, [a, b], i32)

        def rotl(a: SNode, r: int) -> SNode:
            left = g.op(arith.ShLIOp, [a, word(r)], i32)
            return g.op(arith.OrIOp, [left, g.op(arith.ShRUIOp, [a, word(32 - r)], i32)], i32)

        def halves(v: SNode) -> tuple[SNode, SNode]:
            high = g.op(arith.ShRUIOp, [v, g.const(32, i64)], i64)
            return g.op(arith.TruncIOp, [v], i32), g.op(arith.TruncIOp, [high], i32)

        x0, x1 = halves(x)
        k0, k1 = halves(key)
        ks = (k0, k1, xor(xor(k0, k1), word(tg.THREEFRY_PARITY)))
        x0, x1 = add(x0, ks[0]), add(x1, ks[1])
        for group in range(tg.THREEFRY_GROUPS):
            for r in tg.THREEFRY_ROTATIONS[group % 2]:
                x0 = add(x0, x1)
                x1 = xor(rotl(x1, r), x0)
            x0 = add(x0, ks[(group + 1) % 3])
            x1 = add(add(x1, ks[(group + 2) % 3]), word(group + 1))
        low = g.op(arith.ExtUIOp, [x0], i64)
        high = g.op(arith.ShLIOp, [g.op(arith.ExtUIOp, [x1], i64), g.const(32, i64)], i64)
        return g.op(arith.OrIOp, [high, low], i64)

    # -- scalars of @main -----------------------------------------------------------------

    def scalar(self, value: SSAValue) -> SNode:
        """A scalar of @main (a select's condition), recomputed in the kernel."""
        hit = self._scalars.get(value)
        if hit is not None:
            return hit
        op = value.owner
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr | FloatAttr):
            node = self.g.const(op.value.value.data, value.type)
        elif isinstance(op, devidx.DeviceNumOp) and self.g.devices is not None:
            if self.device_value is not None:
                node = self.g.index(self.device_value)
            else:
                node = self.g.ix(im.var(self.g.device()))
        elif isinstance(op, devidx.LookupOp) and self.g.devices is not None:
            if self.device_value is not None:
                node = self.g.index(int(self.device_scalars.value(value, self.device_value)))
            else:
                node = self.g.op(
                    devidx.LookupOp, [self.scalar(op.index)], value.type, dict(op.properties)
                )
        elif (
            isinstance(op, Operation)
            and op.dialect_name() in ("arith", "math")
            and not any(isinstance(o.type, TensorType) for o in op.operands)
            and len(op.results) == 1
        ):
            node = self.g.op(
                type(op), [self.scalar(o) for o in op.operands], value.type, dict(op.properties)
            )
        else:
            raise PassFailedException(
                f"form-kernels: the scalar {value} is not computed from constants"
            )
        self._scalars[value] = node
        return node


def _free_of_invalid(value: SSAValue) -> bool:
    """Whether a materialized value has no Invalid lane by what it is: an argument, a received
    or fetched message, a `tg.contiguous` or a constant (stored, rule 3), a reduction (rule 2)."""
    op = value.owner
    return not isinstance(op, Operation) or isinstance(
        op,
        (
            devidx.RecvOp,
            devidx.FetchOp,
            *devidx.COLLECTIVES,
            tg.ContiguousOp,
            tg.ReduceOp,
            arith.ConstantOp,
        ),
    )


def _same_along(valid: Valid, row: tuple[Var, ...]) -> bool:
    """Whether a value's validity is the same at every position of a scratch row over `row`
    (True, or a node of the outer loops only: an SPMD window that moves with d), so that a
    read of the row takes it as it is. False never is: nothing is computed there."""
    return valid is True or (valid is not False and not (valid.fv & set(row)))


def _conjuncts(node: SNode) -> set[int]:
    """The ids of the nodes whose conjunction `node` is (through `arith.andi`)."""
    out: set[int] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if n.kind == "op" and n.payload[0] is arith.AndIOp:
            stack.extend(n.operands)
        else:
            out.add(n.id)
    return out


Rule = Callable[[TensorEvaluator, Any, SSAValue, Index], Element]

_RULES: dict[type[Operation], Rule] = {
    arith.ConstantOp: TensorEvaluator._constant,
    devidx.InvalidOp: TensorEvaluator._invalid,
    tg.ContiguousOp: TensorEvaluator._contiguous,
    tg.ReshapeOp: TensorEvaluator._reshape,
    tg.PermuteOp: TensorEvaluator._permute,
    tg.ExpandOp: TensorEvaluator._expand,
    tg.ShrinkOp: TensorEvaluator._shrink,
    tg.FlipOp: TensorEvaluator._flip,
    tg.PadOp: TensorEvaluator._pad,
    tg.ReduceOp: TensorEvaluator._reduce,
    tg.WhereOp: TensorEvaluator._where,
    arith.SelectOp: TensorEvaluator._select,
    tg.CmpOp: TensorEvaluator._tg_cmp,
    tg.CastOp: TensorEvaluator._tg_cast,
    tg.ThreefryOp: TensorEvaluator._tg_threefry,
    devidx.IndexOp: TensorEvaluator._index,
    devidx.StackOp: TensorEvaluator._stack,
}
"""How each op's element is built (arith/math ops without a rule are cloned on scalars)."""


class Splats:
    """Splat values of dense constants (dialects/splat.py `splat_value`), each attribute read
    once: device modules share their constants' attributes, and an expanded splat (every
    element stored) is megabytes to compare; a compact one is read in O(1)."""

    def __init__(self) -> None:
        self._seen: dict[int, tuple[Attribute, Any]] = {}

    def value(self, attr: Attribute) -> Any:
        hit = self._seen.get(id(attr))
        if hit is None:
            hit = (attr, splat_value(attr))
            self._seen[id(attr)] = hit
        return hit[1]

    def is_splat_constant(self, op: Operation) -> bool:
        return isinstance(op, arith.ConstantOp) and self.value(op.value) is not None

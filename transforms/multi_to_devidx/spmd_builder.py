"""Building blocks of the SPMD form (docs/spmd-form.md): index arithmetic on the device number,
Invalid masks, the local/global views of a shard, and fetches.

`SpmdBuilder` appends ops at one insertion point and caches index constants, so a lowering can
read as the math it implements (`b.rem(b.add(b.d, b.idx(t)), b.idx(n))`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xdsl_multi.dialects import devidx, tg
from xdsl_multi.dialects.element_types import is_bool, is_float
from xdsl_multi.dialects.multi import ReduceKind, local_length
from xdsl_multi.dialects.splat import splat_attr
from xdsl_multi.transforms.value_facts import may_hold_invalid

Index = int | SSAValue


def plain(t: TensorType, shape: Sequence[int] | None = None) -> TensorType:
    """`t` without its encoding (optionally with another shape)."""
    return TensorType(t.element_type, t.get_shape() if shape is None else shape)


def splat(t: TensorType, value: float) -> DenseIntOrFPElementsAttr:
    """A compact splat dense attribute of type `t` (floats for float element types, ints
    otherwise; dialects/splat.py)."""
    v: float | int = float(value) if is_float(t.element_type) else int(value)
    return splat_attr(t, v)  # type: ignore[arg-type]


def combine_op(kind: ReduceKind, t: TensorType) -> type[Operation]:
    """The elementwise op that combines two values for a reduction kind add, mul or max."""
    elt = t.element_type
    ADD, MUL, MAX = ReduceKind.ADD, ReduceKind.MUL, ReduceKind.MAX
    if is_bool(elt):
        return {ADD: arith.OrIOp, MUL: arith.AndIOp, MAX: arith.OrIOp}[kind]
    if is_float(elt):
        return {ADD: arith.AddfOp, MUL: arith.MulfOp, MAX: arith.MaximumfOp}[kind]
    return {ADD: arith.AddiOp, MUL: arith.MuliOp, MAX: arith.MaxSIOp}[kind]


@dataclass
class ShardGeometry:
    """How a logical axis of length `length` is split over `n` devices (SPEC §1)."""

    axis: int
    length: int
    n: int

    @property
    def s(self) -> int:
        return local_length(self.length, self.n)


@dataclass
class SpmdBuilder:
    """Appends SPMD ops before `anchor` (or at the end of a block through `insert_point`)."""

    insert_point: InsertPoint
    num_devices: int
    d: SSAValue
    tables: bool = False
    """Table lookups on d as `devidx.lookup` (collectives=ops) instead of select chains."""
    _consts: dict[int, SSAValue] = field(default_factory=dict[int, SSAValue])
    _memo: dict[tuple[object, ...], SSAValue] = field(
        default_factory=dict[tuple[object, ...], SSAValue]
    )

    def emit(self, op: Operation) -> Operation:
        Rewriter.insert_op(op, self.insert_point)
        return op

    def value(self, op: Operation) -> SSAValue:
        return self.emit(op).results[0]

    # ---- index arithmetic ---------------------------------------------------------------------

    def _index_op(self, kind: type[Operation], *args: object) -> SSAValue:
        """One index op per (kind, operands): repeated index math is built once."""
        key = (kind, *args)
        if key not in self._memo:
            operands = [self.idx(a) for a in args if isinstance(a, SSAValue | int)]
            extra = [a for a in args if isinstance(a, str)]
            self._memo[key] = self.value(kind(*operands, *extra))
        return self._memo[key]

    def idx(self, v: Index) -> SSAValue:
        if isinstance(v, SSAValue):
            return v
        if v not in self._consts:
            self._consts[v] = self.value(arith.ConstantOp(IntegerAttr(v, IndexType())))
        return self._consts[v]

    def add(self, a: Index, b: Index) -> Index:
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if b == 0:
            return a
        if a == 0:
            return b
        return self._index_op(arith.AddiOp, a, b)

    def mul(self, a: Index, b: Index) -> Index:
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if isinstance(a, int):
            a, b = b, a
        if b == 1:
            return a
        if b == 0:
            return 0
        return self._index_op(arith.MuliOp, a, b)

    def div(self, a: Index, n: int) -> Index:
        """a // n for a >= 0 and n > 0."""
        if isinstance(a, int):
            return a // n
        if n == 1:
            return a
        return self._index_op(arith.DivSIOp, a, n)

    def ceil_div(self, a: Index, n: int) -> Index:
        """ceil(a / n) for a >= 0 and n > 0."""
        return self.div(self.add(a, n - 1), n)

    def sub(self, a: Index, b: Index) -> Index:
        if isinstance(a, int) and isinstance(b, int):
            return a - b
        if b == 0:
            return a
        return self._index_op(arith.SubiOp, a, b)

    def rem(self, a: Index, n: int) -> Index:
        if isinstance(a, int):
            return a % n
        if n == 1:
            return 0
        return self._index_op(arith.RemSIOp, a, n)

    def minimum(self, a: Index, b: Index) -> Index:
        if isinstance(a, int) and isinstance(b, int):
            return min(a, b)
        if a is b:
            return a
        return self._index_op(arith.MinSIOp, a, b)

    def eq(self, a: Index, b: Index) -> SSAValue:
        return self._index_op(arith.CmpiOp, a, b, "eq")

    def ne(self, a: Index, b: Index) -> SSAValue:
        return self._index_op(arith.CmpiOp, a, b, "ne")

    def table_at(self, i: Index, table: Sequence[int]) -> Index:
        """table[i] for a position 0 <= i < len(table), as a chain of selects on i (i itself
        for the identity table)."""
        if isinstance(i, int):
            return table[i]
        if list(table) == list(range(len(table))):
            return i
        acc = self.idx(table[-1])
        for pos in range(len(table) - 1):
            if table[pos] != table[-1]:
                acc = self.select(self.eq(i, pos), self.idx(table[pos]), acc)
        return acc

    def select(self, cond: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.value(arith.SelectOp(cond, a, b))

    def shift(self, t: int) -> Index:
        """(d + t) mod N for any integer t (kept non-negative before the remainder)."""
        if t % self.num_devices == 0:
            return self.d
        return self.rem(self.add(self.d, t % self.num_devices), self.num_devices)

    def lookup(self, table: Sequence[int], default: int) -> Index:
        """table[d] for d < len(table), else `default`: one `devidx.lookup` when `tables` is
        set (SPMD mode: O(1) ops in N), else a chain of selects on d (SPEC §5's arith form)."""
        if list(table) == list(range(self.num_devices)):
            return self.d
        if self.tables:
            full = [*table, *[default] * (self.num_devices - len(table))][: self.num_devices]
            if len(set(full)) == 1:
                return full[0]
            key = (devidx.LookupOp, tuple(full))
            if key not in self._memo:
                self._memo[key] = self.value(devidx.LookupOp(self.d, full))
            return self._memo[key]
        acc = self.idx(default)
        for dev, v in enumerate(table):
            if v != default:
                acc = self.select(self.eq(self.d, dev), self.idx(v), acc)
        return acc

    def member(self, numbers: Sequence[int]) -> SSAValue | None:
        """An i1 that is true on the listed device numbers (None: every device is listed)."""
        if sorted(numbers) == list(range(self.num_devices)):
            return None
        table = [0] * self.num_devices
        for num in numbers:
            table[num] = 1
        return self.eq(self.lookup(table, 0), 1)

    # ---- tensors --------------------------------------------------------------------------------

    def invalid(self, t: TensorType) -> SSAValue:
        return self.value(devidx.InvalidOp(plain(t)))

    def constant(self, t: TensorType, v: float) -> SSAValue:
        return self.value(arith.ConstantOp(splat(plain(t), v)))

    def mask(self, cond: SSAValue | None, x: SSAValue) -> SSAValue:
        """x where `cond`, Invalid elsewhere (cond None: x everywhere)."""
        if cond is None:
            return x
        t = x.type
        assert isinstance(t, TensorType)
        return self.select(cond, x, self.invalid(t))

    def pad_axis(
        self, x: SSAValue, axis: int, lo: Index, hi: Index, new_len: int, fill: Attribute | None
    ) -> SSAValue:
        """Pad axis `axis` by [lo, hi] (fill None: Invalid) to `new_len` rows."""
        t = x.type
        assert isinstance(t, TensorType)
        if lo == 0 and hi == 0:
            return x
        shape = list(t.get_shape())
        bounds: list[tuple[tg.Bound, tg.Bound]] = [(0, 0)] * len(shape)
        bounds[axis] = (lo, hi)
        shape[axis] = new_len
        return self.value(tg.PadOp(x, bounds, plain(t, shape), fill))

    def shrink_axis(self, x: SSAValue, axis: int, lo: Index, size: int) -> SSAValue:
        """Rows [lo, lo + size) of axis `axis` (lo may be an SSA index)."""
        t = x.type
        assert isinstance(t, TensorType)
        shape = list(t.get_shape())
        if lo == 0 and size == shape[axis]:
            return x
        bounds: list[tuple[tg.Bound, tg.Bound]] = [(0, d) for d in shape]
        bounds[axis] = (lo, self.add(lo, size))
        shape[axis] = size
        return self.value(tg.ShrinkOp(x, bounds, plain(t, shape)))

    def reshape(self, x: SSAValue, shape: Sequence[int]) -> SSAValue:
        t = x.type
        assert isinstance(t, TensorType)
        if tuple(shape) == t.get_shape():
            return x
        return self.value(tg.ReshapeOp(x, plain(t, shape)))

    def stored(self, x: SSAValue) -> SSAValue:
        """x as a materialization would store it (Invalid lanes read 0): x itself when no lane
        can be Invalid, else `tg.contiguous x` (never a copy of data that cannot hold Invalid)."""
        if not may_hold_invalid(x):
            return x
        return self.value(tg.ContiguousOp(x))

    def fetch(self, x: SSAValue, src: Index) -> SSAValue:
        return self.value(devidx.FetchOp(x, self.idx(src)))

    def validity(self, x: SSAValue) -> SSAValue:
        """An i1 tensor of x's shape: true where x's lanes hold data, Invalid where x's are
        (`c | (c ^ true)` of `c` = x as i1: true for every value, NaN included, and poisoned by
        Invalid, rule 1), so that a fetch of it stores false there."""
        t = x.type
        assert isinstance(t, TensorType)
        bool_t = TensorType(IntegerType(1), t.get_shape())
        c = x if is_bool(t.element_type) else self.value(tg.CastOp(x, bool_t))
        flipped = self.value(arith.XOrIOp(c, self.constant(bool_t, 1)))
        return self.value(arith.OrIOp(c, flipped))

    def fetch_keeping_invalid(self, x: SSAValue, src: Index) -> SSAValue:
        """Device src's x on every device, Invalid where src's x is: a fetch stores Invalid as
        0 (rule 3), so x's validity is fetched too and re-applied (`tg.where`)."""
        data = self.fetch(x, src)
        valid = self.fetch(self.validity(x), src)
        t = data.type
        assert isinstance(t, TensorType)
        return self.value(tg.WhereOp(valid, data, self.invalid(t)))

    def combine(self, kind: ReduceKind, a: SSAValue, b: SSAValue) -> SSAValue:
        t = a.type
        assert isinstance(t, TensorType)
        return self.value(combine_op(kind, t)(a, b))

    # ---- shard views (docs/spmd-form.md) -----------------------------------------------------

    def local(self, x: SSAValue, g: ShardGeometry, k: Index) -> SSAValue:
        """The s-row local buffer of position k out of the logical-shape value x."""
        padded = self.pad_axis(x, g.axis, 0, g.n * g.s - g.length, g.n * g.s, None)
        return self.shrink_axis(padded, g.axis, self.mul(k, g.s), g.s)

    def global_(self, b: SSAValue, g: ShardGeometry, k: Index) -> SSAValue:
        """The logical-shape value holding local buffer b at position k, Invalid elsewhere."""
        lo = self.mul(k, g.s)
        hi = self.mul(self.sub(g.n - 1, k), g.s)
        padded = self.pad_axis(b, g.axis, lo, hi, g.n * g.s, None)
        return self.shrink_axis(padded, g.axis, 0, g.length)

    def clean(self, x: SSAValue, g: ShardGeometry, k: Index) -> SSAValue:
        """x with every lane outside position k's share made Invalid."""
        return self.global_(self.local(x, g, k), g, k)

    # ---- windows with a dynamic valid length (nested splits of a mesh, SPEC §1.1) --------------

    def keep_first(self, x: SSAValue, axis: int, n: Index) -> SSAValue:
        """x with rows [n, S) of axis `axis` made Invalid (S the axis length, 0 <= n <= S): x
        moved down by S - n rows into Invalid and back (two static-size windows)."""
        t = x.type
        assert isinstance(t, TensorType)
        size = t.get_shape()[axis]
        if isinstance(n, int) and n >= size:
            return x
        down = self.shrink_axis(self.pad_axis(x, axis, size, 0, 2 * size, None), axis, n, size)
        back = self.pad_axis(down, axis, 0, size, 2 * size, None)
        return self.shrink_axis(back, axis, self.sub(size, n), size)

    def window(self, x: SSAValue, axis: int, lo: Index, n: Index, size: int) -> SSAValue:
        """Rows [lo, lo + n) of axis `axis` of x at [0, n) of a `size`-row buffer, Invalid at
        [n, size) (lo + n <= x's length; the window may reach past it)."""
        t = x.type
        assert isinstance(t, TensorType)
        length = t.get_shape()[axis]
        padded = self.pad_axis(x, axis, 0, size, length + size, None)
        return self.keep_first(self.shrink_axis(padded, axis, lo, size), axis, n)

    def unwindow(self, x: SSAValue, axis: int, lo: Index, n: Index, length: int) -> SSAValue:
        """The inverse of `window`: rows [0, n) of x at [lo, lo + n) of a `length`-row value,
        Invalid elsewhere (rows [n, size) of x are padding and dropped)."""
        t = x.type
        assert isinstance(t, TensorType)
        size = t.get_shape()[axis]
        kept = self.keep_first(x, axis, n)
        padded = self.pad_axis(kept, axis, lo, self.sub(length, lo), length + size, None)
        return self.shrink_axis(padded, axis, 0, length)

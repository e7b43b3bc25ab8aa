"""The scalar expression graph of `form-kernels`: what one element of a fused value is, as a DAG of
scalar nodes over loop variables (tensor_elements.py builds it from the tensor program,
kernel_codegen.py emits it).

Kinds of node: constants, loop variables, loads of materialized buffers, scalar `arith`/`math`
ops, reductions (`reduce`, binding loop variables of their own), scratch rows (`fill`, also
binding variables) and their loads (`sload`). Index expressions (index_maps.py) become
`index` arithmetic nodes; bounds checks become `i1` nodes.

Validity (SPEC §4 Invalid) is a Python bool when the kernel's build decides it, else an `i1`
node: `Valid`.

Nodes are interned: building the same node twice gives the same object, so a kernel computes
each distinct scalar once (at the outermost loop where its variables are bound, see
kernel_codegen.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    DenseArrayBase,
    Float16Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
    f32,
    i1,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue

from xdsl_multi.dialects import devidx
from xdsl_multi.dialects.element_types import bit_width, is_bool, is_float
from xdsl_multi.dialects.multi import ReduceKind
from xdsl_multi.transforms.form_kernels import index_maps as im
from xdsl_multi.transforms.form_kernels.index_maps import InBounds, Index, Ix, Var

# --------------------------------------------------------------------------------------------
# Nodes
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReduceInfo:
    """What a `reduce` node accumulates: `combine`(acc, element) from `identity` over `vars`."""

    kind: ReduceKind
    vars: tuple[Var, ...]
    combine: type[Operation]
    identity: Any
    origin: Operation


@dataclass(frozen=True)
class FillInfo:
    """A `fill` node: the kernel writes `value` at index `outer` with its `inner` axes running
    over `vars` into a scratch buffer of `shape` (memref.alloca), once per value of the outer
    loops; `sload` nodes read it back."""

    value: SSAValue
    outer: Index
    inner: tuple[int, ...]
    vars: tuple[Var, ...]
    shape: tuple[int, ...]


class SNode:
    """One scalar of a kernel. `kind` is const, var, load, op, reduce, fill or sload:

    - const: `payload` is the Python value;
    - var: `payload` is the loop `Var`;
    - load: `payload` is (materialized tensor, `Ix` index), `operands` the index nodes;
    - op: `payload` is (op class, properties), `operands` the op's operands;
    - reduce: `payload` is a `ReduceInfo`, `operands` are (element, validity) or (element,);
    - fill: `payload` is a `FillInfo`, `operands` are (element,): a scratch buffer, written;
    - sload: `payload` is the `Ix` index into the fill `operands[0]`, `operands[1:]` its nodes.
    `fv` are the loop variables the value depends on (a reduce or fill binds its own).
    """

    __slots__ = ("fv", "id", "kind", "operands", "payload", "type")

    def __init__(
        self,
        id: int,
        kind: str,
        type: Attribute,
        payload: Any,
        operands: tuple[SNode, ...],
        fv: frozenset[Var],
    ) -> None:
        self.id = id
        self.kind = kind
        self.type = type
        self.payload = payload
        self.operands = operands
        self.fv = fv

    def __repr__(self) -> str:
        return f"SNode#{self.id}({self.kind})"

    @property
    def reduce(self) -> ReduceInfo:
        assert self.kind == "reduce"
        return self.payload

    @property
    def loop_vars(self) -> tuple[Var, ...]:
        """The loop variables a reduce or fill node binds (none for other nodes)."""
        return self.payload.vars if self.kind in ("reduce", "fill") else ()


Valid = bool | SNode
"""True/False when decided at build time, else an i1 node."""


def _const_key(value: Any) -> Any:
    if isinstance(value, float):
        return ("f", value.hex())
    return (type(value).__name__, value)


class Graph:
    """Interns scalar nodes and hands out loop variables for one kernel."""

    def __init__(self, devices: int | None = None) -> None:
        self._nodes: dict[tuple, SNode] = {}
        self._next_var = 0
        self.devices = devices
        """SPMD mode: the number of devices the kernel is built for (None: one device)."""
        self.device_var: Var | None = None
        """SPMD mode: the device number d, once something needed it (a kernel argument)."""
        self.by_loop_vars: dict[tuple[Var, ...], list[SNode]] = {}
        """The reduce and fill nodes by the loop variables they bind (a fill that takes a
        reduction's variables is written by that reduction's loop: kernel_codegen)."""

    def __len__(self) -> int:
        """How many distinct nodes the kernel's elements hold."""
        return len(self._nodes)

    def _intern(
        self, kind: str, t: Attribute, payload: Any, key: Any, operands: Sequence[SNode]
    ) -> SNode:
        operands = tuple(operands)
        full_key = (kind, t, key, tuple(o.id for o in operands))
        node = self._nodes.get(full_key)
        if node is None:
            if kind == "var":
                fv = frozenset([payload])
            elif kind in ("reduce", "fill"):
                fv = frozenset().union(*(o.fv for o in operands)) - set(payload.vars)
            else:
                fv = frozenset().union(*(o.fv for o in operands))
            node = SNode(len(self._nodes), kind, t, payload, operands, fv)
            self._nodes[full_key] = node
            if kind in ("reduce", "fill"):
                self.by_loop_vars.setdefault(payload.vars, []).append(node)
        return node

    # -- leaves ---------------------------------------------------------------------------

    def new_var(self, lo: int, hi: int, name: str) -> Var:
        v = Var(self._next_var, lo, hi, name)
        self._next_var += 1
        return v

    def device(self) -> Var:
        """The device number d in [0, devices) of an SPMD kernel (bound by its argument)."""
        assert self.devices is not None, "device number outside SPMD mode"
        if self.device_var is None:
            self.device_var = self.new_var(0, self.devices - 1, "d")
        return self.device_var

    def const(self, value: Any, t: Attribute) -> SNode:
        if isinstance(t, IntegerType) and t.width.data == 1:
            value = bool(value)
        elif isinstance(t, AnyFloat):
            value = float(value)
        else:
            value = int(value)
        return self._intern("const", t, value, _const_key(value), ())

    def index(self, value: int) -> SNode:
        return self.const(value, IndexType())

    def var(self, v: Var) -> SNode:
        return self._intern("var", IndexType(), v, v.key, ())

    def load(self, leaf: SSAValue, index: Index) -> SNode:
        """Element `index` of a materialized tensor (clamped into it); `payload` is (tensor,
        index)."""
        t = leaf.type
        assert isinstance(t, TensorType)
        index = im.load_index(index, t.get_shape())
        key = (id(leaf), tuple(x.key for x in index))
        return self._intern("load", t.element_type, (leaf, index), key, [self.ix(x) for x in index])

    def reduce(self, info: ReduceInfo, t: Attribute, element: SNode, valid: Valid) -> SNode:
        assert valid is not False
        operands = (element,) if valid is True else (element, valid)
        key = (info.kind, tuple(v.key for v in info.vars), id(info.origin))
        return self._intern("reduce", t, info, key, operands)

    def fill(self, info: FillInfo, element: SNode) -> SNode:
        key = (id(info.value), tuple(x.key for x in info.outer), tuple(v.key for v in info.vars))
        return self._intern("fill", element.type, info, key, (element,))

    def sload(self, fill: SNode, index: Index) -> SNode:
        index = im.load_index(index, fill.payload.shape)
        key = tuple(x.key for x in index)
        return self._intern("sload", fill.type, index, key, [fill, *(self.ix(x) for x in index)])

    # -- ops ------------------------------------------------------------------------------

    def op(
        self,
        cls: type[Operation],
        operands: Sequence[SNode],
        t: Attribute,
        properties: dict[str, Attribute] | None = None,
    ) -> SNode:
        props = tuple(sorted((properties or {}).items()))
        return self._intern("op", t, (cls, props), (cls, props), operands)

    def cmpi(self, pred: str, a: SNode, b: SNode) -> SNode:
        p = arith.CMPI_COMPARISON_OPERATIONS.index(pred)
        return self.op(arith.CmpiOp, [a, b], i1, {"predicate": IntegerAttr(p, i64)})

    def cmpf(self, pred: str, a: SNode, b: SNode) -> SNode:
        p = arith.CMPF_COMPARISON_OPERATIONS.index(pred)
        return self.op(arith.CmpfOp, [a, b], i1, {"predicate": IntegerAttr(p, i64)})

    def select(self, c: SNode, a: SNode, b: SNode) -> SNode:
        if a is b:
            return a
        if c.kind == "const":
            return a if c.payload else b
        return self.op(arith.SelectOp, [c, a, b], a.type)

    # -- validity -------------------------------------------------------------------------

    def as_i1(self, v: Valid) -> SNode:
        return self.const(v, i1) if isinstance(v, bool) else v

    def all_of(self, *vs: Valid) -> Valid:
        out: Valid = True
        for v in vs:
            if v is False:
                return False
            if v is True or v is out:
                continue
            out = v if out is True else self.op(arith.AndIOp, [out, v], i1)
        return out

    def choose(self, c: SNode, a: Valid, b: Valid) -> Valid:
        """select(c, a, b) on validities."""
        if a is b or (isinstance(a, bool) and a == b):
            return a
        if c.kind == "const":
            return a if c.payload else b
        return self.select(c, self.as_i1(a), self.as_i1(b))

    def check(self, c: InBounds) -> Valid:
        decided = c.decided
        if decided is not None:
            return decided
        x = self.ix(c.x)
        parts: list[Valid] = []
        if c.needs_lower:
            parts.append(self.cmpi("sge", x, self.index(c.lo)))
        if c.needs_upper:
            parts.append(self.cmpi("slt", x, self.index(c.hi)))
        return self.all_of(*parts)

    # -- index expressions ----------------------------------------------------------------

    def ix(self, x: Ix) -> SNode:
        """The nodes computing an index expression (>= 0 where it matters, see index_maps)."""
        out: SNode | None = None
        for atom, coef in x.terms:
            term = self._atom(atom)
            if coef != 1:
                term = self.op(arith.MuliOp, [term, self.index(coef)], IndexType())
            out = term if out is None else self.op(arith.AddiOp, [out, term], IndexType())
        if out is None:
            return self.index(x.const)
        if x.const:
            out = self.op(arith.AddiOp, [out, self.index(x.const)], IndexType())
        return out

    def _atom(self, atom: im.Atom) -> SNode:
        if isinstance(atom, Var):
            return self.var(atom)
        if isinstance(atom, im.Clamp):
            x = self.ix(atom.x)
            lo, hi = atom.x.range
            if lo < atom.lo:
                x = self.op(arith.MaxSIOp, [x, self.index(atom.lo)], IndexType())
            if hi > atom.hi:
                x = self.op(arith.MinSIOp, [x, self.index(atom.hi)], IndexType())
            return x
        if isinstance(atom, im.Table):  # one table lookup, whatever the number of entries
            table = DenseArrayBase.from_list(i64, list(atom.values))
            return self.op(devidx.LookupOp, [self.ix(atom.x)], IndexType(), {"table": table})
        # Div and Mod: unsigned division of a value made non-negative by a bias of k's.
        lo, _ = atom.x.range
        bias = 0 if lo >= 0 else -(lo // atom.k)
        x = self.ix(im.add_const(atom.x, bias * atom.k))
        k = self.index(atom.k)
        if isinstance(atom, im.Div):
            q = self.op(arith.DivUIOp, [x, k], IndexType())
            return self.op(arith.SubiOp, [q, self.index(bias)], IndexType()) if bias else q
        return self.op(arith.RemUIOp, [x, k], IndexType())


def alpha_equal(a: Valid, b: Valid) -> bool:
    """Whether `a` and `b` are the same scalar but for the loop variables their reductions
    bind (each build of an element gives its reductions variables of their own: SPMD mode's
    device versions, kernel_analysis.device_versions, are built once per device). Free
    variables must be the same; `fill` and `sload` nodes are never equal unless identical."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    renamed: dict[Var, Var] = {}
    known: dict[tuple[int, int], bool] = {}

    def same_index(x: Ix, y: Ix) -> bool:
        mapping = {v: im.var(renamed[v]) for v in x.vars if v in renamed}
        return (im.substitute(x, mapping) if mapping else x) == y

    def same(x: SNode, y: SNode) -> bool:
        if x is y:
            return True
        key = (x.id, y.id)
        if key not in known:  # (a bound variable occurs only below its reduce, which maps it
            known[key] = same_node(x, y)  # before its operands are compared)
        return known[key]

    def same_node(x: SNode, y: SNode) -> bool:
        if x.kind != y.kind or x.type != y.type or len(x.operands) != len(y.operands):
            return False
        if x.kind == "const":
            if _const_key(x.payload) != _const_key(y.payload):
                return False
        elif x.kind == "var":
            if renamed.get(x.payload, x.payload) != y.payload:
                return False
        elif x.kind == "load":
            (xt, xi), (yt, yi) = x.payload, y.payload
            if xt is not yt or len(xi) != len(yi):
                return False
            if not all(same_index(p, q) for p, q in zip(xi, yi, strict=True)):
                return False
        elif x.kind == "op":
            if x.payload != y.payload:
                return False
        elif x.kind == "reduce":
            rx, ry = x.reduce, y.reduce
            if (
                (rx.kind, rx.combine, _const_key(rx.identity))
                != (ry.kind, ry.combine, _const_key(ry.identity))
                or rx.origin is not ry.origin
                or [(v.lo, v.hi) for v in rx.vars] != [(v.lo, v.hi) for v in ry.vars]
            ):
                return False
            renamed.update(zip(rx.vars, ry.vars, strict=True))
        else:
            return False
        return all(same(p, q) for p, q in zip(x.operands, y.operands, strict=True))

    return same(a, b)


def walk(roots: Iterable[SNode]) -> list[SNode]:
    """Every node reachable from `roots`, operands before users."""
    seen: set[int] = set()
    order: list[SNode] = []
    stack: list[tuple[SNode, bool]] = [(r, False) for r in reversed(list(roots))]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if node.id in seen:
            continue
        seen.add(node.id)
        stack.append((node, True))
        stack.extend((o, False) for o in reversed(node.operands) if o.id not in seen)
    return order


# --------------------------------------------------------------------------------------------
# Element types
# --------------------------------------------------------------------------------------------


def zero_of(t: Attribute) -> Any:
    return 0.0 if is_float(t) else (False if is_bool(t) else 0)


def accumulator_type(t: Attribute) -> Attribute:
    """f16 and bf16 reductions accumulate in f32 (as the interpreter's numerics)."""
    return f32 if isinstance(t, Float16Type | BFloat16Type) else t


def reduce_combine(kind: ReduceKind, t: Attribute) -> tuple[type[Operation], Any]:
    """The combining op and the identity of `tg.reduce kind` on element type `t` (SPEC §4)."""
    ADD, MUL, MAX = ReduceKind.ADD, ReduceKind.MUL, ReduceKind.MAX
    if is_float(t):
        return (
            {ADD: arith.AddfOp, MUL: arith.MulfOp, MAX: arith.MaximumfOp}[kind],
            {ADD: 0.0, MUL: 1.0, MAX: float("-inf")}[kind],
        )
    if is_bool(t):
        return {ADD: arith.XOrIOp, MUL: arith.AndIOp, MAX: arith.OrIOp}[kind], kind == MUL
    w = bit_width(t)
    return (
        {ADD: arith.AddiOp, MUL: arith.MuliOp, MAX: arith.MaxSIOp}[kind],
        {ADD: 0, MUL: 1, MAX: -(2 ** (w - 1))}[kind],
    )

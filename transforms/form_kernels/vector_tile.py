"""Vector register tiles of `form-kernels`: a tiled reduction's full tiles as `vector` ops.

A register tile of rows x cols accumulators (kernel_codegen.py `emit_tile`) is built as rows x
(cols / lanes) vectors of `lanes` elements (`vector_lanes`: 16 f32 or 8 f64, one 512-bit
register) instead of rows x cols scalars. The tile's elements are defined once per vector, with
the column `j = tj + lanes * v + l` over a lane variable `l` in [0, lanes): a node that depends
on `l` is a vector, any other node a scalar, broadcast where a vector needs it.

```mlir
%zero = arith.constant 0.000000e+00 : f32
%z = vector.broadcast %zero : f32 to vector<16xf32>
%acc:16 = scf.for %k ... iter_args(%c00 = %z, ...) -> (vector<16xf32>, ...) {
  %a = memref.load %A[%row, %k] : memref<512x1024xf32>                    // one scalar per row
  %av = vector.broadcast %a : f32 to vector<16xf32>
  %b = vector.load %panel[%k, %c16] : memref<1024x32xf32>, vector<16xf32>  // packed B
  %s = vector.fma %av, %b, %c01 : vector<16xf32>
  ...
}
vector.store %acc#1, %out[%row, %col] : memref<512x1024xf32>, vector<16xf32>
```

What a vector tile holds (`VectorTile.supports`, else the tile stays scalar): lane-dependent
nodes of the tile's element type only, each one of
- a load whose index has the lane in one axis with coefficient 1, followed by unit axes only
  (contiguous lanes: `vector.load` at lane 0, through a `memref.collapse_shape` of the unit
  axes where there are some);
- a tiled add reduction over floats whose validity does not depend on the lane (`vector.fma`
  accumulators);
- a lanewise float op (`_LANEWISE`, the op's own class on vectors), or an `arith.select` whose
  condition does not depend on the lane (a scalar i1 picks a whole vector);
and the element's validity and its output index follow the same rules (a scalar condition,
`vector.store` at lane 0). So uneven rows (a whole row Invalid) stay vectors; a column mask
(lanes of one vector valid apart) keeps the scalar tile.

Hosts with narrower registers get the same IR: LLVM splits each vector in legalization.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import (
    ArrayAttr,
    Float32Type,
    Float64Type,
    IntegerAttr,
    MemRefType,
    TensorType,
    VectorType,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue

from xdsl_multi.dialects.element_types import bit_width
from xdsl_multi.dialects.multi import ReduceKind
from xdsl_multi.transforms.form_kernels import index_maps as im
from xdsl_multi.transforms.form_kernels.index_maps import Ix, Var
from xdsl_multi.transforms.form_kernels.panels import packable, panel_candidates, shifted_loads
from xdsl_multi.transforms.form_kernels.scalar_graph import FillInfo, Graph, SNode, Valid

VECTOR_BITS = 512
"""Bits of one vector of a register tile: an AVX-512 register (16 f32)."""

_LANEWISE: tuple[type[Operation], ...] = (
    arith.AddfOp,
    arith.SubfOp,
    arith.MulfOp,
    arith.DivfOp,
    arith.MaximumfOp,
    arith.MinimumfOp,
    arith.NegfOp,
)
"""Float ops a vector tile computes on vectors (any other lane-dependent op: a scalar tile)."""

Element = tuple[tuple[Ix, ...], SNode, Valid]
"""One tile element (or vector): its output index, value and validity."""


def vector_lanes(t: Attribute, cols: int) -> int:
    """The policy: lanes per vector of a tile of `cols` columns of element type `t`, or 0 when
    the tile stays scalar (other element types, remainder tiles of one column)."""
    if not isinstance(t, Float32Type | Float64Type):
        return 0
    lanes = VECTOR_BITS // bit_width(t)
    return lanes if cols % lanes == 0 else 0


class Frame(Protocol):
    open: bool
    depth: int

    def insert(self, op: Operation) -> None: ...


class TileEmitter(Protocol):
    """What a vector tile uses of kernel_codegen's `KernelEmitter`."""

    g: Graph
    args: dict[SSAValue, SSAValue]
    out: SSAValue
    var_at: dict[Var, tuple[Frame, SSAValue]]
    base: Frame

    def value(self, node: SNode) -> SSAValue: ...

    def frame_of(self, node: SNode) -> Frame: ...

    def frame_of_all(self, nodes: Sequence[SNode]) -> Frame: ...

    def open_loop(
        self,
        parent: Frame,
        v: Var | None,
        lb: int,
        ub: int,
        step: int,
        iter_args: Sequence[SSAValue],
    ) -> tuple[scf.ForOp, Frame]: ...

    def close_loop(self, parent: Frame, frame: Frame, yields: Sequence[SSAValue]) -> None: ...


def lane_index(index: Sequence[Ix], lane: Var, shape: Sequence[int]) -> tuple[Ix, ...] | None:
    """The index of lane 0 when the lanes are contiguous along one axis after which every
    axis has size 1, without those unit axes (the index into `unit_view`), else None."""
    axes = [a for a, x in enumerate(index) if im.coefficient(x, lane) != 0]
    if len(axes) != 1 or im.coefficient(index[axes[0]], lane) != 1:
        return None
    a = axes[0]
    if any(n != 1 for n in shape[a + 1 :]):
        return None
    zero = {lane: im.const(0)}
    return tuple(im.substitute(x, zero) for x in index[: a + 1])


def _shape(value: SSAValue) -> tuple[int, ...]:
    t = value.type
    assert isinstance(t, TensorType | MemRefType)
    return tuple(t.get_shape())


class VectorTile:
    """The vectors of one tile, emitted through the kernel emitter's frames."""

    def __init__(self, em: TileEmitter, lane: Var, lanes: int, t: Attribute) -> None:
        self.em = em
        self.lane = lane
        self.lanes = lanes
        self.t = t
        self.vtype = VectorType(t, [lanes])
        self.memo: dict[int, tuple[SSAValue, Frame]] = {}
        self.splats: dict[int, tuple[SSAValue, Frame]] = {}
        self.packed: dict[int, tuple[SNode, tuple[Ix, ...]]] = {}
        """Lane loads redirected to a packed panel: the fill and the index of lane 0."""
        self.views: dict[tuple[SSAValue, int], SSAValue] = {}

    def unit_view(self, buffer: SSAValue, rank: int) -> SSAValue:
        """`buffer` without its trailing unit axes past `rank` (`memref.collapse_shape` at the
        kernel's entry, once): a `vector.load/store` runs along the last axis, and a kept
        reduced axis (`memref<512x1024x1xf32>`) puts the lanes in the one before."""
        t = buffer.type
        assert isinstance(t, MemRefType)
        shape = t.get_shape()
        if rank == len(shape):
            return buffer
        key = (buffer, rank)
        if key not in self.views:
            groups = [[a] for a in range(rank - 1)] + [list(range(rank - 1, len(shape)))]
            reassociation = ArrayAttr(
                [ArrayAttr([IntegerAttr(a, i64) for a in g]) for g in groups]
            )
            view = memref.CollapseShapeOp.create(
                operands=[buffer],
                result_types=[MemRefType(t.element_type, shape[:rank])],
                properties={"reassociation": reassociation},
            )
            self.em.base.insert(view)
            self.views[key] = view.result
        return self.views[key]

    # -- the policy -----------------------------------------------------------------------

    def supports(
        self, elements: Sequence[Element], tiled: set[Operation], bound: set[Var | None]
    ) -> bool:
        """Whether every lane-dependent node of the elements is one a vector tile holds (a
        tiled reduction only over the variables the tile binds, `bound`: the accumulators
        are the tile's)."""
        lane = self.lane
        stack: list[SNode] = []
        for index, value, valid in elements:
            if isinstance(valid, SNode) and lane in valid.fv:
                return False
            if lane_index(index, lane, _shape(self.em.out)) is None:
                return False
            stack.append(value)
        seen: set[int] = set()
        while stack:
            n = stack.pop()
            if n.id in seen or lane not in n.fv:
                continue
            seen.add(n.id)
            if n.type != self.t:
                return False
            if n.kind == "load":
                leaf, index = n.payload
                if lane_index(index, lane, _shape(leaf)) is None:
                    return False
            elif n.kind == "reduce":
                if n.reduce.origin not in tiled or n.reduce.kind != ReduceKind.ADD:
                    return False
                if not n.fv <= bound:
                    return False
                if len(n.operands) > 1 and lane in n.operands[1].fv:
                    return False
                stack.append(n.operands[0])
            elif n.kind == "op" and n.payload[0] is arith.SelectOp:
                if lane in n.operands[0].fv:
                    return False
                stack.extend(n.operands[1:])
            elif n.kind == "op" and n.payload[0] in _LANEWISE:
                stack.extend(n.operands)
            else:
                return False
        return True

    # -- values ---------------------------------------------------------------------------

    def splat(self, node: SNode) -> SSAValue:
        """`vector.broadcast` of a scalar node, once per open frame."""
        hit = self.splats.get(node.id)
        if hit is not None and hit[1].open:
            return hit[0]
        scalar = self.em.value(node)
        frame = self.em.frame_of(node)
        op = vector.BroadcastOp(scalar, self.vtype)
        frame.insert(op)
        self.splats[node.id] = (op.vector, frame)
        return op.vector

    def vector(self, node: SNode) -> SSAValue:
        """The vector of a lane-dependent node (a scalar node: its broadcast)."""
        if self.lane not in node.fv:
            return self.splat(node)
        hit = self.memo.get(node.id)
        if hit is not None and hit[1].open:
            return hit[0]
        em = self.em
        frame = em.frame_of(node)
        if node.kind == "load":
            if node.id in self.packed:
                fill, index = self.packed[node.id]
                base = em.value(fill)
            else:
                leaf, lane_ix = node.payload
                lane0 = lane_index(lane_ix, self.lane, _shape(leaf))
                assert lane0 is not None
                base, index = self.unit_view(em.args[leaf], len(lane0)), lane0
            indices = [em.value(em.g.ix(x)) for x in index]
            op: Operation = vector.LoadOp(base, indices, self.vtype)
        elif node.kind == "op":
            cls, props = node.payload
            if cls is arith.SelectOp:
                cond = em.value(node.operands[0])
                operands = [cond, *(self.vector(o) for o in node.operands[1:])]
            else:
                operands = [self.vector(o) for o in node.operands]
            op = cls.create(operands=operands, result_types=[self.vtype], properties=dict(props))
        else:
            raise AssertionError(f"{node} is not a vector tile's node (supports() said so)")
        frame.insert(op)
        self.memo[node.id] = (op.results[0], frame)
        return op.results[0]

    # -- reductions -----------------------------------------------------------------------

    def reductions(self, nodes: list[SNode], frame: Frame) -> None:
        """One loop nest over the shared reduced variables of `nodes`, one vector
        accumulator each (`vector.fma`), the results memoized as the nodes' vectors."""
        em = self.em
        info = nodes[0].reduce
        inits = [self.splat(em.g.const(n.reduce.identity, n.type)) for n in nodes]
        loops: list[tuple[scf.ForOp, Frame, Frame]] = []
        parent, accs = frame, inits
        for v in info.vars:
            loop, inner = em.open_loop(parent, v, v.lo, v.hi + 1, 1, accs)
            loops.append((loop, parent, inner))
            parent, accs = inner, list(loop.body.block.args[1:])
        yields = [self.accumulate(n, acc, parent) for n, acc in zip(nodes, accs, strict=True)]
        for loop, outer, inner in reversed(loops):
            em.close_loop(outer, inner, yields)
            yields = list(loop.results)
        for n, result in zip(nodes, yields, strict=True):
            self.memo[n.id] = (result, frame)

    def accumulate(self, n: SNode, acc: SSAValue, frame: Frame) -> SSAValue:
        element = n.operands[0]
        valid = n.operands[1] if len(n.operands) > 1 else None
        if valid is None and element.kind == "op" and element.payload[0] is arith.MulfOp:
            a, b = (self.vector(o) for o in element.operands)
        else:
            a, b = self.vector(element), self.splat(self.em.g.const(1.0, self.t))
            if valid is not None:
                zero = self.splat(self.em.g.const(0.0, self.t))
                sel = arith.SelectOp(self.em.value(valid), a, zero)
                frame.insert(sel)
                a = sel.result
        fma = vector.FMAOp(a, b, acc)
        frame.insert(fma)
        return fma.res

    # -- stores ---------------------------------------------------------------------------

    def store(self, value: SNode, valid: Valid, index: Sequence[Ix]) -> None:
        em = self.em
        zero = em.g.const(0.0, self.t)
        if valid is False:
            v = self.splat(zero)
        else:
            v = self.vector(value)
            if valid is not True:
                sel = arith.SelectOp(em.value(valid), v, self.splat(zero))
                em.frame_of_all([valid, value]).insert(sel)
                v = sel.result
        lane0 = lane_index(index, self.lane, _shape(em.out))
        assert lane0 is not None
        index_nodes = [em.g.ix(x) for x in lane0]
        indices = [em.value(x) for x in index_nodes]
        out = self.unit_view(em.out, len(lane0))
        em.frame_of_all(index_nodes).insert(vector.StoreOp(v, out, indices))

    # -- packing --------------------------------------------------------------------------

    def pack_panels(
        self,
        row0: Sequence[Element],
        tiled: set[int],
        tj: Var,
        ti: Var,
        column_frame: Frame,
        budget: int,
        byte_width: int,
    ) -> None:
        """kernel_codegen's `pack_panels` for vectors: a K x cols panel of a load strided
        along k and contiguous along the tile's columns and lanes, the same for every tile
        row, copied once per tile column (the same `fill` node as the scalar tile's), and the
        vectors of row 0 (`row0`, one per vector v) load it at [k, lanes * v]."""
        g, lane = self.em.g, self.lane
        cols = len(row0) * self.lanes
        per_vector, ks = panel_candidates(
            row0, tiled,
            lambda n, k: packable(n, k, tj, ti, lane, column_frame, self.em.var_at),
        )
        for base in per_vector[0].values():
            k = ks[base.id]
            size = k.extent * cols * byte_width
            if size > budget:
                continue
            loads = shifted_loads(g, base, tj, self.lanes, per_vector)
            if loads is not None:
                leaf, index = base.payload
                budget -= size
                kp, cp = g.new_var(k.lo, k.hi, "pk"), g.new_var(0, cols - 1, "pc")
                to_panel = {tj: im.add(im.var(tj), im.var(cp)), k: im.var(kp), lane: im.const(0)}
                generic = tuple(im.substitute(x, to_panel) for x in index)
                shape = (k.extent, cols)
                fill = g.fill(FillInfo(leaf, generic, (), (kp, cp), shape), g.load(leaf, generic))
                row = im.add_const(im.var(k), -k.lo)
                for v, load in enumerate(loads):
                    self.packed[load.id] = (fill, (row, im.const(self.lanes * v)))

"""The scalar code generator of `form-kernels`: a `KernelPlan` (kernel_analysis.py) becomes a
`func.func @kernelN` over memrefs with `scf.for` loops, `memref.load/store` and scalar
`arith`/`math` (the kernel-level contract, docs/kernel-level.md).

Every scalar node is emitted once, in the outermost open loop that binds all its variables
(`Frame`s form the loop tree being built). So loop-invariant work is hoisted by construction:
a reduction the row loop depends on is computed in the row loop before the loop over the row
(multireduce), and `A[i, k]` of a matmul is loaded outside the loop over j.

Plain plan:
```mlir
scf.for %i ... {                                       // output loops, plan.order
  %s = scf.for %r ... iter_args(%acc = %zero) {...}    // reductions where they are needed
  scf.for %j ... { ...; memref.store %v, %out[%i, %j] }
}
```
Tiled plan (reductions outside the innermost loop, kernel_analysis.choose_tiling): the last two
output loops step by the tile, the reduction loop runs inside with rows x cols accumulators as
iter_args, and each tile element's epilogue is stored after it; remainder rows and columns get
tiles of one row or one column. A full tile is built of vectors where it can be
(vector_tile.py: `vector<16xf32>` accumulators), else of scalars.

Stores write `select(valid, v, 0)` (SPEC §4 rule 3); reductions accumulate
`select(valid, v, identity)` (rule 2). The accumulating float op carries
`fastmath<reassoc, contract>` so LLVM may vectorize the reduction; a `mulf` that feeds an add
reduction gets `contract` (an FMA).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from math import prod

from xdsl.dialects import arith, func, math, memref, scf
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    TensorType,
    UnitAttr,
    i1,
    i64,
)
from xdsl.dialects.utils.fast_math import FastMathFlag
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from xdsl_multi.dialects.element_types import bit_width, is_bool, is_float
from xdsl_multi.dialects.multi import KERNEL_ATTR, WRITES_ATTR, ReduceKind
from xdsl_multi.transforms.form_kernels import index_maps as im
from xdsl_multi.transforms.form_kernels.bounds_versions import (
    aligned_bounds,
    choose_bounds,
    device_test,
    top_loops,
)
from xdsl_multi.transforms.form_kernels.index_maps import Ix, Var
from xdsl_multi.transforms.form_kernels.kernel_analysis import KernelPlan
from xdsl_multi.transforms.form_kernels.loop_rolling import roll_repeated_loops
from xdsl_multi.transforms.form_kernels.panels import packable, panel_candidates, shifted_loads
from xdsl_multi.transforms.form_kernels.scalar_graph import (
    FillInfo,
    SNode,
    Valid,
    alpha_equal,
    walk,
    zero_of,
)
from xdsl_multi.transforms.form_kernels.vector_tile import VectorTile, vector_lanes

MAX_CONSTANT_ELEMENTS = 65536
"""Largest non-splat constant a kernel writes out (element by element)."""


REDUCE_FLAGS = arith.FastMathFlagsAttr([FastMathFlag.REASSOC, FastMathFlag.ALLOW_CONTRACT])
CONTRACT_FLAGS = arith.FastMathFlagsAttr([FastMathFlag.ALLOW_CONTRACT])


def memref_type(t: Attribute) -> MemRefType:
    assert isinstance(t, TensorType)
    return MemRefType(t.element_type, t.get_shape())


def constant_attr(value: object, t: Attribute) -> IntegerAttr | FloatAttr:
    if is_float(t):
        return FloatAttr(float(value), t)  # type: ignore[arg-type]
    if is_bool(t):
        return IntegerAttr(1 if value else 0, t)  # type: ignore[arg-type]
    return IntegerAttr(int(value), t)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# Frames: the loop tree under construction
# --------------------------------------------------------------------------------------------


@dataclass(eq=False)
class Frame:
    """A block being filled (the kernel body or a loop body). New ops go before the most
    recently opened child loop that is still open, else at the end."""

    block: Block
    depth: int
    children: list[Operation] = field(default_factory=list)
    open: bool = True

    def insert(self, op: Operation) -> None:
        if self.children:
            Rewriter.insert_op(op, InsertPoint.before(self.children[-1]))
        else:
            self.block.add_op(op)


class KernelEmitter:
    """Emits one kernel's body from its plan."""

    def __init__(
        self, plan: KernelPlan, body: Block, args: dict[SSAValue, SSAValue], out: SSAValue
    ) -> None:
        self.plan = plan
        self.g = plan.graph
        self.args = args
        self.out = out
        self.top = Frame(body, 0)
        self.base = self.top
        """Where nodes that no loop binds go: the kernel's body, or the branch of a version."""
        self.var_at: dict[Var, tuple[Frame, SSAValue]] = {}
        self.memo: dict[int, tuple[SSAValue, Frame]] = {}
        self._feeds_add: set[int] = set()
        self.packed: dict[int, SNode] = {}
        """Loads of a reduced operand redirected to its packed panel (`pack_panels`)."""

    # -- loops ----------------------------------------------------------------------------

    def open_loop(
        self,
        parent: Frame,
        v: Var | None,
        lb: int,
        ub: int,
        step: int,
        iter_args: Sequence[SSAValue],
    ) -> tuple[scf.ForOp, Frame]:
        types = [a.type for a in iter_args]
        block = Block(arg_types=[IndexType(), *types])
        loop = scf.ForOp(
            self.index(lb), self.index(ub), self.index(step), list(iter_args), Region(block)
        )
        parent.insert(loop)
        parent.children.append(loop)
        frame = Frame(block, parent.depth + 1)
        if v is not None:
            self.var_at[v] = (frame, block.args[0])
        return loop, frame

    def close_loop(self, parent: Frame, frame: Frame, yields: Sequence[SSAValue]) -> None:
        frame.block.add_op(scf.YieldOp(*yields))
        frame.open = False
        popped = parent.children.pop()
        assert popped.regions[0].block is frame.block
        for v, (f, _) in list(self.var_at.items()):
            if f is frame:
                del self.var_at[v]

    def index(self, value: int) -> SSAValue:
        return self.value(self.g.index(value))

    # -- nodes ----------------------------------------------------------------------------

    def frame_of(self, node: SNode) -> Frame:
        frame = self.base
        for v in node.fv:
            f, _ = self.var_at[v]
            if f.depth > frame.depth:
                frame = f
        return frame

    def value(self, node: SNode) -> SSAValue:
        hit = self.memo.get(node.id)
        if hit is not None and hit[1].open:
            return hit[0]
        if node.id in self.packed:
            result = self.value(self.packed[node.id])
            self.memo[node.id] = (result, self.frame_of(node))
            return result
        frame = self.frame_of(node)
        if node.kind == "var":
            result = self.var_at[node.payload][1]
        elif node.kind == "reduce":
            result = self.emit_reduce(node, frame)
        elif node.kind == "fill":
            result = self.emit_fill(node, frame)
        else:
            operands = [self.value(o) for o in node.operands]
            op = self.build(node, operands)
            frame.insert(op)
            result = op.results[0]
        self.memo[node.id] = (result, frame)
        return result

    def build(self, node: SNode, operands: list[SSAValue]) -> Operation:
        if node.kind == "const":
            return arith.ConstantOp(constant_attr(node.payload, node.type), node.type)
        if node.kind == "load":
            leaf, _ = node.payload
            return memref.LoadOp.get(self.args[leaf], operands)
        if node.kind == "sload":
            return memref.LoadOp.get(operands[0], operands[1:])
        cls, props = node.payload
        properties = dict(props)
        if cls is arith.MulfOp and node.id in self._feeds_add:
            properties["fastmath"] = CONTRACT_FLAGS
        return cls.create(operands=operands, result_types=[node.type], properties=properties)

    # -- reductions -----------------------------------------------------------------------

    def emit_reduce(self, node: SNode, frame: Frame) -> SSAValue:
        """One reduction's loop nest; it also writes the scratch rows that take its loop
        variables (`row_partners`), which then need no loop of their own (BENCH C1)."""
        fills = [f for f in self.row_partners(node) if f.kind == "fill" and not self._emitted(f)]
        (result,) = self.emit_reductions([node], frame, fills=fills)
        return result

    def row_partners(self, node: SNode) -> list[SNode]:
        """The other reduce and fill nodes over `node`'s loop variables, emitted in one loop
        with it (tensor_elements._fill_vars): only where `node` is the one reduce over them
        and the loop would stand in the same frame."""
        group = self.g.by_loop_vars.get(node.loop_vars, [])
        reduces = [n for n in group if n.kind == "reduce"]
        if len(reduces) != 1:
            return []
        frame = self.frame_of(node)
        return [n for n in group if n is not node and self.frame_of(n) is frame]

    def _emitted(self, node: SNode) -> bool:
        hit = self.memo.get(node.id)
        return hit is not None and hit[1].open

    def emit_reductions(
        self,
        nodes: list[SNode],
        frame: Frame,
        tiled: bool = False,
        fills: Sequence[SNode] = (),
    ) -> list[SSAValue]:
        """One loop nest over the shared reduced variables of `nodes`, one accumulator each.

        A plain reduction accumulates with `fastmath<reassoc, contract>` (LLVM may vectorize
        the reduction loop). A tile's float sums accumulate with `math.fma` instead: its
        accumulators are vectorized across columns (SLP), and an fma chain is no reduction
        the loop vectorizer would vectorize along the reduced axis (with gathers).
        `fills`: scratch rows over the same variables, written in the innermost loop."""
        info = nodes[0].reduce
        assert all(n.reduce.vars == info.vars for n in nodes)
        for n in nodes:
            if n.reduce.kind == ReduceKind.ADD and n.operands[0].kind == "op":
                self._feeds_add.add(n.operands[0].id)
        inits = [self.value(self.g.const(n.reduce.identity, n.type)) for n in nodes]
        loops: list[tuple[scf.ForOp, Frame, Frame]] = []
        parent, accs = frame, inits
        for v in info.vars:
            loop, inner = self.open_loop(parent, v, v.lo, v.hi + 1, 1, accs)
            loops.append((loop, parent, inner))
            parent, accs = inner, list(inner.block.args[1:])
        new_accs = [
            self.accumulate(n, acc, parent, tiled) for n, acc in zip(nodes, accs, strict=True)
        ]
        for fill in fills:
            self.memo[fill.id] = (self.write_row(fill, parent), frame)
        yields: list[SSAValue] = new_accs
        for loop, outer, inner in reversed(loops):
            self.close_loop(outer, inner, yields)
            yields = list(loop.results)
        return yields

    def accumulate(self, n: SNode, acc: SSAValue, frame: Frame, tiled: bool) -> SSAValue:
        """acc combined with the reduction's element (its identity where Invalid)."""
        element = n.operands[0]
        valid = n.operands[1] if len(n.operands) > 1 else None
        t = n.type
        if tiled and n.reduce.kind == ReduceKind.ADD and is_float(t):
            if valid is None and element.kind == "op" and element.payload[0] is arith.MulfOp:
                a, b = (self.value(o) for o in element.operands)
            else:
                a, b = self.value(element), self.value(self.g.const(1.0, t))
                if valid is not None:
                    zero = self.value(self.g.const(0.0, t))
                    sel = arith.SelectOp(self.value(valid), a, zero)
                    frame.insert(sel)
                    a = sel.result
            fma = math.FmaOp(a, b, acc)
            frame.insert(fma)
            return fma.results[0]
        x = self.value(element)
        if valid is not None:
            identity = self.value(self.g.const(n.reduce.identity, t))
            sel = arith.SelectOp(self.value(valid), x, identity)
            frame.insert(sel)
            x = sel.result
        props = {"fastmath": REDUCE_FLAGS} if is_float(t) else {}
        combine = n.reduce.combine.create(operands=[acc, x], result_types=[t], properties=props)
        frame.insert(combine)
        return combine.results[0]

    def emit_fill(self, node: SNode, frame: Frame) -> SSAValue:
        """A scratch row (allocated once, at the kernel's entry) written by a loop nest at
        `frame`, or by the loop of the reduction whose variables it takes (`row_partners`);
        its `sload`s read it back."""
        reduces = [n for n in self.row_partners(node) if n.kind == "reduce"]
        if reduces and not self._emitted(reduces[0]):
            self.value(reduces[0])  # writes this row too (emit_reduce)
            hit = self.memo.get(node.id)
            assert hit is not None and hit[1] is frame
            return hit[0]
        info = node.payload
        stack = [frame]
        for v in info.vars:
            _, inner = self.open_loop(stack[-1], v, v.lo, v.hi + 1, 1, [])
            stack.append(inner)
        scratch = self.write_row(node, stack[-1])
        while len(stack) > 1:
            inner = stack.pop()
            self.close_loop(stack[-1], inner, [])
        return scratch

    def write_row(self, node: SNode, frame: Frame) -> SSAValue:
        """The scratch buffer of fill `node`, allocated at the kernel's entry, and the store
        of its element in `frame` (a loop body that binds the fill's variables)."""
        scratch = memref.AllocaOp.get(node.type, shape=node.payload.shape)
        self.top.insert(scratch)
        x = self.value(node.operands[0])
        index = [self.value(self.g.var(v)) for v in node.payload.vars]
        frame.insert(memref.StoreOp.get(x, scratch.memref, index))
        return scratch.memref

    # -- stores ---------------------------------------------------------------------------

    def store(self, value: SNode, valid: Valid, index: Sequence[Ix]) -> None:
        t = value.type
        zero = self.g.const(zero_of(t), t)
        if valid is False:
            v = self.value(zero)
        else:
            v = self.value(value)
            if valid is not True:
                sel = arith.SelectOp(self.value(valid), v, self.value(zero))
                self.frame_of_all([valid, value]).insert(sel)
                v = sel.result
        index_nodes = [self.g.ix(x) for x in index]
        idx = [self.value(n) for n in index_nodes]
        frame = self.frame_of_all(index_nodes)
        frame.insert(memref.StoreOp.get(v, self.out, idx))

    def frame_of_all(self, nodes: Sequence[SNode]) -> Frame:
        return max((self.frame_of(n) for n in nodes), key=lambda f: f.depth, default=self.base)

    # -- plans ----------------------------------------------------------------------------

    def emit(self) -> None:
        plan = self.plan
        if plan.constant is not None:
            self.emit_constant(plan.constant)
        elif plan.tiled:
            self.emit_tiled()
        else:
            self.emit_plain()
        self.top.block.add_op(func.ReturnOp())

    def emit_plain(self) -> None:
        if not self.plan.versions:
            self.emit_nest(0, self.top, {})
            return
        plan = self.plan
        groups: list[tuple[Block, list[int]]] = []  # each distinct version's code, its devices
        unsplit: list[tuple[KernelPlan, list[int]]] = []  # versions with no loop split
        for k, version in enumerate(plan.versions):
            if not version.segments:
                twin = next((d for v, d in unsplit if _same_element(v, version)), None)
                if twin is not None:  # the same element on the same loops: the same code
                    twin.append(k)  # (BENCH W7: the two devices of 334 rows), not built again
                    continue
            block = self.emit_version(version)
            same = next((g for g in groups if g[0].is_structurally_equivalent(block)), None)
            if same is None:
                groups.append((block, [k]))
            else:  # the same code as an earlier version's: that branch takes device k too
                block.drop_all_references()
                same[1].append(k)
            if not version.segments:
                unsplit.append((version, same[1] if same is not None else groups[-1][1]))
        if len(groups) > 1:
            merged = self.merge_by_bounds(groups)
            if merged is not None:
                groups = [(merged, list(range(len(plan.versions))))]
        for block, devices in groups:
            if len(groups) == 1:  # one version for every device: no branch
                for op in list(block.ops)[:-1]:
                    op.detach()
                    self.top.block.add_op(op)
                block.drop_all_references()
                continue
            branch = scf.IfOp(self.value(self.devices_are(devices)), [], Region(block))
            self.top.block.add_op(branch)

    def merge_by_bounds(self, groups: list[tuple[Block, list[int]]]) -> Block | None:
        """One block for every version when they are the same loops but for their constant
        bounds (bounds_versions.py; BENCH W7: the devices that own 334 rows and the one that
        owns 332 and pads 2), each bound a choice on d among the versions' bounds. None when
        the versions differ otherwise (then each keeps its branch). Halves LLVM's work on
        W7's kernel."""
        shapes = [top_loops(block) for block, _ in groups]
        loops = [s for s in shapes if s is not None]
        if len(loops) != len(shapes):
            return None
        aligned = aligned_bounds(loops)
        if aligned is None:
            return None
        widest, bounds = aligned
        g = self.g

        def choice(values: list[int]) -> SSAValue:
            node = g.index(values[-1])
            for k in reversed(range(len(groups) - 1)):
                node = g.select(self.devices_are(groups[k][1]), g.index(values[k]), node)
            return self.value(node)

        choose_bounds(loops[widest], bounds, choice)
        for k, (block, _) in enumerate(groups):
            if k != widest:
                block.drop_all_references()
        return groups[widest][0]

    def emit_version(self, version: KernelPlan) -> Block:
        """Version `version`'s loops in a block of their own (the body of its branch)."""
        block = Block()
        frame = Frame(block, self.top.depth + 1)
        plan, self.plan, self.base = self.plan, version, frame
        self.emit_nest(0, frame, {})
        self.plan, self.base = plan, self.top
        block.add_op(scf.YieldOp())
        frame.open = False
        return block

    def devices_are(self, devices: list[int]) -> SNode:
        """Whether the device number d is one of `devices` (ascending): `lo <= d < hi` for
        each contiguous run, or-ed together."""
        g = self.g
        assert g.device_var is not None
        d = g.var(g.device_var)
        return device_test(
            devices,
            g.devices,
            lambda predicate, k: g.cmpi(predicate, d, g.index(k)),
            lambda a, b: g.op(arith.AndIOp, [a, b], i1),
            lambda a, b: g.op(arith.OrIOp, [a, b], i1),
        )

    def emit_nest(self, level: int, frame: Frame, mapping: dict[Var, Ix]) -> None:
        """The output loops from `level` in, one loop per range of a split loop (each range's
        element is built again, with the loop variable's narrower range)."""
        plan = self.plan
        if level == len(plan.order):
            if mapping:
                index = tuple(im.substitute(x, mapping) for x in plan.index)
                value, valid = plan.evaluator.define(plan.root, index)
                self.store(value, valid, index)
            else:
                self.store(plan.value, plan.valid, plan.index)
            return
        v = plan.order[level]
        for lo, hi in plan.segments.get(v, [(v.lo, v.hi)]):
            nv = plan.range_var(v, lo, hi)
            _, inner = self.open_loop(frame, nv, lo, hi + 1, 1, [])
            if nv is not v:
                mapping[v] = im.var(nv)
            self.emit_nest(level + 1, inner, mapping)
            mapping.pop(v, None)
            self.close_loop(frame, inner, [])

    def _close_all(self, stack: list[Frame]) -> None:
        while len(stack) > 1:
            frame = stack.pop()
            self.close_loop(stack[-1], frame, [])

    def emit_constant(self, op: arith.ConstantOp) -> None:
        t = op.result.type
        assert isinstance(t, TensorType)
        shape = t.get_shape()
        if prod(shape) > MAX_CONSTANT_ELEMENTS:
            raise PassFailedException(
                f"form-kernels: a non-splat constant of {prod(shape)} elements is too large "
                f"(at most {MAX_CONSTANT_ELEMENTS}: each element is one store)"
            )
        values = list(op.value.iter_values())  # type: ignore[union-attr]
        et = t.element_type
        for flat, x in enumerate(values):
            idx = []
            for s in im.strides(shape):
                idx.append(flat // s)
                flat %= s
            v = self.value(self.g.const(x, et))
            ix = [self.index(k) for k in idx]
            self.top.insert(memref.StoreOp.get(v, self.out, ix))

    def emit_tiled(self) -> None:
        plan = self.plan
        rows = plan.tile_rows
        j = plan.order[-1]
        i = plan.order[-2] if rows > 1 else None
        outer = plan.order[: -2 if i is not None else -1]
        stack = [self.top]
        for v in outer:
            _, frame = self.open_loop(stack[-1], v, v.lo, v.hi + 1, 1, [])
            stack.append(frame)
        shared = {}
        for origin in plan.tiled:
            src = origin.operands[0].type
            assert isinstance(src, TensorType)
            for a in origin.axes_list:  # type: ignore[attr-defined]
                n = src.get_shape()[a]
                if n > 1:
                    shared[(origin, a)] = self.g.new_var(0, n - 1, "r")
        row_segments = _segments(i, rows) if i is not None else [(None, 1)]
        for cj, tc in _segments(j, plan.tile_cols):
            for ri, tr in row_segments:
                self.emit_tile(stack[-1], i, ri, tr, j, cj, tc, shared)
        self._close_all(stack)

    def emit_tile(
        self,
        parent: Frame,
        i: Var | None,
        i_range: tuple[int, int] | None,
        rows: int,
        j: Var,
        j_range: tuple[int, int] | None,
        cols: int,
        shared: dict,
    ) -> None:
        """Loops over tiles of rows x cols elements with the given ranges of tile origins."""
        plan, g = self.plan, self.g
        frames = [parent]
        ti = tj = None
        # Columns outside rows: one tile column of the reduced operand (a K x cols panel of a
        # matmul's B) stays in cache while every row tile uses it.
        assert j_range is not None
        tj = g.new_var(j_range[0], j_range[1], "t")
        _, f = self.open_loop(frames[-1], tj, j_range[0], j_range[1] + cols, cols, [])
        frames.append(f)
        if i is not None and i_range is not None:
            ti = g.new_var(i_range[0], i_range[1], "t")
            _, f = self.open_loop(frames[-1], ti, i_range[0], i_range[1] + rows, rows, [])
            frames.append(f)
        tile_frame = frames[-1]
        tiled_ops = set(plan.tiled)
        lanes = vector_lanes(plan.value.type, cols)
        if lanes:
            lane = g.new_var(0, lanes - 1, "l")
            tile = VectorTile(self, lane, lanes, plan.value.type)
            elements = self._tile_elements(i, ti, rows, j, tj, cols // lanes, lanes, lane, shared)
            if not tile.supports(elements, tiled_ops, {ti, tj, lane, *plan.order}):
                lanes = 0
        if not lanes:
            lane, tile = None, None
            elements = self._tile_elements(i, ti, rows, j, tj, cols, 1, None, shared)
        # Reductions over the shared variables: one loop nest per reduction op, in dependence
        # order, all tile elements' accumulators together.
        allowed = {ti, tj, lane} | set(plan.order)
        groups: dict[int, list[SNode]] = {}
        order: list[int] = []
        roots: list[SNode] = []
        for _, value, valid in elements:
            roots.append(value)
            if isinstance(valid, SNode):
                roots.append(valid)
        for n in walk(roots):
            if n.kind == "reduce" and n.reduce.origin in tiled_ops and n.fv <= allowed:
                key = id(n.reduce.origin)
                if key not in groups:
                    groups[key] = []
                    order.append(key)
                groups[key].append(n)
        pack = ti is not None and rows > 1 and i_range is not None and i_range[1] > i_range[0]
        if tile is not None and lane is not None:
            self.var_at[lane] = (self.base, self.index(0))  # no loop: lanes are a vector
            if pack and ti is not None:
                tiled = {n.id for nodes in groups.values() for n in nodes}
                width = _byte_width(plan.value.type)
                row0 = elements[: cols // lanes]
                tile.pack_panels(row0, tiled, tj, ti, frames[-2], plan.pack_bytes, width)
            for key in order:
                tile.reductions(groups[key], tile_frame)
            for index, value, valid in elements:
                tile.store(value, valid, index)
            del self.var_at[lane]
            self._close_all(frames)
            return
        if pack and ti is not None:
            self.pack_panels(elements[:cols], groups, tj, ti, frames[-2])
        for key in order:
            nodes = groups[key]
            results = self.emit_reductions(nodes, tile_frame, tiled=True)
            for n, res in zip(nodes, results, strict=True):
                self.memo[n.id] = (res, tile_frame)
        for index, value, valid in elements:
            self.store(value, valid, index)
        self._close_all(frames)

    def _tile_elements(
        self,
        i: Var | None,
        ti: Var | None,
        rows: int,
        j: Var,
        tj: Var,
        count: int,
        lanes: int,
        lane: Var | None,
        shared: dict,
    ) -> list[tuple[tuple[Ix, ...], SNode, Valid]]:
        """The tile's elements, row by row: `count` per row, each a column (`lane` None) or a
        vector of `lanes` columns `tj + lanes * v + lane`."""
        plan = self.plan
        ev = plan.evaluator
        saved = dict(ev.shared_vars)
        ev.shared_vars.update(shared)
        ev.scratch = False  # tile elements differ in rows and columns, not along one row
        mapping: dict[Var, Ix] = {}
        elements: list[tuple[tuple[Ix, ...], SNode, Valid]] = []
        for r in range(rows if ti is not None else 1):
            for c in range(count):
                if ti is not None and i is not None:
                    mapping[i] = im.add_const(im.var(ti), r)
                column = im.add_const(im.var(tj), c * lanes)
                mapping[j] = column if lane is None else im.add(column, im.var(lane))
                index = tuple(im.substitute(x, mapping) for x in plan.index)
                value, valid = ev.define(plan.root, index)
                elements.append((index, value, valid))
        ev.shared_vars = saved
        ev.scratch = True
        return elements

    def pack_panels(
        self,
        row0: list[tuple[tuple[Ix, ...], SNode, Valid]],
        groups: dict[int, list[SNode]],
        tj: Var,
        ti: Var,
        column_frame: Frame,
    ) -> None:
        """BLAS packing: a matmul's B is read along k with its row stride (4 KiB apart for
        1024 columns of f32), so the K x cols panel a tile column walks maps to a few cache
        sets and is evicted between row tiles. Each such panel is copied once per tile
        column, before the loop over row tiles, into a contiguous scratch buffer
        (`memref.alloca` of K x cols, a `fill` node), and the tiles load it from there.

        Packed: the loads of a tiled reduction over one variable k that depend on k and the
        tile column but not on the tile row, with unit stride along the columns and a stride
        other than 0 or 1 along k, while the panels fit `plan.pack_bytes` together. `row0`
        are the first row's tile elements, one per column c; a load of column c is the
        column-0 load with tj shifted by c (nodes are interned), so each becomes a load of
        the panel at [k, c]."""
        g = self.g
        cols = len(row0)
        tiled = {n.id for nodes in groups.values() for n in nodes}
        budget = self.plan.pack_bytes
        columns, ks = panel_candidates(
            row0,
            tiled,
            lambda n, k: packable(n, k, tj, ti, None, column_frame, self.var_at),
        )
        for base in columns[0].values():
            k = ks[base.id]
            size = k.extent * cols * _byte_width(base.type)
            if size > budget:
                continue
            loads = shifted_loads(g, base, tj, 1, columns)
            if loads is not None:
                leaf, index = base.payload
                budget -= size
                kp, cp = g.new_var(k.lo, k.hi, "pk"), g.new_var(0, cols - 1, "pc")
                generic = tuple(
                    im.substitute(x, {tj: im.add(im.var(tj), im.var(cp)), k: im.var(kp)})
                    for x in index
                )
                shape = (k.extent, cols)
                fill = g.fill(FillInfo(leaf, generic, (), (kp, cp), shape), g.load(leaf, generic))
                row = im.add_const(im.var(k), -k.lo)
                for c, load in enumerate(loads):
                    self.packed[load.id] = g.sload(fill, (row, im.const(c)))


def _byte_width(t: Attribute) -> int:
    return max(1, bit_width(t) // 8)


def _segments(v: Var, tile: int) -> list[tuple[tuple[int, int] | None, int]]:
    """Ranges of tile origins: full tiles, then single rows/columns for the rest."""
    n = v.extent
    full = (n // tile) * tile
    out: list[tuple[tuple[int, int] | None, int]] = []
    if full:
        out.append(((v.lo, v.lo + full - tile), tile))
    if full < n:
        out.append(((v.lo + full, v.hi), 1))
    return out


# --------------------------------------------------------------------------------------------
# Kernel functions
# --------------------------------------------------------------------------------------------


def _same_element(a: KernelPlan, b: KernelPlan) -> bool:
    """Whether two device versions of a kernel with no loop split build the same code: the
    same output loops and index, and the same element and validity but for the variables
    their reductions bind (scalar_graph.alpha_equal); emit_nest then stores the one element
    on the same loops."""
    return (
        a.order == b.order
        and a.index == b.index
        and alpha_equal(a.value, b.value)
        and alpha_equal(a.valid, b.valid)
    )


def build_kernel(plan: KernelPlan, name: str) -> func.FuncOp:
    """`func.func @name(inputs..., output)` with unit attribute `multi.kernel` and
    `multi.writes` naming the output (the one argument it writes: the runtime's hand-over
    sends rely on it); in SPMD mode a kernel whose element depends on the device number takes
    it last (`%d: index`)."""
    inputs = [memref_type(v.type) for v in plan.leaves]
    out_t = memref_type(plan.root.type)
    takes_device = plan.graph.device_var is not None
    arg_types: list[Attribute] = [*inputs, out_t, *([IndexType()] if takes_device else [])]
    body = Block(arg_types=arg_types)
    for k, (leaf, arg) in enumerate(zip(plan.leaves, body.args, strict=False)):
        arg.name_hint = leaf.name_hint or f"in{k}"
    out = body.args[len(inputs)]
    out.name_hint = "out"
    args: dict[SSAValue, SSAValue] = dict(zip(plan.leaves, body.args[: len(inputs)], strict=True))
    emitter = KernelEmitter(plan, body, args, out)
    if takes_device:
        assert plan.graph.device_var is not None
        body.args[-1].name_hint = "d"
        emitter.var_at[plan.graph.device_var] = (emitter.top, body.args[-1])
    emitter.emit()
    share_scratch_rows(body)
    roll_repeated_loops(body)
    if takes_device and not body.args[-1].uses:  # d cancelled out (the common case)
        body.erase_arg(body.args[-1])
        arg_types.pop()
    kernel = func.FuncOp(name, (arg_types, []), Region(body))
    kernel.attributes[KERNEL_ATTR] = UnitAttr()
    kernel.attributes[WRITES_ATTR] = DenseArrayBase.from_list(i64, [len(inputs)])
    return kernel


def share_scratch_rows(body: Block) -> None:
    """Scratch rows whose uses do not overlap share one `memref.alloca`: BENCH C1's chain of
    50 row reductions needs two rows at a time, not 48 (a smaller stack, rows that stay in L1,
    and less for LLVM to analyse). A row's live range is the span of ops, in the innermost
    block holding all its uses, from its first use (the loop that fills it) to its last."""
    free: list[tuple[int, Block, Attribute, SSAValue]] = []  # (end, block, type, row)
    ranges = []
    for op in list(body.ops):
        if isinstance(op, memref.AllocaOp):
            span = _live_span(op.memref)
            if span is not None:
                ranges.append((span, op))
    ranges.sort(key=lambda r: (id(r[0][0]), r[0][1]))
    for (block, start, end), op in ranges:
        t = op.memref.type
        for k, (f_end, f_block, f_type, row) in enumerate(free):
            if f_block is block and f_type == t and f_end < start:
                op.memref.replace_all_uses_with(row)
                op.detach()
                op.erase()
                free[k] = (end, block, t, row)
                break
        else:
            free.append((end, block, t, op.memref))


def _live_span(value: SSAValue) -> tuple[Block, int, int] | None:
    """(block, first, last): the positions in the innermost block holding every use of
    `value` of the ops that contain those uses."""
    chains = []
    for use in value.uses:
        chain: list[tuple[Block, Operation]] = []
        op: Operation | None = use.operation
        while op is not None and op.parent_block() is not None:
            chain.append((op.parent_block(), op))  # type: ignore[arg-type]
            op = op.parent_op()
        chains.append(chain[::-1])
    if not chains:
        return None
    depth = 0
    while all(len(c) > depth for c in chains) and len({id(c[depth][0]) for c in chains}) == 1:
        depth += 1
    if depth == 0:
        return None
    block = chains[0][depth - 1][0]
    positions = {id(o): k for k, o in enumerate(block.ops)}
    indices = [positions[id(c[depth - 1][1])] for c in chains]
    return block, min(indices), max(indices)

"""Which values of a device's @main are materialized, and how each kernel loops (`form-kernels`).

Materialized (each has a buffer):
- function arguments and `devidx.recv` results (they arrive as buffers);
- `devidx.send` operands, `func.return` operands, `tg.contiguous` results and non-splat
  constants (each computed by its own kernel), except a `tg.contiguous` that would only
  repeat what it reads (a broadcast: writing it out costs more than reading its operands again);
- reductions that cannot be fused where they are used (below).

Everything else is fused: a kernel computes its materialized value element by element from the
buffers it reads (scalar_graph.py). A `tg.reduce` inside a kernel becomes a loop placed where the
kernel's loops have bound every output variable it depends on, so it runs once per element of its
own result: layernorm's two reductions sit in the row loop before the loop over the row.

Loop order: output axes a reduction depends on go outermost (reductions with fewer such axes
first). A reduction is materialized instead of fused when
- it would run more often than it has elements (its element depends on an output loop outside
  the ones it needs, or on the loop of an enclosing reduction: a matmul feeding another matmul),
- or several kernels would each compute it (unless it reduces at most `RECOMPUTE_LIMIT`
  elements per result).
Materializing one reduction changes what the others see, so the analysis repeats until nothing
changes.

A reduction placed in the innermost output loop whose loads run with unit stride (or not at all)
along that loop, but not along its own innermost reduced axis (a matmul: `A[i, k] * B[k, j]`),
is accumulated "reduction outside": the kernel loops i, k, j over register tiles of
`tile_rows x tile_cols` accumulators (kernel_codegen.py), so the loads of B are contiguous.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import pairwise, product
from math import prod

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, SSAValue

from xdsl_multi.dialects import devidx, tg
from xdsl_multi.transforms.form_kernels import index_maps as im
from xdsl_multi.transforms.form_kernels.index_maps import InBounds, Index, Ix, Var
from xdsl_multi.transforms.form_kernels.scalar_graph import Graph, SNode, Valid, walk
from xdsl_multi.transforms.form_kernels.tensor_elements import Splats, TensorEvaluator, shape_of

RECOMPUTE_LIMIT = 4
"""A reduction of at most this many elements per result may be recomputed by several kernels."""


@dataclass(frozen=True)
class TilePolicy:
    """Register tile of reductions accumulated outside the innermost output loop."""

    rows: int = 8
    cols: int = 32
    pack_bytes: int = 512 * 1024
    """Largest panel of a reduced operand a tiled kernel packs (kernel_codegen.py): the K x
    cols block of a matmul's B, copied once per tile column into a stack scratch buffer."""


@dataclass
class KernelPlan:
    """How one materialized value is computed.

    `index` is the element index in terms of the output loop variables (constant 0 on unit
    axes), `order` the output loops from outermost, `value`/`valid` the element. `tiled` lists
    the reductions accumulated in register tiles (empty: every loop nest is plain). `alias`
    is set when the value is exactly another buffer (no kernel).
    """

    root: SSAValue
    graph: Graph
    evaluator: TensorEvaluator
    index: Index
    order: list[Var]
    value: SNode
    valid: Valid
    leaves: list[SSAValue]
    tiled: list[tg.ReduceOp] = field(default_factory=list)
    tile_rows: int = 1
    tile_cols: int = 1
    pack_bytes: int = 0
    """Largest K x cols panel of a strided reduced operand the tiles pack (0: none)."""
    alias: SSAValue | None = None
    constant: arith.ConstantOp | None = None
    segments: dict[Var, list[tuple[int, int]]] = field(default_factory=dict)
    """Output loops split where a pad's bounds check changes (the ranges, inclusive)."""
    versions: list[KernelPlan] = field(default_factory=list)
    """SPMD mode: one plan per device number k (the kernel branches on d), when the output
    loops would split where pads start at positions that depend on d."""
    _range_vars: dict[tuple[Var, int, int], Var] = field(default_factory=dict)

    def range_var(self, v: Var, lo: int, hi: int) -> Var:
        """The variable of output loop `v` over the range [lo, hi] of a split (the same one
        for the analysis and the code, so their elements are the same nodes)."""
        if (lo, hi) == (v.lo, v.hi):
            return v
        key = (v, lo, hi)
        if key not in self._range_vars:
            self._range_vars[key] = self.graph.new_var(lo, hi, v.name)
        return self._range_vars[key]


@dataclass
class Fusion:
    """The analysis of one @main: its materialized values and one plan per computed one, in
    program order."""

    materialized: set[SSAValue]
    plans: list[KernelPlan]
    rounds: int = 1
    """How many times `analyze` planned every kernel before nothing changed."""

    def plan_of(self, value: SSAValue) -> KernelPlan | None:
        for p in self.plans:
            if p.root is value:
                return p
        return None


# --------------------------------------------------------------------------------------------
# Materialization points
# --------------------------------------------------------------------------------------------


def initial_points(body: Block, splats: Splats) -> set[SSAValue]:
    points: set[SSAValue] = set(body.args)
    for op in body.ops:
        if isinstance(op, devidx.RecvOp | tg.ContiguousOp):
            points.add(op.results[0])
        elif isinstance(op, devidx.SendOp | func.ReturnOp):
            points.update(op.operands)
        elif isinstance(op, (devidx.FetchOp, *devidx.COLLECTIVES)):  # SPMD mode: both ways
            points.update((op.value, op.result))
        elif (
            isinstance(op, arith.ConstantOp)
            and isinstance(op.result.type, TensorType)
            and not splats.is_splat_constant(op)
        ):
            points.add(op.result)
    return points


def computed_roots(body: Block, materialized: set[SSAValue]) -> list[SSAValue]:
    """The materialized values a kernel computes, in program order (used ones only)."""
    roots = []
    for op in body.ops:
        if isinstance(op, (devidx.RecvOp, devidx.FetchOp, *devidx.COLLECTIVES)):
            continue
        for r in op.results:
            if r in materialized and r.uses:
                roots.append(r)
    return roots


def analyze(
    body: Block, policy: TilePolicy, splats: Splats | None = None, devices: int | None = None
) -> Fusion:
    """`devices`: SPMD mode, the kernels are built once for that many devices (d symbolic)."""
    splats = splats or Splats()
    materialized = initial_points(body, splats)
    required = _required_points(body)
    rounds = 0
    while True:
        rounds += 1
        plans = [
            plan_kernel(r, materialized, policy, splats, devices)
            for r in computed_roots(body, materialized)
        ]
        broadcasts = {p.root for p in plans if p.root not in required and is_broadcast(p)}
        if broadcasts:
            materialized -= broadcasts
            continue
        extra: set[SSAValue] = set()
        for p in plans:
            for r in overcomputed_reductions(p):
                point = materialization_point(r, materialized, splats, devices)
                extra.add(r if point in materialized else point)
        if not extra:
            extra = shared_reductions(plans)
        if not extra:
            return Fusion(materialized, plans, rounds)
        materialized |= extra


def materialization_point(
    r: SSAValue, materialized: set[SSAValue], splats: Splats, devices: int | None = None
) -> SSAValue:
    """Where to store a reduction that cannot be fused: after the elementwise and movement
    ops that only it feeds (a matmul's relu, the reshapes before the next matmul's expand),
    as long as that is no bigger and has no Invalid lane, so its users do not recompute them."""
    size = prod(shape_of(r))
    best = v = r
    while len(uses := list(v.uses)) == 1:
        op = uses[0].operation
        if not _fusable_step(op, v, splats) or op.results[0] in materialized:
            break
        v = op.results[0]
        if prod(shape_of(v)) <= size and _valid_everywhere(v, materialized, splats, devices):
            best = v
    return best


_MOVEMENT = (tg.ReshapeOp, tg.PermuteOp, tg.PadOp, tg.ShrinkOp, tg.FlipOp)


def _fusable_step(op: Operation, v: SSAValue, splats: Splats) -> bool:
    """A movement op that does not broadcast, or an elementwise op whose other tensor operands
    are splat constants."""
    if isinstance(op, _MOVEMENT):
        return len(op.results) == 1
    if not (
        op.dialect_name() in ("arith", "math")
        or isinstance(op, tg.CmpOp | tg.CastOp | tg.ThreefryOp)
    ):
        return False
    if len(op.results) != 1 or not isinstance(op.results[0].type, TensorType):
        return False
    return all(
        o is v or splats.is_splat_constant(o.owner)  # type: ignore[arg-type]
        for o in op.operands
        if isinstance(o.type, TensorType)
    )


def _valid_everywhere(
    v: SSAValue, materialized: set[SSAValue], splats: Splats, devices: int | None
) -> bool:
    graph = Graph(devices)
    ev = TensorEvaluator(graph, lambda x: x in materialized, splats)
    index = tuple(
        im.var(graph.new_var(0, n - 1, "i")) if n != 1 else im.const(0) for n in shape_of(v)
    )
    return ev.define(v, index)[1] is True


def _required_points(body: Block) -> set[SSAValue]:
    """Values that must have a buffer: arguments, messages, results."""
    out: set[SSAValue] = set(body.args)
    for op in body.ops:
        if isinstance(op, devidx.SendOp | func.ReturnOp):
            out.update(op.operands)
        elif isinstance(op, devidx.RecvOp):
            out.add(op.result)
        elif isinstance(op, (devidx.FetchOp, *devidx.COLLECTIVES)):
            out.update((op.value, op.result))
    return out


def is_broadcast(plan: KernelPlan) -> bool:
    """A `tg.contiguous` whose buffer would only repeat what it reads (an expanded operand,
    no reduction): fused into its users instead, with a store's semantics (Invalid reads as
    0), so that a matmul's expanded operand is never written out."""
    if not isinstance(plan.root.owner, tg.ContiguousOp) or plan.alias is not None:
        return False
    if reductions(plan):
        return False
    return prod(shape_of(plan.root)) > sum(prod(shape_of(v)) for v in plan.leaves)


# --------------------------------------------------------------------------------------------
# One kernel
# --------------------------------------------------------------------------------------------


def plan_kernel(
    root: SSAValue,
    materialized: set[SSAValue],
    policy: TilePolicy,
    splats: Splats,
    devices: int | None = None,
) -> KernelPlan:
    graph = Graph(devices)
    ev = TensorEvaluator(graph, lambda v: v in materialized, splats)
    shape = shape_of(root)
    out_vars = [graph.new_var(0, n - 1, "i") if n != 1 else None for n in shape]
    index = tuple(im.var(v) if v is not None else im.const(0) for v in out_vars)
    op = root.owner
    if isinstance(op, arith.ConstantOp) and not splats.is_splat_constant(op):
        return KernelPlan(
            root,
            graph,
            ev,
            index,
            [v for v in out_vars if v],
            graph.index(0),
            True,
            [],
            constant=op,
        )
    value, valid = ev.define(root, index)
    reread = ev.reread_from_scratch(root, index)
    if reread is not None:
        value, valid = reread
    plan = KernelPlan(root, graph, ev, index, [], value, valid, list(ev.leaves))
    if valid is True and value.kind == "load":
        leaf, leaf_index = value.payload
        if leaf.type == root.type and [x.key for x in leaf_index] == [x.key for x in index]:
            plan.alias = leaf
            return plan
    plan.order = loop_order([v for v in out_vars if v is not None], reductions(plan))
    choose_tiling(plan, policy)
    if not plan.tiled:
        plan.segments = loop_segments(plan.order, ev.checks)
    if plan.segments:  # the split loops' elements are built afresh: the unsplit element's
        # positions must not count towards scratch rows (tensor_elements._from_scratch)
        plan.evaluator = TensorEvaluator(graph, ev.is_leaf, splats)
    elif (
        not plan.tiled
        and device_splits(plan.order, ev.checks, graph)
        and not checks_per_reduction(plan, ev.checks)
    ):
        plan.versions = device_versions(plan, splats)
    return plan


MAX_VERSIONS = 8
"""SPMD mode: a kernel branches on the device number into at most this many versions."""


def device_splits(order: list[Var], checks: list[InBounds], graph: Graph) -> bool:
    """Whether a pad's check on the output loops (`lo <= f(i, j) + e(d) < hi`) moves with
    the device number d: with d known, the loops would split where the check changes, or the
    check would at least compare with constants."""
    d = graph.device_var
    if d is None or graph.devices is None or graph.devices > MAX_VERSIONS:
        return False
    loops = set(order)
    return any(d in c.x.vars and c.x.vars - {d} <= loops for c in checks)


def device_versions(plan: KernelPlan, splats: Splats) -> list[KernelPlan]:
    """SPMD mode: the plan's element built for each device number, with its own loop splits
    (what specialize-devices would give, inside one kernel that branches on d). None when a
    version would read a buffer the kernel does not take."""
    graph = plan.graph
    assert graph.devices is not None
    versions: list[KernelPlan] = []
    for k in range(graph.devices):
        ev = TensorEvaluator(graph, plan.evaluator.is_leaf, splats)
        ev.device_value = k
        value, valid = ev.define(plan.root, plan.index)
        if not set(ev.leaves) <= set(plan.leaves):
            return []
        version = KernelPlan(
            plan.root, graph, ev, plan.index, plan.order, value, valid, plan.leaves
        )
        version.segments = loop_segments(plan.order, ev.checks)
        if version.segments:
            version.evaluator = TensorEvaluator(graph, ev.is_leaf, splats)
            version.evaluator.device_value = k
        versions.append(version)
    return versions


TRAPPING_OPS = (
    arith.DivSIOp,
    arith.DivUIOp,
    arith.RemSIOp,
    arith.RemUIOp,
    arith.FloorDivSIOp,
    arith.CeilDivSIOp,
    arith.CeilDivUIOp,
)
"""Integer ops whose operands on padding lanes (zeros) would trap."""


def checks_per_reduction(plan: KernelPlan, checks: list[InBounds]) -> bool:
    """SPMD mode: whether the pad checks that move with d may stay in the kernel instead of a
    version per device (`device_versions`): every output loop encloses a reduction of the
    element, so each innermost output iteration runs a whole reduction and a moving check is
    one select per reduction result (BENCH W7's row sums: one select per row of 999 columns),
    each such check is affine in d (a bound that only a table gives, a mesh's, would need a
    `devidx.lookup` in the kernel), and nothing in the element traps when it is computed on
    padding rows (an integer division by their zeros). The kernel is then one loop nest for every device, the
    padding rows' sums computed and dropped (2 of 334 rows on W7's last device): the same
    steady state as the versions' split loops, and a third less to build and compile
    (docs/decisions.md "Row reductions keep their moving check")."""
    reduces = reductions(plan)
    if not reduces:
        return False
    enclosing = frozenset().union(*(r.fv for r in reduces))
    if not set(plan.order) <= enclosing:
        return False
    d = plan.graph.device_var
    if any(not isinstance(atom, Var) for c in checks if d in c.x.vars for atom, _ in c.x.terms):
        return False
    return not any(
        n.kind == "op" and issubclass(n.payload[0], TRAPPING_OPS) for n in walk(_roots(plan))
    )


MAX_SEGMENTS = 8
"""A loop is split at most into this many ranges."""


def loop_segments(order: list[Var], checks: list[InBounds]) -> dict[Var, list[tuple[int, int]]]:
    """For each output loop whose variable a pad checks (`lo <= v + c < hi`), the ranges
    between the checks' edges: inside each, every such check is decided, so its clamp and its
    select disappear and a range that is all padding computes nothing (W6's gather of
    zero-padded chunks becomes one plain copy loop per chunk)."""
    out: dict[Var, list[tuple[int, int]]] = {}
    for v in order:
        cuts: set[int] = set()
        for c in checks:
            if c.x.terms == ((v, 1),):
                cuts.update(b for b in (c.lo - c.x.const, c.hi - c.x.const) if v.lo < b <= v.hi)
        if cuts and len(cuts) < MAX_SEGMENTS:
            edges = [v.lo, *sorted(cuts), v.hi + 1]
            out[v] = [(a, b - 1) for a, b in pairwise(edges)]
    return out


def reductions(plan: KernelPlan) -> list[SNode]:
    return [n for n in walk(_roots(plan)) if n.kind == "reduce"]


def _roots(plan: KernelPlan) -> list[SNode]:
    return [plan.value] + ([plan.valid] if isinstance(plan.valid, SNode) else [])


def loop_order(out_vars: list[Var], reduces: list[SNode]) -> list[Var]:
    """Output variables that reductions depend on first (fewest first), then the others; each
    group in the tensor's axis order."""
    order: list[Var] = []
    deps = sorted(({v for v in r.fv if v in out_vars} for r in reduces), key=lambda d: len(d))
    for d in deps:
        order.extend(v for v in out_vars if v in d and v not in order)
    order.extend(v for v in out_vars if v not in order)
    return order


def enclosing_loops(order: list[Var], node: SNode, owners: dict[Var, SNode]) -> list[Var]:
    """The loops around the point where `node` is computed, outermost first, given the output
    loops `order`."""
    pos = {v: k for k, v in enumerate(order)}
    level = max((pos[v] for v in node.fv if v in pos), default=-1)
    best = order[: level + 1]
    for v in node.fv:
        owner = owners.get(v)
        if owner is None:
            continue
        rvars = owner.loop_vars
        chain = enclosing_loops(order, owner, owners) + list(rvars[: rvars.index(v) + 1])
        if len(chain) > len(best):
            best = chain
    return best


MAX_PIECES = 64
"""Range combinations of split loops checked one by one (more: the unsplit loops are)."""


def pieces(plan: KernelPlan) -> Iterator[tuple[list[Var], list[SNode]]]:
    """The output loops and element nodes of each range combination of the split loops (what
    kernel_codegen.emit_nest emits), or of the unsplit loops."""
    ranges = [plan.segments.get(v, [(v.lo, v.hi)]) for v in plan.order]
    if not plan.segments or prod(len(r) for r in ranges) > MAX_PIECES:
        yield plan.order, _roots(plan)
        return
    for choice in product(*ranges):
        order: list[Var] = []
        mapping: dict[Var, Ix] = {}
        for v, (lo, hi) in zip(plan.order, choice, strict=True):
            nv = plan.range_var(v, lo, hi)
            order.append(nv)
            if nv is not v:
                mapping[v] = im.var(nv)
        index = tuple(im.substitute(x, mapping) for x in plan.index)
        value, valid = plan.evaluator.define(plan.root, index)
        yield order, [value] + ([valid] if isinstance(valid, SNode) else [])


def overcomputed_reductions(plan: KernelPlan) -> set[SSAValue]:
    """Reductions that this kernel would compute more often than they have elements (a
    reduction shared by several ranges of a split loop counts once)."""
    runs: dict[int, int] = {}
    origins: dict[int, SSAValue] = {}
    for order, roots in pieces(plan):
        nodes = walk(roots)
        owners = {v: n for n in nodes for v in n.loop_vars}
        for r in nodes:
            if r.kind == "reduce" and r.id not in runs:
                runs[r.id] = prod(v.extent for v in enclosing_loops(order, r, owners))
                origins[r.id] = r.reduce.origin.results[0]
    total: dict[SSAValue, int] = {}
    for rid, n in runs.items():
        total[origins[rid]] = total.get(origins[rid], 0) + n
    return {v for v, n in total.items() if n > prod(shape_of(v))}


def shared_reductions(plans: list[KernelPlan]) -> set[SSAValue]:
    """Reductions that more than one kernel would compute."""
    users: dict[SSAValue, set[int]] = {}
    for k, p in enumerate(plans):
        for r in reductions(p):
            origin = r.reduce.origin
            if prod(v.extent for v in r.reduce.vars) > RECOMPUTE_LIMIT:
                users.setdefault(origin.results[0], set()).add(k)
    return {v for v, ks in users.items() if len(ks) > 1}


# --------------------------------------------------------------------------------------------
# Reduction outside the innermost loop (matmul-shaped reductions)
# --------------------------------------------------------------------------------------------


def linear_coefficient(load: SNode, v: Var) -> int | None:
    """d offset / d v of a load's flat offset into its buffer (None: not affine in v)."""
    leaf, index = load.payload
    shape = shape_of(leaf)
    total = 0
    for x, s in zip(index, im.strides(shape), strict=True):
        c = im.coefficient(x, v)
        if c is None:
            return None
        total += c * s
    return total


def choose_tiling(plan: KernelPlan, policy: TilePolicy) -> None:
    """Accumulate the innermost-level reductions in register tiles when their loads are
    contiguous along the innermost output loop rather than along the reduced axis."""
    if not plan.order:
        return
    j = plan.order[-1]
    candidates = [r for r in reductions(plan) if j in r.fv and r.fv <= set(plan.order)]
    if not candidates:
        return
    score_inner = score_outer = 0
    for r in candidates:
        k = r.reduce.vars[-1]
        rvars = set(r.reduce.vars)
        for n in walk(r.operands):
            if n.kind != "load" or not (n.fv & rvars):
                continue
            ck, cj = linear_coefficient(n, k), linear_coefficient(n, j)
            score_inner += ck in (0, 1)
            score_outer += cj in (0, 1)
    if score_outer <= score_inner:
        return
    plan.tiled = [r.reduce.origin for r in candidates]
    plan.tile_cols = policy.cols
    plan.pack_bytes = policy.pack_bytes
    if len(plan.order) >= 2 and all(plan.order[-2] in r.fv for r in candidates):
        plan.tile_rows = policy.rows

"""Repeated loops rolled back into a loop: the last step of `form-kernels` on each kernel.

A program that repeats the same steps (BENCH C1: 50 times `x = relu(x*1.01+0.5); x = x -
x.mean(axis=1)`, as a tracer such as tinygrad's writes a Python loop: unrolled) fuses into a
kernel whose row loop holds the same loops over and over, each reading what the one before it
computed (C1: 47 loops over the row that differ only in which scratch row they read and write,
and in the mean they subtract). LLVM then optimizes and compiles every copy (C1: ~250 ms of
its ~270); rolled back into one `scf.for` over the repetitions, it compiles two.

A *run* in a block is K consecutive groups (units) of P ops such that every unit is the first
with its outside values substituted: each operand a unit takes from outside itself is, in
every unit, either the same value (invariant) or, in unit r >= 1, the result at one fixed
position of unit r - 1 (carried; in unit 0 the value it starts from). The run becomes

```mlir
%c = scf.for %k = 0 to K step 1 iter_args(%a = <unit 0's outside value>) -> (...) {
  <unit 0, its carried operands replaced by %a>
  scf.yield <its results at the carried positions>
}
```

and what used unit K-1's carried results uses the loop's. The repetitions run in the same
order on the same values, so the result is the same to the bit. Rolled only: runs of at least
MIN_REPEATS units with a loop in them (straight-line code, a register tile's unrolled
elements, stays as form-kernels wrote it: LLVM schedules it), no `memref.alloca` in them, and
no result of one unit used past the next but through the carried positions. A unit K-1 whose
other results are used after the run stays after the loop (peeled).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator

MIN_REPEATS = 3
"""The fewest units a run is rolled from."""

MAX_PERIOD = 32
"""The most top-level ops one unit holds."""

_Site = tuple[int, int, SSAValue, int | None]
"""An operand unit 0 takes from outside itself (`_outside_operands`)."""


@dataclass(frozen=True)
class _Run:
    start: int
    """Index of unit 0's first op in the block."""
    period: int
    count: int
    carried: tuple[tuple[int, int, int], ...]
    """Unit 0's carried operands: (op in the unit's walk, operand, position of the result of
    the unit before that feeds it: op index in the unit * 2**16 + result index)."""
    slots: tuple[int, ...]
    """The carried positions, in the order of the loop's iter_args."""
    inits: tuple[SSAValue, ...]
    """The value each slot starts from (unit 0's outside operand)."""


def roll_repeated_loops(body: Block) -> int:
    """Roll every run (module docstring) in `body` and the blocks nested in it, innermost
    blocks first; returns how many were rolled."""
    blocks = [body, *(b for op in body.walk() for r in op.regions for b in r.blocks)]
    rolled = 0
    for block in reversed(blocks):  # (a pre-order walk reversed: nested blocks first)
        if sum(1 for op in block.ops if op.regions) < MIN_REPEATS:
            continue  # (every unit holds a loop)
        start = 0
        while True:
            ops = list(block.ops)
            run = _first_run(ops, start)
            if run is None:
                break
            _roll(block, ops, run)
            rolled += 1
            start = run.start + 1
    return rolled


# -- finding runs ------------------------------------------------------------------------------


def _walk(ops: Sequence[Operation]) -> Iterator[Operation]:
    for op in ops:
        yield from op.walk()


def _fingerprint(op: Operation) -> tuple[object, ...]:
    """Cheap to compare, equal for ops that may be the same code."""
    return (op.name, len(op.operands), tuple(op.result_types), sum(1 for _ in op.walk()))


def _first_run(ops: list[Operation], start: int) -> _Run | None:
    """The first run whose unit 0 begins at or after `start`; of those beginning at one op,
    the one covering the most ops (the shortest period on a tie)."""
    n = len(ops)
    if n and ops[-1].has_trait(IsTerminator):
        n -= 1
    prints = [_fingerprint(op) for op in ops[:n]]
    reach = _reach(ops)
    for i in range(start, n):
        best: _Run | None = None
        for period in range(1, min(MAX_PERIOD, (n - i) // MIN_REPEATS) + 1):
            unit = prints[i : i + period]
            count = 1
            while i + (count + 1) * period <= n and prints[
                i + count * period : i + (count + 1) * period
            ] == unit:
                count += 1
            count = _longest_contained(reach, i, period, count)
            if count < MIN_REPEATS or (best and count * period <= best.count * best.period):
                continue
            run = _checked_run(ops, i, period, count)
            if run is not None and (best is None or run.count * period > best.count * best.period):
                best = run
        if best is not None:
            return best
    return None


def _reach(ops: list[Operation]) -> list[int]:
    """For each op, the position of the last op in `ops` that uses one of its results (in a
    nested block: the op holding it), or its own."""
    if not ops:
        return []
    block = ops[0].parent_block()
    assert block is not None
    at = {op: k for k, op in enumerate(ops)}
    reach = list(range(len(ops)))
    for k, op in enumerate(ops):
        for result in op.results:
            for use in result.uses:
                user = block.find_ancestor_op_in_block(use.operation)
                if user is not None:
                    reach[k] = max(reach[k], at[user])
    return reach


def _longest_contained(reach: list[int], i: int, period: int, count: int) -> int:
    """The most units (at most `count`, else 0) from `ops[i]` whose results, but the last
    unit's, are used only inside them: what `_uses_stay_inside` will ask, told by positions
    before any unit's code is compared (a chain whose every step's result the output loop
    reads has no run, and finding that out must not cost a comparison per start and
    period: docs/compile-time-log.md round 10)."""
    best = 0
    furthest = -1
    for m in range(1, count + 1):
        if m >= 2:
            furthest = max(furthest, *reach[i + (m - 2) * period : i + (m - 1) * period])
        if furthest >= i + count * period:
            break
        if m >= MIN_REPEATS and furthest < i + m * period:
            best = m
    return best


def _checked_run(ops: list[Operation], i: int, period: int, count: int) -> _Run | None:
    """The longest run of up to `count` units of `period` ops from `ops[i]` (None if shorter
    than MIN_REPEATS or not rollable)."""
    first = ops[i : i + period]
    walked = list(_walk(first))
    if not any(op.regions for op in first) or any(isinstance(op, memref.AllocaOp) for op in walked):
        return None
    sites: list[_Site] | None = None
    matched = 1
    for r in range(1, count):
        unit = ops[i + r * period : i + (r + 1) * period]
        before = ops[i + (r - 1) * period : i + r * period]
        positions = {
            res: k * 2**16 + j for k, op in enumerate(before) for j, res in enumerate(op.results)
        }
        found = _outside_operands(walked, list(_walk(unit)), positions)
        if found is None or (sites is not None and found != sites):
            break
        sites = found
        matched += 1
    if sites is None:
        return None
    carried = tuple((w, k, s) for w, k, _, s in sites if s is not None)
    slots: list[int] = []
    inits: dict[int, SSAValue] = {}
    for _, _, value, s in sites:
        if s is None:
            continue
        if s in inits and inits[s] is not value:
            return None  # one slot, two starting values
        if s not in inits:
            slots.append(s)
            inits[s] = value
        if _result_at(first, s).type != value.type:
            return None
    while matched >= MIN_REPEATS:
        run = _Run(i, period, matched, carried, tuple(slots), tuple(inits[s] for s in slots))
        if _uses_stay_inside(ops, run):
            return run
        matched -= 1  # the last unit's other results are used after the run: peel it
    return None


def _outside_operands(
    a_ops: list[Operation], b_ops: list[Operation], before: dict[SSAValue, int]
) -> list[_Site] | None:
    """When unit b is unit a's code (op by op the same names, attributes, properties, result
    types and block argument types, the values a defines used where b uses its own), each
    operand a takes from outside itself, in walk order: (op in a's walk, operand, a's value,
    None if b takes the same value, else the position in `before`, the unit before b, of the
    result b takes). None when b is not a's code or takes something else."""
    if len(a_ops) != len(b_ops):
        return None
    mapped: dict[SSAValue, SSAValue] = {}
    sites: list[_Site] = []
    for w, (a, b) in enumerate(zip(a_ops, b_ops, strict=True)):
        if (
            a.name != b.name
            or a.result_types != b.result_types
            or a.attributes != b.attributes
            or a.properties != b.properties
            or len(a.operands) != len(b.operands)
            or a.successors
            or b.successors
            or len(a.regions) != len(b.regions)
        ):
            return None
        for k, (x, y) in enumerate(zip(a.operands, b.operands, strict=True)):
            if x in mapped:
                if mapped[x] is not y:
                    return None
            elif x is y:
                sites.append((w, k, x, None))
            elif y in before:
                sites.append((w, k, x, before[y]))
            else:
                return None
        for ra, rb in zip(a.regions, b.regions, strict=True):
            if len(ra.blocks) != len(rb.blocks):
                return None
            for ba, bb in zip(ra.blocks, rb.blocks, strict=True):
                if len(ba.ops) != len(bb.ops) or [t.type for t in ba.args] != [
                    t.type for t in bb.args
                ]:
                    return None  # (with the walks' lengths and names: the same tree)
                mapped.update(zip(ba.args, bb.args, strict=True))
        mapped.update(zip(a.results, b.results, strict=True))
    return sites


def _result_at(unit: Sequence[Operation], position: int) -> SSAValue:
    return unit[position >> 16].results[position & 0xFFFF]


def _uses_stay_inside(ops: list[Operation], run: _Run) -> bool:
    """Whether the results of the rolled units are used only inside them, but unit K-1's
    carried ones (which the loop's results replace)."""
    block = ops[run.start].parent_block()
    assert block is not None
    end = run.start + run.count * run.period
    rolled = set(ops[run.start : end])
    last = ops[end - run.period : end]
    carried = {_result_at(last, s) for s in run.slots}
    for op in ops[run.start : end]:
        for result in op.results:
            if result in carried:
                continue
            for use in result.uses:
                if block.find_ancestor_op_in_block(use.operation) not in rolled:
                    return False
    return True


# -- rolling -----------------------------------------------------------------------------------


def _roll(block: Block, ops: list[Operation], run: _Run) -> None:
    first = ops[run.start : run.start + run.period]
    end = run.start + run.count * run.period
    last = ops[end - run.period : end]
    bounds = [arith.ConstantOp(IntegerAttr(v, IndexType())) for v in (0, run.count, 1)]
    body = Block(arg_types=[IndexType(), *(v.type for v in run.inits)])
    body.args[0].name_hint = "rep"
    loop = scf.ForOp(*bounds, list(run.inits), body)
    Rewriter.insert_op([*bounds, loop], InsertPoint.before(first[0]))
    arg_of = {s: body.args[1 + j] for j, s in enumerate(run.slots)}
    mapping: dict[SSAValue, SSAValue] = {}
    clones = [op.clone(mapping) for op in first]
    for op in clones:
        body.add_op(op)
    cloned = list(_walk(clones))
    for w, k, s in run.carried:
        cloned[w].operands[k] = arg_of[s]
    body.add_op(scf.YieldOp(*(_result_at(clones, s) for s in run.slots)))
    for j, s in enumerate(run.slots):
        _result_at(last, s).replace_all_uses_with(loop.results[j])
    for op in reversed(ops[run.start : end]):
        Rewriter.erase_op(op)

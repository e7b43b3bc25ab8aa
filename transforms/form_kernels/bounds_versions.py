"""Versions of a loop nest that are the same loops but for their constant bounds, made ONE nest
whose bounds are chosen on the device number d.

The devices of an uneven shard run the same loops over different row counts (BENCH W7: 1000
rows over 3 devices are 334, 334 and 332 rows, and the last device also zeroes its 2 padding
rows). Compiling one nest for all of them instead of one per version halves LLVM's work.

```mlir
// version A (devices 0, 1)            // version B (device 2)
scf.for %i = %c0 to %c334 step %c1 {   scf.for %i = %c0 to %c332 step %c1 { BODY }
  BODY                                  scf.for %i = %c332 to %c334 step %c1 { ZERO }
}
// merged: the version with the most loops, each bound a choice on d; a loop a version lacks
// gets the empty range [0, 0) on its devices
%ub = arith.select (d < 2), %c334, %c332
scf.for %i = %c0 to %ub step %c1 { BODY }
scf.for %i = (d < 2 ? 0 : 332) to (d < 2 ? 0 : 334) step %c1 { ZERO }
```

Two users:
- SPMD mode (kernel_codegen.py `KernelEmitter.merge_by_bounds`): a kernel's versions, one per
  group of devices, built with d symbolic; the choices are nodes of its scalar graph.
- Specialized mode (`merge_device_kernels`, run by form_kernels.py after every device module is
  formed): the kernels of the same name in device modules whose host schedules are the same;
  the merged kernel takes d as a last `index` argument, which each device's schedule passes as
  a constant, so every device holds the same kernel and the JIT compiles it once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import FunctionType, IndexType, IntegerAttr
from xdsl.ir import Block, IRNode, Operation, SSAValue

from xdsl_multi.transforms.value_facts import int_constant

T = TypeVar("T")

TopLoops = list[tuple[scf.ForOp, tuple[int, int]]]
"""A version's top-level loops with their constant (lower, upper) bounds, in order."""

Bounds = list[list[tuple[int, int]]]
"""Per version, per loop of the widest version: that version's (lower, upper) bounds."""


def top_loops(block: Block) -> TopLoops | None:
    """A version block's top-level loops and their constant bounds, when the block is only
    constants and such loops (and its terminator), else None."""
    out: TopLoops = []
    for op in block.ops:
        if isinstance(op, scf.ForOp):
            lb, ub = int_constant(op.lb), int_constant(op.ub)
            if lb is None or ub is None:
                return None
            out.append((op, (lb, ub)))
        elif not isinstance(op, arith.ConstantOp | scf.YieldOp | func.ReturnOp):
            return None
    return out


def same_loop(
    a: scf.ForOp, b: scf.ForOp, context: Mapping[IRNode | SSAValue, IRNode | SSAValue] | None = None
) -> bool:
    """Whether loops `a` and `b` (top-level loops of two version blocks) run the same code but
    for their bounds: xDSL's structural equivalence of their step, iter_args and body, with
    the constants of `a`'s block taken as those of `b`'s block of the same value, and the
    values `context` maps (another kernel's arguments) taken as those they map to."""
    theirs = {
        (op.value, op.result.type): op.result
        for op in b.parent_block().ops  # type: ignore[union-attr]
        if isinstance(op, arith.ConstantOp)
    }
    equal: dict[IRNode | SSAValue, IRNode | SSAValue] = dict(context or {})
    for op in a.parent_block().ops:  # type: ignore[union-attr]
        if isinstance(op, arith.ConstantOp):
            match = theirs.get((op.value, op.result.type))
            if match is not None:
                equal[op.result] = match
    if len(a.operands) != len(b.operands):
        return False
    step_and_inits = zip(a.operands[2:], b.operands[2:], strict=True)
    if any(equal.get(x, x) is not y for x, y in step_and_inits):
        return False
    return a.body.is_structurally_equivalent(b.body, equal)


def aligned_bounds(
    versions: Sequence[TopLoops], outside: Sequence[Sequence[SSAValue]] | None = None
) -> tuple[int, Bounds] | None:
    """The version with the most loops (`widest`) and each version's bounds of each of its
    loops, when every other version's loops are some of the widest's in order, with the same
    code inside (`same_loop`); a loop a version lacks gets [0, 0) there. `outside[k]`: the
    values version k's loops use from outside its block (a kernel's arguments), taken as the
    widest version's at the same positions. None otherwise."""
    widest = max(range(len(versions)), key=lambda k: len(versions[k]))
    keep = versions[widest]
    bounds: Bounds = []
    for k, loops in enumerate(versions):
        if k == widest:
            bounds.append([b for _, b in keep])
            continue
        context = (
            dict(zip(outside[k], outside[widest], strict=True)) if outside is not None else None
        )
        mine: list[tuple[int, int]] = []
        rest = list(loops)
        for loop, _ in keep:
            if rest and same_loop(rest[0][0], loop, context):
                mine.append(rest.pop(0)[1])
            else:
                mine.append((0, 0))
        if rest:
            return None
        bounds.append(mine)
    return widest, bounds


def choose_bounds(
    loops: TopLoops,
    bounds: Bounds,
    choice: Callable[[list[int]], SSAValue],
) -> None:
    """Give each loop of the widest version (`loops`) the bounds `choice` makes of the
    versions' values (`bounds`, as `aligned_bounds` gives them); a bound all versions share
    stays as it is."""
    for i, (loop, _) in enumerate(loops):
        chosen: list[SSAValue] = []
        for side in (0, 1):
            values = [bounds[k][i][side] for k in range(len(bounds))]
            chosen.append(loop.operands[side] if len(set(values)) == 1 else choice(values))
        loop.operands = [*chosen, *loop.operands[2:]]


def device_runs(devices: Sequence[int]) -> list[tuple[int, int]]:
    """The ascending device numbers `devices` as contiguous runs [lo, hi)."""
    runs: list[list[int]] = []
    for k in sorted(devices):
        if runs and runs[-1][1] == k:
            runs[-1][1] = k + 1
        else:
            runs.append([k, k + 1])
    return [(lo, hi) for lo, hi in runs]


def device_test(
    devices: Sequence[int],
    num_devices: int | None,
    compare: Callable[[str, int], T],
    both: Callable[[T, T], T],
    either: Callable[[T, T], T],
) -> T:
    """Whether d is one of `devices`: `lo <= d < hi` for each contiguous run, or-ed, the tests
    a run's ends make unnecessary left out (d >= 0; d < `num_devices` when known). Built with
    `compare(predicate, k)` (`d <predicate> k`, predicates as arith.cmpi's), `both` (and) and
    `either` (or): SPMD mode's scalar graph and specialized mode's arith ops alike."""
    out: T | None = None
    for lo, hi in device_runs(devices):
        if hi == lo + 1:
            test = compare("eq", lo)
        else:
            tests = [compare("sge", lo)] if lo > 0 else []
            if num_devices is None or hi < num_devices:
                tests.append(compare("slt", hi))
            test = tests[0] if len(tests) == 1 else both(tests[0], tests[1])
        out = test if out is None else either(out, test)
    assert out is not None
    return out


# --------------------------------------------------------------------------------------------
# Specialized mode: one kernel for the devices whose kernels differ only in bounds
# --------------------------------------------------------------------------------------------


class _DeviceChoice:
    """Builds, at the top of a kernel, the index arithmetic that picks a value by d."""

    def __init__(self, body: Block, d: SSAValue, num_devices: int) -> None:
        self.body, self.d, self.num_devices = body, d, num_devices
        self.ops: list[Operation] = []
        self._constants: dict[int, SSAValue] = {}
        self._tests: dict[tuple[int, ...], SSAValue] = {}

    def index(self, value: int) -> SSAValue:
        if value not in self._constants:
            op = arith.ConstantOp(IntegerAttr(value, IndexType()))
            self.ops.append(op)
            self._constants[value] = op.result
        return self._constants[value]

    def _add(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def devices_are(self, devices: Sequence[int]) -> SSAValue:
        """Whether d is one of `devices`: `lo <= d < hi` for each contiguous run, or-ed
        (built once per set of devices)."""
        key = tuple(sorted(devices))
        if key not in self._tests:
            self._tests[key] = device_test(
                devices,
                self.num_devices,
                lambda predicate, k: self._add(arith.CmpiOp(self.d, self.index(k), predicate)),
                lambda a, b: self._add(arith.AndIOp(a, b)),
                lambda a, b: self._add(arith.OrIOp(a, b)),
            )
        return self._tests[key]

    def choose(self, values: list[int], groups: Sequence[Sequence[int]]) -> SSAValue:
        """values[k] on the devices of groups[k]: one select per distinct value but the
        last, testing the devices that take it."""
        devices_of: dict[int, list[int]] = {}
        for value, devices in zip(values, groups, strict=True):
            devices_of.setdefault(value, []).extend(devices)
        *tested, last = devices_of
        chosen = self.index(last)
        for value in reversed(tested):
            test = self.devices_are(devices_of[value])
            chosen = self._add(arith.SelectOp(test, self.index(value), chosen))
        return chosen

    def insert(self) -> None:
        """Put the built ops at the top of the kernel's body."""
        first = self.body.first_op
        for op in self.ops:
            if first is None:
                self.body.add_op(op)
            else:
                self.body.insert_op_before(op, first)


def merge_device_kernels(
    versions: Sequence[func.FuncOp], groups: Sequence[Sequence[int]], num_devices: int
) -> func.FuncOp | None:
    """One kernel for devices whose kernels (`versions[k]` runs on the devices `groups[k]`)
    take the same arguments and are the same top-level loops but for their constant bounds:
    the widest version, changed in place to take d as a new last `index` argument that
    chooses each bound, is returned. None, with nothing changed, when they differ otherwise
    (or a version already takes an index)."""
    types = {v.function_type for v in versions}
    if len(types) != 1:
        return None
    (t,) = types
    if any(isinstance(a, IndexType) for a in t.inputs):
        return None
    shapes = [top_loops(v.body.block) for v in versions]
    loops = [s for s in shapes if s is not None]
    if len(loops) != len(shapes):
        return None
    aligned = aligned_bounds(loops, [v.body.block.args for v in versions])
    if aligned is None:
        return None
    widest, bounds = aligned
    kernel = versions[widest]
    body = kernel.body.block
    d = body.insert_arg(IndexType(), len(body.args))
    d.name_hint = "d"
    choice = _DeviceChoice(body, d, num_devices)
    choose_bounds(loops[widest], bounds, lambda values: choice.choose(values, groups))
    choice.insert()
    kernel.function_type = FunctionType.from_lists([*t.inputs, IndexType()], [])
    return kernel


__all__ = [
    "aligned_bounds",
    "choose_bounds",
    "device_runs",
    "device_test",
    "merge_device_kernels",
    "same_loop",
    "top_loops",
]

"""`devidx-simplify`: the Invalid rules, index-arithmetic folding and pad/shrink/select folding
of the SPMD form (SPEC §4-5).

```mlir
// before (device d of N = 2)
%d = devidx.device_num : index
%c5 = arith.constant 5 : index
%never = arith.cmpi eq, %d, %c5 : index                     // d < 2: always false
%y = arith.select %never, %x, %inv : tensor<4xf32>
%z = math.exp %y : tensor<4xf32>
// after
%z = devidx.invalid : tensor<4xf32>                        // (dead, removed when unused)
```

The patterns live by concept in four files, each with a table of its rules:
- invalid_rules.py: SPEC §4 rules 1-6 and removal of values that are Invalid everywhere;
- index_folding.py: constant folding and interval reasoning on `index` (d in [0, N));
- pad_shrink_folding.py: pad/shrink identities and composition;
- algebra_folding.py: selects with constant or equal conditions, tinygrad's constant rules;
- invalid_windows.py: narrowing work to the lanes that hold data (pads of Invalid sink through
  lane-wise ops, shrinks rise through them), which is what makes a specialized device compute
  only its own share.

One greedy walk applies them all (the first pattern that matches wins) and erases ops without
uses and without side effects (dead code), until nothing changes. Each pattern says which op
classes it acts on (`op_types`), so an op is offered only to those (`TypedPatternApplier`). N is the length of the
`multi.devices` attribute of the module (or of the nearest enclosing one); without it only
d >= 0 is known. `specialize-devices` runs the same walk on each device's module.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.transforms.dead_code_elimination import is_trivially_dead

from xdsl_multi.transforms.devidx_simplify.algebra_folding import algebra_folding_patterns
from xdsl_multi.transforms.devidx_simplify.index_folding import index_folding_patterns
from xdsl_multi.transforms.devidx_simplify.invalid_rules import (
    FetchOfInvalidIsZero,
    invalid_rule_patterns,
)
from xdsl_multi.transforms.devidx_simplify.invalid_windows import invalid_window_patterns
from xdsl_multi.transforms.devidx_simplify.pad_shrink_folding import pad_shrink_folding_patterns
from xdsl_multi.transforms.value_facts import AttrCache, OpTypes, num_devices_of


def simplify_patterns(
    num_devices: int | None, device_copy: bool = False, attrs: AttrCache | None = None
) -> list[RewritePattern]:
    """Every pattern of `devidx-simplify`, in the order they are tried on an op: folding first
    (cheap and it exposes constants), then the Invalid rules, then pad/shrink.

    `device_copy`: the ops are ONE device's copy of an SPMD program that still has fetches
    (inside specialize-devices). A fetch's operand there is only this device's instance, not
    the one the fetch reads, so no rule may look through a fetch (FetchOfInvalidIsZero).
    `attrs` remembers which dense constants are attrs (share one across calls on copies of
    a program)."""
    attrs = attrs or AttrCache()
    patterns = [
        *index_folding_patterns(num_devices),
        *algebra_folding_patterns(attrs),
        *invalid_rule_patterns(),
        *pad_shrink_folding_patterns(),
        *invalid_window_patterns(attrs),
    ]
    if device_copy:
        patterns = [p for p in patterns if not isinstance(p, FetchOfInvalidIsZero)]
    return patterns


class TypedPatternApplier(RewritePattern):
    """xDSL's `GreedyRewritePatternApplier` with dead code removal (the first pattern that acts
    wins, in order), but each op is offered only to the patterns whose `op_types` admit its
    class (all of them for a pattern without `op_types`). The choice is made once per op class:
    a walk offers every op to ~45 patterns otherwise, most of which look at its type only."""

    def __init__(self, patterns: Sequence[RewritePattern]) -> None:
        self.patterns = list(patterns)
        self._by_type: dict[type[Operation], list[RewritePattern]] = {}

    def for_type(self, op_type: type[Operation]) -> list[RewritePattern]:
        found = self._by_type.get(op_type)
        if found is None:
            ancestors = frozenset(op_type.__mro__)
            found = [p for p in self.patterns if _admits(p, op_type, ancestors)]
            self._by_type[op_type] = found
        return found

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if is_trivially_dead(op):
            rewriter.erase(op)
            return
        for pattern in self.for_type(type(op)):
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return


def _admits(
    pattern: RewritePattern, op_type: type[Operation], ancestors: frozenset[type]
) -> bool:
    """Whether `pattern` may act on ops of class `op_type` (whose MRO is `ancestors`): a
    tuple of op classes is matched against the MRO (issubclass without ABCMeta's Python-level
    check, which was a fifth of devidx-simplify on a small program; op classes are never
    registered as virtual subclasses)."""
    op_types: OpTypes | None = getattr(type(pattern), "op_types", None)
    if op_types is None:
        return True
    if isinstance(op_types, tuple):
        return not ancestors.isdisjoint(op_types)
    return op_types(op_type)


class Simplifier:
    """`simplify` for many modules of one program (specialize-devices' device copies): the
    patterns and their per-op-class tables (`TypedPatternApplier`) are built once, not once
    per module. `num_devices`, `device_copy` and `attrs` as in `simplify_patterns`."""

    def __init__(
        self,
        num_devices: int | None,
        device_copy: bool = False,
        attrs: AttrCache | None = None,
        extra: Sequence[RewritePattern] = (),
    ) -> None:
        """`extra`: patterns tried after devidx-simplify's own (specialize-devices'
        `device_window_patterns`)."""
        patterns = simplify_patterns(num_devices, device_copy, attrs)
        self.applier = TypedPatternApplier([*patterns, *extra])

    def __call__(self, op: Operation) -> bool:
        """Run every pattern on the ops nested in `op` until nothing changes, erasing dead
        code. Returns whether anything changed."""
        walker = PatternRewriteWalker(self.applier, apply_recursively=True)
        changed = False
        for region in op.regions:
            changed |= walker.rewrite_region(region)
        return changed


def simplify(
    op: Operation,
    num_devices: int | None = None,
    device_copy: bool = False,
    attrs: AttrCache | None = None,
) -> bool:
    """Run every pattern on the ops nested in `op` until nothing changes, erasing dead code.
    `num_devices` defaults to the `multi.devices` found on `op` or its ancestors; for
    `device_copy` see `simplify_patterns`. Returns whether anything changed."""
    if num_devices is None:
        num_devices = num_devices_of(op)
    return Simplifier(num_devices, device_copy, attrs)(op)


@dataclass(frozen=True)
class DevidxSimplify(ModulePass):
    """The Invalid rules (SPEC §4), folding of index arithmetic, pad/shrink/select folding and
    dead code removal, on a module in SPMD form (or any module using these dialects)."""

    name = "devidx-simplify"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        simplify(op)

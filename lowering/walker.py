"""The one walker of convert-to-llvm: each op goes straight to the patterns that lower its kind.

xDSL's `PatternRewriteWalker` over a `GreedyRewritePatternApplier` offers every op to every
pattern in turn (28 for the kernel lowerings) and keeps a worklist with listeners for each
rewrite; on the matmul kernels that bookkeeping cost as much as building the llvm ops.
`LoweringWalker` makes the same walk and the same rewrites, cheaper:

- every pattern is a `LoweringPattern` that names the ops it lowers (`ops`, op names), so an
  op is offered only to the patterns naming it, in the order of the pattern list (the first
  that acts wins, as in the greedy applier);
- the walk is one pass in block order over the ops the region had when it started (what
  `PatternRewriteWalker(..., apply_recursively=False)` visits): ops that a rewrite creates are
  not visited again;
- it erases no dead code: the greedy applier's dead code elimination is `erase_dead_ops`, run
  once before the walks (an op the kernel lowerings visit later has a user, or an effect);
- a pattern's error becomes the op's diagnostic, as in xDSL's walker.

The rewrites go through one `PatternRewriter` (no listeners), so a pattern's `replace` names
the new values exactly as under xDSL's walker: the output is the same IR, name hints included.
"""

from __future__ import annotations

from abc import ABC
from collections.abc import Sequence
from typing import ClassVar

from xdsl.ir import Operation, Region
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.transforms.dead_code_elimination import is_trivially_dead


class LoweringPattern(RewritePattern, ABC):
    """A rewrite pattern that says which ops it may rewrite: `ops`, their names."""

    ops: ClassVar[tuple[str, ...]]


class LoweringWalker:
    """Walk a region once, giving each op to the patterns named for it (module docstring)."""

    def __init__(self, patterns: Sequence[LoweringPattern]) -> None:
        self.by_name: dict[str, tuple[LoweringPattern, ...]] = {}
        for pattern in patterns:
            for name in pattern.ops:
                self.by_name[name] = (*self.by_name.get(name, ()), pattern)

    def rewrite_region(self, region: Region) -> None:
        ops = list(region.walk())
        if not ops:
            return
        rewriter = PatternRewriter(ops[0])
        for op in ops:
            patterns = self.by_name.get(op.name)
            if patterns is None:
                continue
            rewriter.has_done_action = False
            rewriter.current_operation = op
            rewriter.insertion_point = InsertPoint.before(op)
            rewriter.name_hint = None
            try:
                for pattern in patterns:
                    pattern.match_and_rewrite(op, rewriter)
                    if rewriter.has_done_action:
                        break
            except Exception as err:  # noqa: BLE001 (as xDSL's walker: any error of a pattern)
                _raise_for(op, err)


def _raise_for(op: Operation, err: Exception) -> None:
    op.emit_error(f"Error while applying pattern: {err}", underlying_error=err)


def erase_dead_ops(region: Region) -> None:
    """Erase every op of `region` that is trivially dead, and those that become so, as the
    greedy applier's dead code elimination does over repeated walks (xDSL's
    `is_trivially_dead`): one walk from the last op back, rechecking the definitions of an
    erased op's operands."""
    stack = list(region.walk())
    gone: set[Operation] = set()
    while stack:
        op = stack.pop()
        if op in gone or not is_trivially_dead(op):
            continue
        owners = [v.owner for v in op.operands if isinstance(v.owner, Operation)]
        gone.update(op.walk())
        Rewriter.erase_op(op)
        stack.extend(o for o in owners if o not in gone)

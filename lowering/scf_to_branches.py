"""`scf.for` and `scf.if` to `cf` branches, as xDSL's scf-to-cf lowerings make them, built cheaply.

xDSL's `ForLowering` and `IfLowering` (xdsl/transforms/convert_scf_to_cf.py) make their
`arith.addi`, `arith.cmpi`, `cf.br` and `cf.cond_br` with the ops' constructors, which go through
xDSL's `irdl_op_init` (~60-170 us an op): about a third of convert-to-llvm on BENCH C1's 52
loops. These patterns do the same steps in the same order and make the same ops (operands,
successors, result types, properties in the constructors' order) with `Op.create`;
test/lowering/test_scf_to_branches.py checks the text against xDSL's patterns.

```mlir
// before
scf.for %i = %lb to %ub step %s iter_args(%acc = %init) -> (f32) { ... scf.yield %next : f32 }
// after
  cf.br ^cond(%lb, %init : index, f32)
^cond(%i: index, %acc: f32):
  %c = arith.cmpi slt, %i, %ub : index
  cf.cond_br %c, ^body, ^end
^body:
  ...
  %i2 = arith.addi %i, %s : index
  cf.br ^cond(%i2, %next : index, f32)
^end:
```
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, cf, scf
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, i1, i32, i64
from xdsl.ir import Block, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import BlockInsertPoint, InsertPoint
from xdsl.traits import IsTerminator

_NO_OVERFLOW = arith.IntegerOverflowAttr("none")
_SLT = IntegerAttr(2, i64)
_NO_BRANCH_ARGS = DenseArrayBase.from_list(i32, (1, 0, 0))
"""`operandSegmentSizes` of a `cf.cond_br` whose successors take no arguments."""


def _br(dest: Block, args: Sequence[SSAValue]) -> cf.BranchOp:
    """`cf.BranchOp(dest, *args)`."""
    return cf.BranchOp.create(operands=list(args), successors=[dest])


def _cond_br(cond: SSAValue, then: Block, else_: Block) -> cf.ConditionalBranchOp:
    """`cf.ConditionalBranchOp(cond, then, (), else_, ())`."""
    return cf.ConditionalBranchOp.create(
        operands=[cond],
        successors=[then, else_],
        properties={"operandSegmentSizes": _NO_BRANCH_ARGS},
    )


def _addi(a: SSAValue, b: SSAValue) -> arith.AddiOp:
    """`arith.AddiOp(a, b)`."""
    return arith.AddiOp.create(
        operands=[a, b], result_types=[a.type], properties={"overflowFlags": _NO_OVERFLOW}
    )


def _cmpi_slt(a: SSAValue, b: SSAValue) -> arith.CmpiOp:
    """`arith.CmpiOp(a, b, "slt")`."""
    return arith.CmpiOp.create(
        operands=[a, b], result_types=[i1], properties={"predicate": _SLT}
    )


def _inline_arm(region: Region, continue_block: Block, rewriter: PatternRewriter) -> Block | None:
    """An `scf.if` arm's blocks inlined before `continue_block`, its `scf.yield` replaced by a
    branch there with the yielded values; the arm's first block, or None for an empty arm."""
    first = region.first_block
    if first is None:
        return None
    assert region.last_block is not None
    terminator = region.last_block.last_op
    assert terminator is not None
    rewriter.insert(_br(continue_block, terminator.operands), InsertPoint.at_end(region.last_block))
    rewriter.erase(terminator)
    rewriter.inline_region(region, BlockInsertPoint.before(continue_block))
    return first


class IfToCfBranches(RewritePattern):
    """xDSL's `IfLowering`, with the branches built by `Op.create`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, if_op: scf.IfOp, rewriter: PatternRewriter, /) -> None:
        condition_block = if_op.parent_block()
        assert condition_block is not None
        remaining_ops_block = condition_block.split_before(if_op)
        if if_op.results:
            parent = condition_block.parent_region()
            assert parent is not None
            continue_block = Block(arg_types=if_op.result_types)
            parent.insert_block_before(continue_block, remaining_ops_block)
            rewriter.insert(_br(remaining_ops_block, ()), InsertPoint.at_end(continue_block))
        else:
            continue_block = remaining_ops_block

        then_block = _inline_arm(if_op.true_region, continue_block, rewriter)
        assert then_block is not None
        else_block = _inline_arm(if_op.false_region, continue_block, rewriter) or continue_block

        rewriter.insert(
            _cond_br(if_op.cond, then_block, else_block), InsertPoint.at_end(condition_block)
        )
        rewriter.replace(if_op, [], continue_block.args)


class ForToCfBranches(RewritePattern):
    """xDSL's `ForLowering`, with the step, the comparison and the branches built by
    `Op.create`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, for_op: scf.ForOp, rewriter: PatternRewriter, /) -> None:
        init_block = for_op.parent_block()
        if init_block is None:
            return
        end_block = init_block.split_before(for_op)
        condition_block = for_op.body.first_block
        assert condition_block is not None
        first_op = condition_block.first_op
        assert first_op is not None
        first_body_block = condition_block.split_before(first_op)
        last_body_block = for_op.body.last_block
        assert last_body_block is not None
        rewriter.inline_region(for_op.body, BlockInsertPoint.before(end_block))
        iv = condition_block.args[0]

        terminator = last_body_block.last_op
        assert terminator is not None and terminator.has_trait(IsTerminator)
        stepped = _addi(iv, for_op.step)
        rewriter.insert(stepped, InsertPoint.before(terminator))
        rewriter.replace(
            terminator, _br(condition_block, (stepped.result, *terminator.operands))
        )
        rewriter.insert(
            _br(condition_block, (for_op.lb, *for_op.iter_args)), InsertPoint.at_end(init_block)
        )
        comparison = _cmpi_slt(iv, for_op.ub)
        rewriter.insert(comparison, InsertPoint.at_end(condition_block))
        rewriter.insert(
            _cond_br(comparison.result, first_body_block, end_block),
            InsertPoint.at_end(condition_block),
        )
        rewriter.replace(for_op, [], condition_block.args[1:])


__all__ = ["ForToCfBranches", "IfToCfBranches"]

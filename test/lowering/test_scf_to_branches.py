"""convert-to-llvm's scf.for / scf.if lowering (lowering/scf_to_branches.py) makes what xDSL's
`ForLowering` / `IfLowering` make, without xDSL's generic op builder (issue 14: a third of
convert-to-llvm on BENCH C1's 52 loops): the same text on the kernels of programs with loops
with and without loop-carried values, scf.if with and without results and else branches, in
both modes."""

from __future__ import annotations

import cProfile
import io
import pstats
from pathlib import Path

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.pattern_rewriter import PatternRewriteWalker
from xdsl.printer import Printer
from xdsl.transforms.convert_scf_to_cf import ForLowering, IfLowering

from xdsl_multi.dialects import make_context
from xdsl_multi.lowering.convert_to_llvm import find_kernels
from xdsl_multi.lowering.scf_to_branches import ForToCfBranches, IfToCfBranches
from xdsl_multi.lowering.walker import erase_dead_ops
from xdsl_multi.pipeline import lower_for_runtime

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = [
    "bench/programs/c1_chain.mlir",
    "bench/programs/w4_matmul.mlir",
    "bench/programs/w7_uneven.mlir",
    "examples/uneven.mlir",
    "examples/layernorm.mlir",
]


def printed(op: ModuleOp | func.FuncOp) -> str:
    out = io.StringIO()
    Printer(stream=out).print_op(op)
    return out.getvalue()


def kernel_level(path: str, spmd: bool) -> ModuleOp:
    module = Parser(make_context(), (ROOT / path).read_text(), path).parse_module()
    lower_for_runtime(
        module, lambda name, apply: None if name.startswith("convert") else apply(), spmd=spmd
    )
    return module


def lower_scf(module: ModuleOp, patterns: tuple[object, object]) -> list[str]:
    bodies = []
    for kernel, _ in find_kernels(module):
        erase_dead_ops(kernel.body)
        for pattern in patterns:  # xDSL's pass order: ifs first, then loops, each a walk
            PatternRewriteWalker(pattern, apply_recursively=False).rewrite_region(kernel.body)  # type: ignore[arg-type]
        bodies.append(printed(kernel))
    return bodies


@pytest.mark.parametrize("spmd", [False, True])
@pytest.mark.parametrize("path", PROGRAMS)
def test_branches_are_xdsls(path: str, spmd: bool) -> None:
    ours = lower_scf(kernel_level(path, spmd), (IfToCfBranches(), ForToCfBranches()))
    theirs = lower_scf(kernel_level(path, spmd), (IfLowering(), ForLowering()))
    assert ours and ours == theirs
    assert all("scf." not in body and "cf.cond_br" in body for body in ours)


def test_no_generic_op_builder() -> None:
    module = kernel_level("bench/programs/c1_chain.mlir", False)
    profile = cProfile.Profile()
    profile.runcall(lower_scf, module, (IfToCfBranches(), ForToCfBranches()))
    calls = {name: s[1] for (_, _, name), s in pstats.Stats(profile).stats.items()}  # type: ignore[attr-defined]
    assert calls.get("irdl_op_init", 0) == 0  # xDSL's patterns: 4 per loop (C1: 52 loops)

"""`kernels_llvm_ir` translates a kernel that another device already has (same body) once and
reuses its text: the result must be the text of `translate_kernels`, byte for byte."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from xdsl_multi.dialects import make_context
from xdsl_multi.lowering.llvm_target import (
    kernels_llvm_ir,
    llvm_ops,
    same_translation,
    translate_kernels,
)
from xdsl_multi.pipeline import MultiToLLVM

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = [
    *sorted((ROOT / "examples").glob("*.mlir")),
    ROOT / "bench" / "programs" / "c1_chain.mlir",
    ROOT / "bench" / "programs" / "w7_uneven.mlir",
]


def parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def specialized(module: ModuleOp) -> None:
    """The table's pipeline, a module per device (the `multi-to-llvm` pass): the runtime's
    default route builds a program whose devices differ only in their shard windows once, so
    its devices would have no twins to share (pipeline.py `lower_for_runtime`)."""
    MultiToLLVM().apply(make_context(), module)


def kernels(module: ModuleOp) -> list[llvm.FuncOp]:
    return [op for op in llvm_ops(module) if isinstance(op, llvm.FuncOp) and op.body.blocks]


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_shared_text_is_the_full_translation(path: Path) -> None:
    module = parse(path.read_text())
    specialized(module)
    if not kernels(module):
        pytest.skip("no kernels: nothing to translate")
    assert kernels_llvm_ir(module) == str(translate_kernels(module))


@pytest.mark.parametrize("seed", range(8))
def test_shared_text_of_random_programs(seed: int) -> None:
    sys.path.insert(0, str(ROOT / "test" / "support"))
    from random_programs import random_program

    module = parse(random_program(seed).text)
    specialized(module)
    if kernels(module):
        assert kernels_llvm_ir(module) == str(translate_kernels(module))


def test_c1_devices_share_their_kernel() -> None:
    module = parse((ROOT / "bench" / "programs" / "c1_chain.mlir").read_text())
    specialized(module)
    first, second = kernels(module)
    assert same_translation(first, second)


TWO = """
builtin.module {
  llvm.func @a(%p: !llvm.ptr) {
    %v = llvm.load %p : !llvm.ptr -> LOAD_A
    llvm.store %v, %p : LOAD_A, !llvm.ptr
    llvm.return
  }
  llvm.func @b(%p: !llvm.ptr) {
    %v = llvm.load %p : !llvm.ptr -> LOAD_B
    llvm.store %v, %p : LOAD_B, !llvm.ptr
    llvm.return
  }
}
"""


@pytest.mark.parametrize(("a", "b", "same"), [("f32", "f32", True), ("f32", "i32", False)])
def test_result_types_count(a: str, b: str, same: bool) -> None:
    """A load's type is only in its result: kernels differing there are no twins."""
    module = parse(TWO.replace("LOAD_A", a).replace("LOAD_B", b))
    first, second = kernels(module)
    assert same_translation(first, second) is same
    text = kernels_llvm_ir(module)
    assert text == str(translate_kernels(module))
    assert text.count(f"load {'float' if b == 'f32' else b}, ptr") == (2 if same else 1)

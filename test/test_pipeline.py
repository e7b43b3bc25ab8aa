"""The one pipeline (xdsl_multi/pipeline.py) and the one naming of levels (xdsl_multi/levels.py):
each pass of the table takes a module from its level to the next, as detect_level sees it, and
the interpreter gives the same outputs at every level on the way."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.parser import Parser

from xdsl_multi.dialects import make_context
from xdsl_multi.levels import Level, detect_level
from xdsl_multi.pipeline import (
    MultiToLLVM,
    build_pipeline,
    lower_for_runtime,
    passes_needed,
    pipeline_specs,
)
from xdsl_multi.runtime.interpreter.interpreter import logical_signature, random_inputs, run_module

LAYERNORM = Path(__file__).resolve().parents[1] / "examples" / "layernorm.mlir"


def parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


@pytest.mark.parametrize("spmd", [False, True], ids=["specialized", "spmd"])
def test_each_pass_leaves_its_level(spmd: bool) -> None:
    module = parse(LAYERNORM.read_text())
    inputs = random_inputs(logical_signature(module), 3)
    want = run_module(module.clone(), inputs)
    expected = (
        [Level.SPMD, Level.SPMD, Level.KERNEL, Level.LLVM]
        if spmd
        else [Level.SPMD, Level.SPMD, Level.DEVICE, Level.KERNEL, Level.LLVM]
    )
    assert detect_level(module) is Level.MULTI
    specs = pipeline_specs(Level.MULTI, spmd=spmd)
    assert len(specs) == len(expected)
    ctx = make_context()
    for spec, level in zip(specs, expected, strict=True):
        build_pipeline((spec,)).apply(ctx, module)
        assert detect_level(module) is level, str(spec)
        if level is not Level.LLVM:
            for got, w in zip(run_module(module.clone(), inputs), want, strict=True):
                np.testing.assert_allclose(got, w, rtol=1e-4, atol=1e-5)
    assert passes_needed(module, spmd) == ()


def test_a_module_is_lowered_from_where_it_is() -> None:
    module = parse(LAYERNORM.read_text())
    full = passes_needed(module)
    assert full == tuple(str(s) for s in pipeline_specs(Level.MULTI))
    build_pipeline(pipeline_specs(Level.MULTI, Level.KERNEL)).apply(make_context(), module)
    assert passes_needed(module) == ("convert-to-llvm",)
    assert lower_for_runtime(module) == ("convert-to-llvm",)
    assert detect_level(module) is Level.LLVM


def test_options_by_pass_name_override_the_table() -> None:
    specs = pipeline_specs(
        Level.MULTI, spmd=True, options={"multi-to-devidx": "allreduce=ring ring-threshold=0",
                                         "form-kernels": "tile-rows=2"}
    )
    names = [str(s) for s in specs]
    # SPMD mode's table keeps allreduces as ops (collectives=ops); the options add to it
    assert names[0] == 'multi-to-devidx{collectives="ops" allreduce="ring" ring-threshold=0}'
    assert "form-kernels{spmd=true tile-rows=2}" in names
    passes = build_pipeline(specs).passes
    assert passes[0].allreduce == "ring" and passes[0].ring_threshold == 0  # type: ignore[attr-defined]
    assert passes[0].collectives == "ops"  # type: ignore[attr-defined]
    with pytest.raises(ValueError):
        pipeline_specs(Level.MULTI, options={"multi-to-devidx": "allreduce=ring}"})


def test_multi_to_llvm_is_the_pipeline() -> None:
    lowering = MultiToLLVM(allreduce="naive", spmd=True)
    want = pipeline_specs(Level.MULTI, spmd=True, options=lowering.options())
    assert [str(p.pipeline_pass_spec()) for p in lowering.passes()] == [
        str(build_pipeline((s,)).passes[0].pipeline_pass_spec()) for s in want
    ]
    assert "specialize-devices" not in [p.name for p in lowering.passes()]
    assert "specialize-devices" in [p.name for p in MultiToLLVM().passes()]


@pytest.mark.parametrize("spmd", [False, True], ids=["specialized", "spmd"])
@pytest.mark.parametrize("example", ["layernorm.mlir", "megatron_mlp.mlir", "copies.mlir"])
def test_kernels_carry_what_they_write(example: str, spmd: bool) -> None:
    """form-kernels states on every kernel which argument it writes (`multi.writes`), and
    convert-to-llvm keeps it on the llvm.func: the runtime reads the fact, and it equals what
    the analysis of the kernel's body finds."""
    from xdsl.dialects import func, llvm

    from xdsl_multi.dialects.multi import KERNEL_ATTR, WRITES_ATTR
    from xdsl_multi.lowering.kernel_facts import written_arguments

    module = parse((LAYERNORM.parent / example).read_text())
    build_pipeline(pipeline_specs(Level.MULTI, Level.KERNEL, spmd=spmd)).apply(
        make_context(), module
    )
    kernels = [
        op for op in module.walk()
        if isinstance(op, func.FuncOp) and KERNEL_ATTR in op.attributes and op.body.blocks
    ]
    assert kernels
    for k in kernels:
        stated = k.attributes[WRITES_ATTR]
        del k.attributes[WRITES_ATTR]
        buffers = {i for i, a in enumerate(k.body.block.args) if isinstance(a.type, MemRefType)}
        analysed = written_arguments(k) & buffers  # a scalar argument (%d) is never written
        k.attributes[WRITES_ATTR] = stated
        assert written_arguments(k) == analysed == {max(buffers)}, k.sym_name.data
    build_pipeline(pipeline_specs(Level.KERNEL)).apply(make_context(), module)
    lowered = [op for op in module.walk() if isinstance(op, llvm.FuncOp) and op.body.blocks]
    assert lowered and all(WRITES_ATTR in op.attributes for op in lowered)

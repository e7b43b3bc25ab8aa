"""form-kernels forms alike devices once (issue 14, compile time): the device modules of an
even program are the same code, so their kernels and host schedules are formed for the first
and copied to the others, and the result is the one forming each device gives; a device whose
module differs (an uneven shard) is formed on its own. The programs run as the reference
interpreter says."""

from __future__ import annotations

import cProfile
import pstats
from pathlib import Path

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.traits import SymbolTable

from xdsl_multi.dialects import make_context
from xdsl_multi.dialects.devidx import DEVICE_ATTR
from xdsl_multi.dialects.parsing import parse_mlir
from xdsl_multi.passes import get_all_passes
from xdsl_multi.runtime.interpreter.interpreter import run_module
from xdsl_multi.runtime.program import Program
from xdsl_multi.transforms.form_kernels.form_kernels import form_module_kernels
from xdsl_multi.transforms.form_kernels.kernel_analysis import TilePolicy
from xdsl_multi.transforms.form_kernels.tensor_elements import Splats

ROOT = Path(__file__).resolve().parents[2]


def device_level(path: str) -> ModuleOp:
    """The program at `path` (from the checkout's root) after multi-to-devidx,
    devidx-simplify and specialize-devices."""
    module = parse_mlir(make_context(), (ROOT / path).read_text())
    passes = get_all_passes()
    for p in ("multi-to-devidx", "devidx-simplify", "specialize-devices"):
        passes[p]()().apply(Context(), module)
    return module


def formed_each(module: ModuleOp) -> ModuleOp:
    """form-kernels' result made the old way: every device module formed on its own."""
    module = module.clone()
    splats = Splats()
    for m in [m for m in module.body.block.ops if isinstance(m, ModuleOp)]:
        form_module_kernels(m, TilePolicy(8, 32), splats)
    return module


def formed_by_pass(module: ModuleOp) -> tuple[ModuleOp, int]:
    """form-kernels' result, and how many device modules it analysed (formed)."""
    module = module.clone()
    run = cProfile.Profile()
    run.enable()
    get_all_passes()["form-kernels"]()().apply(Context(), module)
    run.disable()
    stats = pstats.Stats(run).stats  # type: ignore[attr-defined]
    formed = sum(v[1] for (_, _, fn), v in stats.items() if fn == "form_module_kernels")
    return module, formed


def test_alike_devices_are_formed_once_with_the_same_result() -> None:
    module = device_level("examples/layernorm.mlir")  # rows sharded evenly over 2 devices
    assert sum(isinstance(m, ModuleOp) for m in module.body.block.ops) == 2
    formed, count = formed_by_pass(module)
    assert count == 1
    assert str(formed) == str(formed_each(module))
    assert [m.attributes[DEVICE_ATTR] for m in formed.body.block.ops] == [
        m.attributes[DEVICE_ATTR] for m in module.body.block.ops
    ]
    x = np.random.default_rng(14).standard_normal((8, 16)).astype(np.float32)
    text = (ROOT / "examples/layernorm.mlir").read_text()
    want = run_module(parse_mlir(make_context(), text), [x])
    get_all_passes()["convert-to-llvm"]()().apply(Context(), formed)
    with Program(formed) as program:
        got = program([x])
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-5)


def test_a_device_that_differs_is_formed_on_its_own() -> None:
    """BENCH W7: 1000 rows over 3 devices, 334, 334 and 332: devices 0 and 1 alike, device 2
    formed on its own. Its kernel is then the same loops but for their bounds, so every
    device ends with one shared kernel taking d (test_shared_device_kernels.py); forming
    each device on its own gives the other devices' kernel as it was before that step."""
    module = device_level("bench/programs/w7_uneven.mlir")
    assert sum(isinstance(m, ModuleOp) for m in module.body.block.ops) == 3
    formed, count = formed_by_pass(module)
    assert count == 2
    each = formed_each(module)
    shared = [m for m in formed.body.block.ops if isinstance(m, ModuleOp)]
    alone = [m for m in each.body.block.ops if isinstance(m, ModuleOp)]
    kernels = [SymbolTable.lookup_symbol(m, "kernel0") for m in shared]
    assert all(
        isinstance(k, func.FuncOp) and k.body.is_structurally_equivalent(kernels[0].body)
        for k in kernels
    )
    # the devices that own all 334 rows run the shared kernel's loops over the same rows
    # as their own kernel's: the shared one is device 0's with bounds chosen on d
    assert str(alone[0]).count("scf.for") == str(shared[0]).count("scf.for") - 1

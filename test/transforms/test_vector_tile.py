"""Vector register tiles (form_kernels/vector_tile.py, issue 14): a tiled matmul's full tiles
are `vector<16xf32>` accumulators (`vector.load` of the packed B panel, `vector.broadcast` of
A's scalar, `vector.fma`, `vector.store`), remainder rows and columns stay scalar tiles. Checked
on the kernel-level IR (vectors, and an op count that no longer has 256 scalars per tile), in
the reference interpreter at the kernel level, and compiled (threads, both modes) against numpy
and against that interpreter."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_matmul_packing import form_kernels, inputs_and_expected, matmul_program
from xdsl.dialects import func, math, memref, scf, vector
from xdsl.dialects.builtin import ModuleOp, VectorType, bf16, f32, f64, i32
from xdsl.parser import Parser
from xdsl.passes import PassPipeline

import xdsl_multi as xm
from xdsl_multi.dialects import make_context
from xdsl_multi.dialects.multi import KERNEL_ATTR
from xdsl_multi.lowering.llvm_target import kernels_llvm_ir
from xdsl_multi.passes import get_all_passes
from xdsl_multi.runtime.interpreter.interpreter import run_module
from xdsl_multi.transforms.form_kernels.vector_tile import vector_lanes

ROOT = Path(__file__).resolve().parents[2]
V16 = VectorType(f32, [16])


def kernels(module: ModuleOp) -> list[func.FuncOp]:
    return [
        op for op in module.walk() if isinstance(op, func.FuncOp) and KERNEL_ATTR in op.attributes
    ]


def counts(kernel: func.FuncOp) -> dict[type, int]:
    out: dict[type, int] = {}
    for op in kernel.body.walk():
        out[type(op)] = out.get(type(op), 0) + 1
    return out


def test_w4_kernel_is_a_vector_tile_of_bounded_size() -> None:
    """BENCH W4's kernel: 8 rows x 2 vectors of 16 f32 accumulators (iter_args), 16
    vector.fma and 16 vector.store per tile, no scalar fma at all (1024 columns: no
    remainder), and under 120 ops (88; the scalar tile's kernel had 641)."""
    text = (ROOT / "bench" / "programs" / "w4_matmul.mlir").read_text()
    module = form_kernels(text)
    kernel = kernels(module)[0]
    n = counts(kernel)
    assert n.get(vector.FMAOp) == 16 and n.get(vector.StoreOp) == 16
    assert math.FmaOp not in n and memref.StoreOp in n  # the panel fill stays a scalar loop
    assert sum(n.values()) < 120, sum(n.values())
    tile_loop = next(
        op for op in kernel.body.walk() if isinstance(op, scf.ForOp) and op.iter_args
    )
    assert [a.type for a in tile_loop.iter_args] == [V16] * 16


def test_w4_llvm_ir_has_vector_fmas_and_element_aligned_accesses() -> None:
    """convert-to-llvm and the translation: one `llvm.fma.v16f32` per accumulator and
    vector loads and stores aligned to one f32 (a tile column starts at any element)."""
    text = (ROOT / "bench" / "programs" / "w4_matmul.mlir").read_text()
    module = Parser(make_context(), text).parse_module()
    PassPipeline.parse_spec(get_all_passes(), "multi-to-llvm").apply(make_context(), module)
    lines = kernels_llvm_ir(module).splitlines()
    fmas = [line for line in lines if 'call <16 x float> @"llvm.fma.v16f32"' in line]
    assert len(fmas) == 32, "16 in each device's kernel"
    assert not any("llvm.fma.f32" in line for line in lines)
    loads = [line for line in lines if "= load <16 x float>" in line]
    stores = [line for line in lines if line.lstrip().startswith("store <16 x float>")]
    assert len(loads) == 4 and len(stores) == 32, (len(loads), len(stores))
    assert all(line.endswith(", align 4") for line in loads + stores)


def test_the_policy_keeps_narrow_and_other_tiles_scalar() -> None:
    assert vector_lanes(f32, 32) == 16 and vector_lanes(f64, 32) == 8
    assert vector_lanes(f32, 1) == 0  # a remainder column
    assert vector_lanes(f32, 4) == 0 and vector_lanes(i32, 32) == 0 and vector_lanes(bf16, 32) == 0


CASES = [
    {"m": 64, "k": 40, "n": 64},  # even: 2 tile columns of 2 vectors, 4 row tiles per device
    {"m": 53, "k": 37, "n": 75},  # uneven shards, remainder rows and columns, odd K
    {"m": 63, "k": 9, "n": 64},  # device 1's last row is padding inside a full tile
    {"m": 38, "k": 9, "n": 64, "a_t": True},  # A stored transposed
    {"m": 50, "k": 17, "n": 70, "epilogue": True},  # relu(A @ B + bias) on vectors
]
IDS = ["even", "uneven-remainders-odd-k", "padding-row", "a-transposed", "epilogue"]


def vector_fmas(module: ModuleOp) -> int:
    return sum(isinstance(op, vector.FMAOp) for op in module.walk())


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_vector_tiles_match_numpy_in_the_interpreter(case: dict) -> None:
    """The kernel level in the reference interpreter (the oracle for convert-to-llvm)."""
    text = matmul_program(**case)
    inputs, want = inputs_and_expected(**case)
    module = form_kernels(text)
    assert vector_fmas(module) >= 16
    (got,) = run_module(module, [x.copy() for x in inputs])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("mode", ["specialized", "spmd"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_vector_tiles_compiled_match_numpy_and_the_interpreter(case: dict, mode: str) -> None:
    spmd = mode == "spmd"
    text = matmul_program(**case)
    inputs, want = inputs_and_expected(**case)
    module = Parser(make_context(), text).parse_module()
    stages = "multi-to-devidx,devidx-simplify," + (
        "form-kernels{spmd=true}" if spmd else "specialize-devices,form-kernels"
    )
    PassPipeline.parse_spec(get_all_passes(), stages).apply(make_context(), module)
    # SPMD mode versions a kernel by device number where shards are uneven (plain loops, no
    # tiles); wherever there are tiles, the full ones are vectors
    tiled = any(isinstance(op, math.FmaOp | vector.FMAOp) for op in module.walk())
    assert vector_fmas(module) >= 16 if tiled or not spmd else True
    (interpreted,) = run_module(module, [x.copy() for x in inputs])
    with xm.compile(text, backend="threads", spmd=spmd) as program:
        (got,) = program(*inputs)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got, interpreted, rtol=1e-5, atol=1e-5)


def test_b_transposed_has_no_tiles_and_stays_correct() -> None:
    """B stored as (n, k): the reduction runs along contiguous memory, no register tile, no
    vectors (the scalar plain path is unchanged)."""
    case = {"m": 35, "k": 7, "n": 64, "b_t": True}
    text = matmul_program(**case)
    inputs, want = inputs_and_expected(**case)
    assert vector_fmas(form_kernels(text)) == 0
    with xm.compile(text, backend="threads") as program:
        (got,) = program(*inputs)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_f64_tiles_are_vectors_of_eight() -> None:
    """f64: 8 lanes a vector (512 bits), 4 vectors per 32-column tile row."""
    case = {"m": 32, "k": 12, "n": 32}
    text = matmul_program(**case).replace("xf32", "xf64")
    inputs, _ = inputs_and_expected(**case)
    inputs = [x.astype(np.float64) for x in inputs]
    a, b = inputs[0], inputs[1][0]
    module = form_kernels(text)
    fmas = [op for op in module.walk() if isinstance(op, vector.FMAOp)]
    assert fmas and all(op.res.type == VectorType(fmas[0].res.type.element_type, [8])
                        for op in fmas)
    (interpreted,) = run_module(module, [x.copy() for x in inputs])
    with xm.compile(text, backend="threads") as program:
        (got,) = program(*inputs)
    np.testing.assert_allclose(interpreted, a @ b, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got, a @ b, rtol=1e-12, atol=1e-12)

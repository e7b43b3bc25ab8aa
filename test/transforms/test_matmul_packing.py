"""Packing of a tiled matmul's B panel (form-kernels, kernel_codegen.KernelEmitter.pack_panels):
per tile column, the K x cols panel of the operand read with its row stride along k is copied
into a `memref.alloca` before the loop over row tiles, and the tiles read it from there; a
panel over `TilePolicy.pack_bytes` is not packed. Checked on the kernel-level IR, against the
reference interpreter, and compiled (threads, both modes) against numpy."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func, math, memref, scf, vector
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.passes import PassPipeline

import xdsl_multi as xm
from xdsl_multi.dialects import make_context
from xdsl_multi.passes import get_all_passes
from xdsl_multi.runtime.interpreter.interpreter import run_module
from xdsl_multi.transforms.form_kernels.kernel_analysis import TilePolicy
from xdsl_multi.transforms.form_kernels.kernel_codegen import KERNEL_ATTR

LOWER = "multi-to-devidx,devidx-simplify,specialize-devices"
DEVS = '["CPU:0", "CPU:1"]'


def matmul_program(
    m: int, k: int, n: int, *, a_t: bool = False, b_t: bool = False, epilogue: bool = False
) -> str:
    """A (m, k) sharded on rows over 2 devices (uneven when m is odd) @ B (k, n) replicated,
    tinygrad's way (expand, multiply, reduce). `a_t`/`b_t`: the argument is stored transposed
    (A as (k, m), replicated, B as (n, k)); `epilogue`: relu(A @ B + bias)."""
    on, s0 = f"#multi.on<{DEVS}>", f"#multi.shard<{DEVS}, axis = 0>"
    lines = []
    if a_t:
        args = [f"%at: tensor<{k}x{m}xf32, {on}>"]
        lines += [
            f"%ap = tg.permute %at [1, 0] : tensor<{k}x{m}xf32, {on}> -> tensor<{m}x{k}xf32, {on}>",
            f"%a = multi.copy %ap : tensor<{m}x{k}xf32, {on}> -> tensor<{m}x{k}xf32, {s0}>",
        ]
    else:
        args = [f"%a: tensor<{m}x{k}xf32, {s0}>"]
    if b_t:
        args.append(f"%bt: tensor<{n}x{k}xf32, {on}>")
        bt = "%bt"
    else:
        args.append(f"%b: tensor<{k}x{n}xf32, {on}>")
        lines.append(f"%bt = tg.permute %b [1, 0] : tensor<{k}x{n}xf32, {on}> -> tensor<{n}x{k}xf32, {on}>")
        bt = "%bt"
    if epilogue:
        args.append(f"%bias: tensor<1x{n}xf32, {on}>")
    lines += [
        f"%ar = tg.reshape %a : tensor<{m}x{k}xf32, {s0}> -> tensor<{m}x1x{k}xf32, {s0}>",
        f"%ae = tg.expand %ar : tensor<{m}x1x{k}xf32, {s0}> -> tensor<{m}x{n}x{k}xf32, {s0}>",
        f"%br = tg.reshape {bt} : tensor<{n}x{k}xf32, {on}> -> tensor<1x{n}x{k}xf32, {on}>",
        f"%be = tg.expand %br : tensor<1x{n}x{k}xf32, {on}> -> tensor<{m}x{n}x{k}xf32, {on}>",
        f"%bs = multi.copy %be : tensor<{m}x{n}x{k}xf32, {on}> -> tensor<{m}x{n}x{k}xf32, {s0}>",
        f"%p = arith.mulf %ae, %bs : tensor<{m}x{n}x{k}xf32, {s0}>",
        f"%s = tg.reduce add %p [2] : tensor<{m}x{n}x{k}xf32, {s0}> -> tensor<{m}x{n}x1xf32, {s0}>",
        f"%c = tg.reshape %s : tensor<{m}x{n}x1xf32, {s0}> -> tensor<{m}x{n}xf32, {s0}>",
    ]
    result = "%c"
    if epilogue:
        lines += [
            f"%bb = tg.expand %bias : tensor<1x{n}xf32, {on}> -> tensor<{m}x{n}xf32, {on}>",
            f"%bsh = multi.copy %bb : tensor<{m}x{n}xf32, {on}> -> tensor<{m}x{n}xf32, {s0}>",
            f"%y = arith.addf %c, %bsh : tensor<{m}x{n}xf32, {s0}>",
            f"%z = arith.constant dense<0.0> : tensor<{m}x{n}xf32, {s0}>",
            f"%r = arith.maximumf %y, %z : tensor<{m}x{n}xf32, {s0}>",
        ]
        result = "%r"
    body = "\n    ".join(lines)
    return f"""module attributes {{multi.devices = {DEVS}}} {{
  func.func @main({", ".join(args)}) -> tensor<{m}x{n}xf32, {s0}> {{
    {body}
    func.return {result} : tensor<{m}x{n}xf32, {s0}>
  }}
}}"""


def inputs_and_expected(
    m: int, k: int, n: int, *, a_t: bool = False, b_t: bool = False, epilogue: bool = False
) -> tuple[list[np.ndarray], np.ndarray]:
    """Logical inputs (a replicated argument: one copy per device) and numpy's result."""
    rng = np.random.default_rng(m * 1000 + k * 10 + n)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    bias = rng.standard_normal((1, n)).astype(np.float32)
    inputs = [np.stack([a.T.copy()] * 2) if a_t else a, np.stack([b.T.copy() if b_t else b] * 2)]
    want = a.astype(np.float64) @ b.astype(np.float64)
    if epilogue:
        inputs.append(np.stack([bias] * 2))
        want = np.maximum(want + bias, 0.0)
    return inputs, want.astype(np.float32)


def form_kernels(text: str, options: str = "") -> ModuleOp:
    module = Parser(make_context(), text).parse_module()
    PassPipeline.parse_spec(get_all_passes(), f"{LOWER},form-kernels{options}").apply(
        make_context(), module
    )
    module.verify()
    return module


FMAS = (math.FmaOp, vector.FMAOp)
"""A tile's accumulating ops: scalar (remainder tiles) and vector (full tiles)."""


def matmul_kernel(module: ModuleOp) -> func.FuncOp:
    """Device 0's kernel that accumulates with fmas (the tiled matmul)."""
    for op in module.walk():
        kernel = isinstance(op, func.FuncOp) and KERNEL_ATTR in op.attributes
        if kernel and any(isinstance(o, FMAS) for o in op.body.walk()):
            return op
    raise AssertionError("no tiled kernel")


def panels(kernel: func.FuncOp) -> list[memref.AllocaOp]:
    return [op for op in kernel.body.walk() if isinstance(op, memref.AllocaOp)]


def fma_loads(kernel: func.FuncOp) -> set[str]:
    """What the fma operands load from: the kernel argument's name or 'panel' (a vector
    fma's operand: a vector.load, or the broadcast of a load)."""
    out: set[str] = set()
    for op in kernel.body.walk():
        if not isinstance(op, FMAS):
            continue
        for operand in (op.operands[0], op.operands[1]):
            load = operand.owner
            if isinstance(load, vector.BroadcastOp):
                load = load.source.owner
            if isinstance(load, memref.LoadOp | vector.LoadOp):
                src = load.memref if isinstance(load, memref.LoadOp) else load.base
                out.add("panel" if isinstance(src.owner, memref.AllocaOp) else src.name_hint or "?")
    return out


def enclosing_loops(op: Operation) -> int:
    depth, parent = 0, op.parent_op()
    while parent is not None:
        depth += isinstance(parent, scf.ForOp)
        parent = parent.parent_op()
    return depth


def test_b_panel_is_packed_once_per_tile_column() -> None:
    """The panel (K x cols) is filled by a loop nest in the tile-column loop, outside the
    row-tile loop, and every fma reads B from it (A stays a load of the argument)."""
    m, k, n = 34, 13, 9  # 17 rows per device: 4 row tiles of 4 and a remainder row
    kernel = matmul_kernel(form_kernels(matmul_program(m, k, n), "{tile-rows=4 tile-cols=4}"))
    panel, column = panels(kernel)  # full tiles' panel, then the remainder columns' (K x 1)
    assert panel.memref.type == MemRefType(panel.memref.type.element_type, [k, 4])
    assert column.memref.type == MemRefType(column.memref.type.element_type, [k, 1])
    stores = [u.operation for u in panel.memref.uses if isinstance(u.operation, memref.StoreOp)]
    assert len(stores) == 1, "one fill loop nest, not unrolled"
    # the fill sits in j-tile > k > c loops, beside (not inside) the row-tile loop
    assert enclosing_loops(stores[0]) == 3
    fill_nest = stores[0].parent_op().parent_op()
    column_loop = fill_nest.parent_op()
    assert isinstance(column_loop, scf.ForOp)
    siblings = [op for op in column_loop.body.block.ops if isinstance(op, scf.ForOp)]
    assert siblings[0] is fill_nest and len(siblings) == 2  # fill, then the row tiles
    # the full tiles read B from the panel; the remainder row's tiles (no reuse) read b
    full_tiles = siblings[1]
    loads = {
        op.memref.name_hint if not isinstance(op.memref.owner, memref.AllocaOp) else "panel"
        for op in full_tiles.walk()
        if isinstance(op, memref.LoadOp)
    }
    assert loads == {"a", "panel"}
    assert fma_loads(kernel) >= {"a", "panel", "b"}


def test_large_panel_is_not_packed() -> None:
    """A panel over the bound (here K x cols x 4 bytes > pack_bytes) stays a strided load of b:
    the scratch lives on a device thread's stack (8 MiB)."""
    cols = 32
    k = TilePolicy().pack_bytes // (cols * 4) + 1
    kernel = matmul_kernel(form_kernels(matmul_program(32, k, cols), ""))
    assert not panels(kernel)
    assert fma_loads(kernel) == {"a", "b"}
    at_bound = matmul_kernel(form_kernels(matmul_program(32, k - 1, cols), ""))
    assert len(panels(at_bound)) == 1


@pytest.mark.parametrize(
    "case",
    [
        {"m": 16, "k": 8, "n": 8},  # even: 2 row tiles of 4, 2 column tiles
        {"m": 37, "k": 11, "n": 14},  # uneven shards (19, 18 rows), remainders in M and N
        {"m": 38, "k": 9, "n": 10, "a_t": True},  # A stored transposed: not packed
        {"m": 35, "k": 7, "n": 9, "b_t": True},  # B stored transposed: no tiles
        {"m": 36, "k": 10, "n": 11, "epilogue": True},  # relu(A @ B + bias)
    ],
    ids=["even", "uneven-remainders", "a-transposed", "b-transposed", "epilogue"],
)
def test_packed_tiles_match_the_interpreter(case: dict) -> None:
    text = matmul_program(**case)
    inputs, want = inputs_and_expected(**case)
    module = form_kernels(text, "{tile-rows=4 tile-cols=4}")
    if not case.get("b_t"):
        assert panels(matmul_kernel(module))
    (got,) = run_module(module, [x.copy() for x in inputs])
    (ref,) = run_module(Parser(make_context(), text).parse_module(), [x.copy() for x in inputs])
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("mode", ["specialized", "spmd"])
@pytest.mark.parametrize(
    "case",
    [
        {"m": 64, "k": 40, "n": 64},  # per device 4 row tiles of 8, 2 column tiles of 32
        {"m": 53, "k": 37, "n": 75, "epilogue": True},  # uneven, remainders of rows and columns
    ],
    ids=["even", "uneven-epilogue"],
)
def test_packed_tiles_compiled_match_numpy(case: dict, mode: str) -> None:
    """The default 8 x 32 tiles with packing, compiled and run on threads."""
    text = matmul_program(**case)
    inputs, want = inputs_and_expected(**case)
    assert panels(matmul_kernel(form_kernels(text)))
    with xm.compile(text, backend="threads", spmd=mode == "spmd") as program:
        (got,) = program(*inputs)
        (again,) = program(*inputs)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(again, got)


MESH_MATMUL = Path(__file__).resolve().parents[2] / "examples" / "mesh_matmul.mlir"


def mesh_matmul(m: int, k: int, n: int) -> str:
    """examples/mesh_matmul.mlir (A (7, 6) @ B (6, 10) on a 2x2 mesh) at (m, k) @ (k, n)."""
    dims = {7: m, 6: k, 10: n}

    def one(match: re.Match[str]) -> str:
        return "tensor<" + "x".join(str(dims.get(int(p), int(p))) for p in match.group(1).split("x")) + "x"

    return re.sub(r"tensor<((?:\d+x)*\d+)x", one, MESH_MATMUL.read_text())


def test_spmd_mesh_matmul_takes_the_tiled_path() -> None:
    """BENCH W8 in SPMD mode: the mesh bounds are symbolic (`shrink(pad(x, 2d...))`), and
    devidx-simplify's ShrinkOfPadRecoversSource gives the local block back, so the local
    matmul is the specialized mode's tiled, packed kernel on the device's block (before: one
    masked, untiled kernel over the whole logical C per device)."""
    text = mesh_matmul(32, 20, 64)
    module = Parser(make_context(), text).parse_module()
    PassPipeline.parse_spec(
        get_all_passes(), "multi-to-devidx,devidx-simplify,form-kernels{spmd=true}"
    ).apply(make_context(), module)
    kernel = matmul_kernel(module)
    out = kernel.function_type.inputs.data[len(kernel.function_type.inputs.data) - 1]
    assert isinstance(out, MemRefType) and out.get_shape() == (16, 32)
    assert len(panels(kernel)) == 1


@pytest.mark.parametrize("shape", [(32, 20, 64), (37, 21, 70)], ids=["even", "uneven"])
def test_spmd_mesh_matmul_compiled_matches_numpy(shape: tuple[int, int, int]) -> None:
    """SPMD mode's tiled mesh matmul (specialized mode: test_compiled_mesh_programs.py)."""
    m, k, n = shape
    rng = np.random.default_rng(m + k + n)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    want = (a.astype(np.float64) @ b).astype(np.float32)
    with xm.compile(mesh_matmul(m, k, n), backend="threads", spmd=True) as program:
        c, gathered = program(a, b)
    np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gathered, np.stack([want] * 4), rtol=1e-4, atol=1e-4)

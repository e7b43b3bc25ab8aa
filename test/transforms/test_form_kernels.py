"""form-kernels keeps every program's meaning and keeps to the kernel-level contract
(docs/kernel-level.md): the reference interpreter gives the same logical outputs for the
multi-level program and for its kernels (float rtol 1e-5).

- every example and every scaled-down benchmark program through multi-to-devidx,
  devidx-simplify, specialize-devices and form-kernels;
- every tg op, Invalid pads and the other Invalid cases on their own, as small device-level
  functions (a module that is one `func.func @main` runs as one device);
- register tiles with remainders, several kernels per device (materialized reductions), results
  that alias arguments;
- kernel counts (W1, layernorm and matmul: one kernel per device);
- the contract: kernels use only scf/memref.load/store/alloca/arith/math, the host schedule only
  alloc/call/send/recv/dealloc/copy, and every buffer is freed exactly once after its last use
  (the interpreter itself fails on a use after free, an out-of-bounds index or a read of memory
  never written, which holds NaN).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import arith, func, math, memref, scf, vector
from xdsl.dialects.builtin import IndexType, MemRefType, ModuleOp, NoneAttr
from xdsl.parser import Parser
from xdsl.passes import PassPipeline

from xdsl_multi.dialects import devidx, make_context
from xdsl_multi.passes import get_all_passes
from xdsl_multi.runtime.interpreter.interpreter import logical_signature, random_inputs, run_module
from xdsl_multi.runtime.interpreter.kernel_level import run_kernel_module
from xdsl_multi.transforms.form_kernels.kernel_codegen import KERNEL_ATTR

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.mlir"))
LOWER = "multi-to-devidx,devidx-simplify,specialize-devices"
RTOL = ATOL = 1e-5


def load_bench_module():
    spec = importlib.util.spec_from_file_location(
        "bench_programs_for_kernels", ROOT / "test" / "test_bench_programs.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


BENCH = load_bench_module()
SCALED = BENCH.SCALED


def parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def apply(module: ModuleOp, pipeline: str) -> ModuleOp:
    PassPipeline.parse_spec(get_all_passes(), pipeline).apply(make_context(), module)
    module.verify()
    return module


def kernels_of(module: ModuleOp) -> list[func.FuncOp]:
    return [
        op for op in module.walk() if isinstance(op, func.FuncOp) and KERNEL_ATTR in op.attributes
    ]


def device_mains(module: ModuleOp) -> list[func.FuncOp]:
    return [
        op for op in module.walk() if isinstance(op, func.FuncOp) and op.sym_name.data == "main"
    ]


# --------------------------------------------------------------------------------------------
# The contract
# --------------------------------------------------------------------------------------------

KERNEL_OPS = (
    scf.ForOp,
    scf.IfOp,
    scf.YieldOp,
    memref.LoadOp,
    memref.StoreOp,
    memref.AllocaOp,
    # a register tile's vectors (docs/kernel-level.md, "Body")
    memref.CollapseShapeOp,
    vector.LoadOp,
    vector.StoreOp,
    vector.BroadcastOp,
    vector.FMAOp,
)
HOST_OPS = (
    memref.AllocOp,
    func.CallOp,
    devidx.SendOp,
    devidx.RecvOp,
    memref.DeallocOp,
    memref.CopyOp,
    func.ReturnOp,
    arith.ConstantOp,
)
SPMD_HOST_OPS = (
    *HOST_OPS,
    devidx.DeviceNumOp,  # SPMD mode: d, the fetch sources computed from it, the collectives
    devidx.FetchOp,
    devidx.AllreduceOp,
    arith.AddiOp,
    arith.SubiOp,
    arith.MuliOp,
    arith.RemSIOp,
    arith.DivUIOp,
    arith.RemUIOp,
    arith.MinSIOp,
    arith.MaxSIOp,
    arith.CmpiOp,
    arith.SelectOp,
)


def static_identity_memref(t: object) -> bool:
    return (
        isinstance(t, MemRefType)
        and all(d >= 0 for d in t.get_shape())
        and isinstance(t.layout, NoneAttr)
    )


def check_contract(module: ModuleOp) -> None:
    for k in kernels_of(module):
        assert not k.function_type.outputs.data, f"@{k.sym_name.data} returns values"
        for t in k.function_type.inputs.data:
            assert static_identity_memref(t) or isinstance(t, IndexType), t
        for op in k.body.walk():
            ok = isinstance(op, KERNEL_OPS) or op.dialect_name() in ("arith", "math")
            ok = ok or isinstance(op, func.ReturnOp) and not op.operands
            assert ok, f"@{k.sym_name.data} uses {op.name}"
    host_ops = SPMD_HOST_OPS if "devidx.spmd" in module.attributes else HOST_OPS
    for main in device_mains(module):
        block = main.body.block
        ops = list(block.ops)
        for op in ops:
            assert isinstance(op, host_ops), f"the host schedule uses {op.name}"
        returned = set(ops[-1].operands)
        freed: dict[object, int] = {}
        for pos, op in enumerate(ops):
            for v in op.operands:
                assert v not in freed, f"{op.name} uses a buffer freed by op {freed[v]}"
            if isinstance(op, memref.DeallocOp):
                v = op.memref
                assert v not in block.args and v not in returned, "frees an argument or result"
                freed[v] = pos
        for pos, op in enumerate(ops):
            if isinstance(op, memref.AllocOp | devidx.RecvOp | devidx.FetchOp | devidx.AllreduceOp):
                v = op.results[0]
                assert v in freed or v in returned, f"{op.name} never freed"
                if v in freed:  # only other deallocs between its last use and its dealloc
                    uses = [p for p, o in enumerate(ops) if v in o.operands]
                    last = max([pos] + [p for p in uses if p != freed[v]])
                    between = ops[last + 1 : freed[v]]
                    assert all(isinstance(o, memref.DeallocOp) for o in between), "freed late"
        assert len(returned) == len(ops[-1].operands), "results alias"
        assert not (returned & set(block.args)), "a result is an argument"


def run_both(text: str, pipeline: str, seed: int = 0, inputs: list[np.ndarray] | None = None):
    before = parse(text)
    if inputs is None:
        inputs = random_inputs(logical_signature(before), seed)
    want = run_module(before, [a.copy() for a in inputs])
    after = apply(parse(text), pipeline)
    check_contract(after)
    got = run_module(after, [a.copy() for a in inputs])
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g.shape == w.shape and g.dtype == w.dtype, (i, g.shape, w.shape, g.dtype, w.dtype)
        if g.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL, err_msg=f"result {i}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"result {i}")
    return after


# --------------------------------------------------------------------------------------------
# Whole programs
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example(path: Path) -> None:
    run_both(path.read_text(), LOWER + ",form-kernels")


@pytest.mark.parametrize("case", SCALED, ids=[c.id for c in SCALED])
def test_scaled_benchmark(case) -> None:
    inputs = case.make_inputs(np.random.default_rng(sum(case.id.encode())))
    module = run_both(case.text(), LOWER + ",form-kernels", inputs=inputs)
    got = run_kernel_module(module, [a.copy() for a in inputs])
    for g, w in zip(got, case.expected(inputs), strict=True):
        np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL)


# --------------------------------------------------------------------------------------------
# SPMD mode: the kernels built once, d a kernel argument
# --------------------------------------------------------------------------------------------

SPMD = "multi-to-devidx,devidx-simplify,form-kernels{spmd=true}"


def same_kernels_on_every_device(module: ModuleOp) -> None:
    """SPMD mode: ONE module for every device: no device modules, the kernels once (with
    bodies), one host schedule `@main` in which d is `devidx.device_num`, `devidx.spmd`."""
    assert "devidx.spmd" in module.attributes
    assert not [m for m in module.body.block.ops if isinstance(m, ModuleOp)]
    kernels = kernels_of(module)
    assert all(k.body.blocks for k in kernels)
    assert len({k.sym_name.data for k in kernels}) == len(kernels)
    assert len(device_mains(module)) == 1
    main = device_mains(module)[0]
    assert not any(isinstance(op, devidx.SendOp | devidx.RecvOp) for op in main.body.walk())


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_spmd_example(path: Path) -> None:
    same_kernels_on_every_device(run_both(path.read_text(), SPMD))


@pytest.mark.parametrize("case", SCALED, ids=[c.id for c in SCALED])
def test_spmd_scaled_benchmark(case) -> None:
    inputs = case.make_inputs(np.random.default_rng(sum(case.id.encode())))
    module = run_both(case.text(), SPMD, inputs=inputs)
    same_kernels_on_every_device(module)
    for g, w in zip(run_kernel_module(module, inputs), case.expected(inputs), strict=True):
        np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize(
    "case_id, per_device, takes_d",
    [
        ("w1_elementwise", 1, False),
        ("w2_layernorm", 1, False),
        ("w3_sum", 2, False),
        ("w4_matmul", 1, False),
        ("c1_chain", 1, False),
        ("w7_uneven", 1, True),
    ],
)
def test_spmd_kernel_counts(case_id: str, per_device: int, takes_d: bool) -> None:
    """The same kernel counts as specialized; d stays a kernel argument only where the
    element still depends on it (W7's padding rows of the last device)."""
    case = next(c for c in SCALED if c.id == case_id)
    module = apply(parse(case.text()), SPMD)
    counts = kernel_counts(module)
    assert counts and all(c == per_device for c in counts), counts
    index_args = [
        t for k in kernels_of(module) for t in k.function_type.inputs.data if isinstance(t, IndexType)
    ]
    assert bool(index_args) == takes_d


@pytest.mark.parametrize("allreduce", ["naive", "ring", "all2all"])
@pytest.mark.parametrize("case_id", ["w5_megatron_mlp", "w6_allreduce_n4"])
def test_spmd_kernels_have_no_masked_loads(case_id: str, allreduce: str) -> None:
    """The SPMD kernels have no more bounds checks (clamps, selects) than the specialized: a
    reduction over a window that moves with d loops over the window (W5's second matmul,
    register-tiled), and a gather whose pieces land where d says branches on d into one
    version per device with plain copy loops (W6's ring and all2all)."""
    case = next(c for c in SCALED if c.id == case_id)
    pipeline = f"multi-to-devidx{{allreduce={allreduce} ring-threshold=0}},devidx-simplify,"
    specialized = apply(parse(case.text()), pipeline + "specialize-devices,form-kernels")
    spmd = apply(parse(case.text()), pipeline + "form-kernels{spmd=true}")

    def checks(module: ModuleOp) -> int:
        return sum(
            isinstance(op, arith.MaxSIOp | arith.MinSIOp | arith.SelectOp)
            for k in kernels_of(module)
            for op in k.body.walk()
        )

    # an SPMD kernel may branch into one version per device, each with the checks of the
    # specialized kernel: none where it has none
    assert checks(spmd) <= len(kernel_counts(spmd)) * checks(specialized)
    inputs = case.make_inputs(np.random.default_rng(1))
    for g, w in zip(run_module(spmd, inputs), case.expected(inputs), strict=True):
        np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize(
    "text, message",
    [
        (
            (
                "module { func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {"
                " func.return %x : tensor<4xf32> } }"
            ),
            "has no multi.devices",
        ),
        (
            (
                'module attributes {multi.devices = ["CPU:0"]} { builtin.module @device_0'
                " attributes {devidx.device = 0 : i64} {"
                " func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {"
                " func.return %x : tensor<4xf32> } } }"
            ),
            "already specialized per device",
        ),
        (
            (
                'module attributes {multi.devices = ["CPU:0", "CPU:1"]} {'
                " func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {"
                " %c2 = arith.constant 2 : index  %d = devidx.device_num : index"
                " %s = arith.addi %d, %c2 : index"
                " %f = devidx.fetch %x from %s : tensor<4xf32>  func.return %f : tensor<4xf32> } }"
            ),
            "fetches from device 2, outside [0, 2)",
        ),
    ],
)
def test_spmd_rejects(text: str, message: str) -> None:
    from xdsl.utils.exceptions import PassFailedException

    with pytest.raises(PassFailedException, match=re.escape(message)):
        apply(parse(text), "form-kernels{spmd=true}")


def kernel_counts(module: ModuleOp) -> list[int]:
    """Per device, the kernels it has (SPMD mode: every device the same, once)."""
    if "devidx.spmd" in module.attributes:
        devices = module.attributes["multi.devices"]
        return [len(kernels_of(module))] * len(devices.data)  # type: ignore[attr-defined]
    return [
        len([op for op in m.walk() if isinstance(op, func.FuncOp) and KERNEL_ATTR in op.attributes])
        for m in module.body.block.ops
        if isinstance(m, ModuleOp)
    ]


@pytest.mark.parametrize(
    "case_id, per_device",
    [
        ("w1_elementwise", 1),
        ("w2_layernorm", 1),
        ("w4_matmul", 1),
        ("c1_chain", 1),
        ("w7_uneven", 1),
    ],
)
def test_kernel_counts(case_id: str, per_device: int) -> None:
    case = next(c for c in SCALED if c.id == case_id)
    module = apply(parse(case.text()), LOWER + ",form-kernels")
    counts = kernel_counts(module)
    assert counts and all(c == per_device for c in counts), counts


def test_layernorm_is_one_multireduce_kernel() -> None:
    """Two reductions and the output loop inside the row loop."""
    module = apply(
        parse((ROOT / "examples" / "layernorm.mlir").read_text()), LOWER + ",form-kernels"
    )
    (k0, _) = kernels_of(module)
    (row,) = [op for op in k0.body.block.ops if isinstance(op, scf.ForOp)]
    inner = [op for op in row.body.block.ops if isinstance(op, scf.ForOp)]
    assert [len(op.results) for op in inner] == [1, 1, 0]


def test_matmul_is_register_tiled() -> None:
    """i, k, j over a tile of accumulators: the reduction loop carries rows x cols values."""
    case = next(c for c in SCALED if c.id == "w4_matmul")
    module = apply(parse(case.text()), LOWER + ",form-kernels{tile-rows=2 tile-cols=4}")
    k0 = kernels_of(module)[0]
    carried = sorted(len(op.results) for op in k0.body.walk() if isinstance(op, scf.ForOp))
    assert carried[-1] == 8
    assert any(isinstance(op, math.FmaOp) for op in k0.body.walk())


# --------------------------------------------------------------------------------------------
# One op at a time (device-level functions)
# --------------------------------------------------------------------------------------------


def single(args: str, results: str, body: str, devices: bool = False) -> str:
    attrs = ' attributes {multi.devices = ["CPU:0"]}' if devices else ""
    return f"""module{attrs} {{
  func.func @main({args}) -> ({results}) {{
{body}
  }}
}}"""


OP_CASES: dict[str, str] = {
    "reshape-split": single(
        "%x: tensor<4x6xf32>",
        "tensor<2x12xf32>",
        """    %r = tg.reshape %x : tensor<4x6xf32> -> tensor<2x12xf32>
    func.return %r : tensor<2x12xf32>""",
    ),
    "reshape-regroup": single(
        "%x: tensor<4x6xf32>",
        "tensor<3x8xf32>",
        """    %e = math.exp %x : tensor<4x6xf32>
    %r = tg.reshape %e : tensor<4x6xf32> -> tensor<3x8xf32>
    func.return %r : tensor<3x8xf32>""",
    ),
    "reshape-unit-axes": single(
        "%x: tensor<4x6xf32>",
        "tensor<4x1x6x1xf32>",
        """    %r = tg.reshape %x : tensor<4x6xf32> -> tensor<4x1x6x1xf32>
    func.return %r : tensor<4x1x6x1xf32>""",
    ),
    "permute": single(
        "%x: tensor<2x3x4xf32>",
        "tensor<4x2x3xf32>",
        """    %p = tg.permute %x [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
    func.return %p : tensor<4x2x3xf32>""",
    ),
    "expand": single(
        "%x: tensor<1x4xf32>, %y: tensor<3x1xf32>",
        "tensor<3x4xf32>",
        """    %a = tg.expand %x : tensor<1x4xf32> -> tensor<3x4xf32>
    %b = tg.expand %y : tensor<3x1xf32> -> tensor<3x4xf32>
    %s = arith.addf %a, %b : tensor<3x4xf32>
    func.return %s : tensor<3x4xf32>""",
    ),
    "pad-value": single(
        "%x: tensor<3x4xf32>",
        "tensor<6x5xf32>",
        """    %p = tg.pad %x [[1, 2], [0, 1]] value 1.5 : tensor<3x4xf32> -> tensor<6x5xf32>
    %one = arith.constant dense<1.0> : tensor<6x5xf32>
    %s = arith.addf %p, %one : tensor<6x5xf32>
    func.return %s : tensor<6x5xf32>""",
    ),
    "pad-value-int-and-bool": single(
        "%x: tensor<3xi32>, %b: tensor<3xi1>",
        "tensor<5xi32>, tensor<5xi1>",
        """    %p = tg.pad %x [[2, 0]] value -7 : tensor<3xi32> -> tensor<5xi32>
    %q = tg.pad %b [[0, 2]] value true : tensor<3xi1> -> tensor<5xi1>
    func.return %p, %q : tensor<5xi32>, tensor<5xi1>""",
    ),
    "pad-invalid-stored-as-zero": single(
        "%x: tensor<3x4xf32>",
        "tensor<5x4xf32>",
        """    %p = tg.pad %x [[1, 1], [0, 0]] invalid : tensor<3x4xf32> -> tensor<5x4xf32>
    %one = arith.constant dense<1.0> : tensor<5x4xf32>
    %s = arith.addf %p, %one : tensor<5x4xf32>
    func.return %s : tensor<5x4xf32>""",
    ),
    "pad-invalid-reduce-identity": single(
        "%x: tensor<3x4xf32>",
        "tensor<1x6xf32>, tensor<1x6xf32>, tensor<5x1xf32>",
        """    %p = tg.pad %x [[1, 1], [2, 0]] invalid : tensor<3x4xf32> -> tensor<5x6xf32>
    %s = tg.reduce add %p [0] : tensor<5x6xf32> -> tensor<1x6xf32>
    %m = tg.reduce max %p [0] : tensor<5x6xf32> -> tensor<1x6xf32>
    %r = tg.reduce mul %p [1] : tensor<5x6xf32> -> tensor<5x1xf32>
    func.return %s, %m, %r : tensor<1x6xf32>, tensor<1x6xf32>, tensor<5x1xf32>""",
    ),
    "pad-invalid-where-picks-valid-side": single(
        "%x: tensor<3xf32>, %y: tensor<5xf32>",
        "tensor<5xf32>, tensor<5xf32>",
        """    %p = tg.pad %x [[1, 1]] invalid : tensor<3xf32> -> tensor<5xf32>
    %c = tg.cmp lt %y, %p : tensor<5xf32> -> tensor<5xi1>
    %w = tg.where %c, %p, %y : tensor<5xi1>, tensor<5xf32>
    %zero = arith.constant dense<0.0> : tensor<5xf32>
    %c2 = tg.cmp gt %y, %zero : tensor<5xf32> -> tensor<5xi1>
    %w2 = tg.where %c2, %y, %p : tensor<5xi1>, tensor<5xf32>
    func.return %w, %w2 : tensor<5xf32>, tensor<5xf32>""",
    ),
    "pad-invalid-then-shrink-back": single(
        "%x: tensor<4x3xf32>",
        "tensor<2x3xf32>",
        """    %p = tg.pad %x [[4, 0], [0, 0]] invalid : tensor<4x3xf32> -> tensor<8x3xf32>
    %s = tg.shrink %p [[3, 5], [0, 3]] : tensor<8x3xf32> -> tensor<2x3xf32>
    %e = math.exp %s : tensor<2x3xf32>
    func.return %e : tensor<2x3xf32>""",
    ),
    "pad-invalid-under-reshape": single(
        "%x: tensor<2x3xf32>",
        "tensor<2x8xf32>",
        """    %p = tg.pad %x [[1, 1], [0, 1]] invalid : tensor<2x3xf32> -> tensor<4x4xf32>
    %r = tg.reshape %p : tensor<4x4xf32> -> tensor<2x8xf32>
    %n = arith.negf %r : tensor<2x8xf32>
    func.return %n : tensor<2x8xf32>""",
    ),
    "shrink": single(
        "%x: tensor<4x6xf32>",
        "tensor<2x3xf32>",
        """    %s = tg.shrink %x [[1, 3], [2, 5]] : tensor<4x6xf32> -> tensor<2x3xf32>
    func.return %s : tensor<2x3xf32>""",
    ),
    "flip": single(
        "%x: tensor<3x4xf32>",
        "tensor<3x4xf32>, tensor<12xf32>",
        """    %f = tg.flip %x [0] : tensor<3x4xf32>
    %g = tg.flip %x [0, 1] : tensor<3x4xf32>
    %r = tg.reshape %g : tensor<3x4xf32> -> tensor<12xf32>
    func.return %f, %r : tensor<3x4xf32>, tensor<12xf32>""",
    ),
    "reduce-float": single(
        "%x: tensor<3x4x5xf32>",
        "tensor<1x4x1xf32>, tensor<3x1x5xf32>, tensor<1x1x1xf32>",
        """    %a = tg.reduce add %x [0, 2] : tensor<3x4x5xf32> -> tensor<1x4x1xf32>
    %m = tg.reduce max %x [1] : tensor<3x4x5xf32> -> tensor<3x1x5xf32>
    %p = tg.reduce mul %x [0, 1, 2] : tensor<3x4x5xf32> -> tensor<1x1x1xf32>
    func.return %a, %m, %p : tensor<1x4x1xf32>, tensor<3x1x5xf32>, tensor<1x1x1xf32>""",
    ),
    "reduce-int-and-bool": single(
        "%x: tensor<3x4xi32>, %b: tensor<3x4xi1>",
        "tensor<3x1xi32>, tensor<1x4xi32>, tensor<3x1xi1>, tensor<1x4xi1>, tensor<1x1xi1>",
        """    %s = tg.reduce add %x [1] : tensor<3x4xi32> -> tensor<3x1xi32>
    %m = tg.reduce max %x [0] : tensor<3x4xi32> -> tensor<1x4xi32>
    %p = tg.reduce add %b [1] : tensor<3x4xi1> -> tensor<3x1xi1>
    %o = tg.reduce max %b [0] : tensor<3x4xi1> -> tensor<1x4xi1>
    %a = tg.reduce mul %b [0, 1] : tensor<3x4xi1> -> tensor<1x1xi1>
    func.return %s, %m, %p, %o, %a : tensor<3x1xi32>, tensor<1x4xi32>, tensor<3x1xi1>, tensor<1x4xi1>, tensor<1x1xi1>""",
    ),
    "reduce-f16-accumulates-in-f32": single(
        "%x: tensor<4x64xf16>",
        "tensor<4x1xf16>",
        """    %s = tg.reduce add %x [1] : tensor<4x64xf16> -> tensor<4x1xf16>
    func.return %s : tensor<4x1xf16>""",
    ),
    "contiguous-stores-invalid-as-zero": single(
        "%x: tensor<2x3xf32>",
        "tensor<3x3xf32>",
        """    %p = tg.pad %x [[0, 1], [0, 0]] invalid : tensor<2x3xf32> -> tensor<3x3xf32>
    %c = tg.contiguous %p : tensor<3x3xf32>
    %one = arith.constant dense<1.0> : tensor<3x3xf32>
    %s = arith.addf %c, %one : tensor<3x3xf32>
    func.return %s : tensor<3x3xf32>""",
    ),
    "cmp": single(
        "%x: tensor<6xf32>, %y: tensor<6xf32>, %i: tensor<6xi32>, %j: tensor<6xi32>, %b: tensor<6xi1>, %c: tensor<6xi1>",
        "tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>",
        """    %0 = tg.cmp lt %x, %y : tensor<6xf32> -> tensor<6xi1>
    %1 = tg.cmp ne %x, %x : tensor<6xf32> -> tensor<6xi1>
    %2 = tg.cmp ge %i, %j : tensor<6xi32> -> tensor<6xi1>
    %3 = tg.cmp eq %i, %j : tensor<6xi32> -> tensor<6xi1>
    %4 = tg.cmp lt %b, %c : tensor<6xi1> -> tensor<6xi1>
    %5 = tg.cmp le %b, %c : tensor<6xi1> -> tensor<6xi1>
    func.return %0, %1, %2, %3, %4, %5 : tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>""",
    ),
    "where": single(
        "%c: tensor<2x3xi1>, %x: tensor<2x3xf32>, %y: tensor<2x3xf32>",
        "tensor<2x3xf32>",
        """    %w = tg.where %c, %x, %y : tensor<2x3xi1>, tensor<2x3xf32>
    func.return %w : tensor<2x3xf32>""",
    ),
    "cast": single(
        "%x: tensor<8xf32>, %i: tensor<8xi32>, %b: tensor<8xi1>",
        "tensor<8xi32>, tensor<8xf32>, tensor<8xi1>, tensor<8xf32>, tensor<8xi8>, tensor<8xf64>, tensor<8xi32>, tensor<8xf16>",
        """    %big = arith.constant dense<1.0e10> : tensor<8xf32>
    %xb = arith.mulf %x, %big : tensor<8xf32>
    %0 = tg.cast %xb : tensor<8xf32> -> tensor<8xi32>
    %1 = tg.cast %i : tensor<8xi32> -> tensor<8xf32>
    %2 = tg.cast %x : tensor<8xf32> -> tensor<8xi1>
    %3 = tg.cast %b : tensor<8xi1> -> tensor<8xf32>
    %hundred = arith.constant dense<100> : tensor<8xi32>
    %ih = arith.muli %i, %hundred : tensor<8xi32>
    %4 = tg.cast %ih : tensor<8xi32> -> tensor<8xi8>
    %5 = tg.cast %x : tensor<8xf32> -> tensor<8xf64>
    %6 = tg.cast %b : tensor<8xi1> -> tensor<8xi32>
    %7 = tg.cast %x : tensor<8xf32> -> tensor<8xf16>
    func.return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<8xi32>, tensor<8xf32>, tensor<8xi1>, tensor<8xf32>, tensor<8xi8>, tensor<8xf64>, tensor<8xi32>, tensor<8xf16>""",
    ),
    "arith-and-math-chain": single(
        "%x: tensor<3x4xf32>, %y: tensor<3x4xf32>",
        "tensor<3x4xf32>",
        """    %a = arith.mulf %x, %y : tensor<3x4xf32>
    %e = math.exp %a : tensor<3x4xf32>
    %m = arith.maximumf %e, %y : tensor<3x4xf32>
    %d = arith.divf %m, %x : tensor<3x4xf32>
    %t = math.tanh %d : tensor<3x4xf32>
    func.return %t : tensor<3x4xf32>""",
    ),
    "non-splat-constant": single(
        "%x: tensor<2x3xf32>",
        "tensor<2x3xf32>",
        """    %c = arith.constant dense<[[1.0, 2.0, 3.0], [-4.0, 5.5, 0.0]]> : tensor<2x3xf32>
    %s = arith.addf %x, %c : tensor<2x3xf32>
    func.return %s : tensor<2x3xf32>""",
    ),
    "select-scalar-condition": single(
        "%x: tensor<3xf32>, %y: tensor<3xf32>",
        "tensor<3xf32>",
        """    %t = arith.constant false
    %s = arith.select %t, %x, %y : tensor<3xf32>
    func.return %s : tensor<3xf32>""",
    ),
    "devidx-invalid": single(
        "%x: tensor<3xf32>",
        "tensor<3xf32>, tensor<1xf32>",
        """    %i = devidx.invalid : tensor<3xf32>
    %s = arith.addf %x, %i : tensor<3xf32>
    %r = tg.reduce add %i [0] : tensor<3xf32> -> tensor<1xf32>
    func.return %s, %r : tensor<3xf32>, tensor<1xf32>""",
        devices=True,
    ),
    "rank-0": single(
        "%x: tensor<f32>",
        "tensor<f32>",
        """    %e = math.exp %x : tensor<f32>
    func.return %e : tensor<f32>""",
    ),
    "empty-tensors": single(
        "%x: tensor<3x4xf32>",
        "tensor<0x4xf32>, tensor<1x4xf32>, tensor<4x1xf32>",
        """    %s = tg.shrink %x [[1, 1], [0, 4]] : tensor<3x4xf32> -> tensor<0x4xf32>
    %e = math.exp %s : tensor<0x4xf32>
    %r = tg.reduce add %s [0] : tensor<0x4xf32> -> tensor<1x4xf32>
    %p = tg.permute %s [1, 0] : tensor<0x4xf32> -> tensor<4x0xf32>
    %m = tg.reduce max %p [1] : tensor<4x0xf32> -> tensor<4x1xf32>
    func.return %e, %r, %m : tensor<0x4xf32>, tensor<1x4xf32>, tensor<4x1xf32>""",
    ),
    "concatenate-by-padding": single(
        "%x: tensor<2x3xf32>, %y: tensor<2x5xf32>",
        "tensor<2x8xf32>, tensor<4x8xf32>",
        """    %a = tg.pad %x [[0, 0], [0, 5]] value 0.0 : tensor<2x3xf32> -> tensor<2x8xf32>
    %b = tg.pad %y [[0, 0], [3, 0]] value 0.0 : tensor<2x5xf32> -> tensor<2x8xf32>
    %c = arith.addf %a, %b : tensor<2x8xf32>
    %p = tg.pad %c [[1, 1], [0, 0]] invalid : tensor<2x8xf32> -> tensor<4x8xf32>
    %e = math.exp %p : tensor<4x8xf32>
    func.return %c, %e : tensor<2x8xf32>, tensor<4x8xf32>""",
    ),
    "reduction-under-invalid-padding": single(
        "%x: tensor<6x5xf32>",
        "tensor<6x1xf32>",
        """    %s = tg.shrink %x [[0, 3], [0, 5]] : tensor<6x5xf32> -> tensor<3x5xf32>
    %q = arith.mulf %s, %s : tensor<3x5xf32>
    %r = tg.reduce add %q [1] : tensor<3x5xf32> -> tensor<3x1xf32>
    %p = tg.pad %r [[0, 3], [0, 0]] invalid : tensor<3x1xf32> -> tensor<6x1xf32>
    func.return %p : tensor<6x1xf32>""",
    ),
    "layernorm-of-padded-rows": single(
        "%x0: tensor<3x16xf32>",
        "tensor<5x16xf32>",
        """    %x = tg.pad %x0 [[0, 2], [0, 0]] invalid : tensor<3x16xf32> -> tensor<5x16xf32>
    %inv_n = arith.constant dense<0.0625> : tensor<5x1xf32>
    %eps = arith.constant dense<1.0e-05> : tensor<5x1xf32>
    %sum = tg.reduce add %x [1] : tensor<5x16xf32> -> tensor<5x1xf32>
    %mu = arith.mulf %sum, %inv_n : tensor<5x1xf32>
    %mue = tg.expand %mu : tensor<5x1xf32> -> tensor<5x16xf32>
    %d = arith.subf %x, %mue : tensor<5x16xf32>
    %d2 = arith.mulf %d, %d : tensor<5x16xf32>
    %ssq = tg.reduce add %d2 [1] : tensor<5x16xf32> -> tensor<5x1xf32>
    %var = arith.mulf %ssq, %inv_n : tensor<5x1xf32>
    %ve = arith.addf %var, %eps : tensor<5x1xf32>
    %rstd = math.rsqrt %ve : tensor<5x1xf32>
    %rstde = tg.expand %rstd : tensor<5x1xf32> -> tensor<5x16xf32>
    %y = arith.mulf %d, %rstde : tensor<5x16xf32>
    func.return %y : tensor<5x16xf32>""",
    ),
    "results-alias-arguments": single(
        "%x: tensor<3xf32>",
        "tensor<3xf32>, tensor<3xf32>, tensor<3xf32>",
        """    %c = tg.contiguous %x : tensor<3xf32>
    %e = math.exp %x : tensor<3xf32>
    func.return %x, %c, %e : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>""",
    ),
    "same-value-returned-twice": single(
        "%x: tensor<3xf32>",
        "tensor<3xf32>, tensor<3xf32>",
        """    %e = math.exp %x : tensor<3xf32>
    func.return %e, %e : tensor<3xf32>, tensor<3xf32>""",
    ),
    "row-and-column-reductions": single(
        "%x: tensor<5x7xf32>",
        "tensor<5x7xf32>",
        """    %r = tg.reduce add %x [1] : tensor<5x7xf32> -> tensor<5x1xf32>
    %c = tg.reduce max %x [0] : tensor<5x7xf32> -> tensor<1x7xf32>
    %re = tg.expand %r : tensor<5x1xf32> -> tensor<5x7xf32>
    %ce = tg.expand %c : tensor<1x7xf32> -> tensor<5x7xf32>
    %s = arith.subf %re, %ce : tensor<5x7xf32>
    func.return %s : tensor<5x7xf32>""",
    ),
    "reduction-shared-by-two-results": single(
        "%x: tensor<4x9xf32>",
        "tensor<4x1xf32>, tensor<4x9xf32>",
        """    %r = tg.reduce add %x [1] : tensor<4x9xf32> -> tensor<4x1xf32>
    %re = tg.expand %r : tensor<4x1xf32> -> tensor<4x9xf32>
    %d = arith.subf %x, %re : tensor<4x9xf32>
    func.return %r, %d : tensor<4x1xf32>, tensor<4x9xf32>""",
    ),
    "matmul-with-epilogue": single(
        "%a: tensor<7x5xf32>, %b: tensor<5x9xf32>, %bias: tensor<1x9xf32>",
        "tensor<7x9xf32>",
        """    %ar = tg.reshape %a : tensor<7x5xf32> -> tensor<7x1x5xf32>
    %ae = tg.expand %ar : tensor<7x1x5xf32> -> tensor<7x9x5xf32>
    %bt = tg.permute %b [1, 0] : tensor<5x9xf32> -> tensor<9x5xf32>
    %br = tg.reshape %bt : tensor<9x5xf32> -> tensor<1x9x5xf32>
    %be = tg.expand %br : tensor<1x9x5xf32> -> tensor<7x9x5xf32>
    %p = arith.mulf %ae, %be : tensor<7x9x5xf32>
    %s = tg.reduce add %p [2] : tensor<7x9x5xf32> -> tensor<7x9x1xf32>
    %c = tg.reshape %s : tensor<7x9x1xf32> -> tensor<7x9xf32>
    %bb = tg.expand %bias : tensor<1x9xf32> -> tensor<7x9xf32>
    %y = arith.addf %c, %bb : tensor<7x9xf32>
    %z = arith.constant dense<0.0> : tensor<7x9xf32>
    %r = arith.maximumf %y, %z : tensor<7x9xf32>
    func.return %r : tensor<7x9xf32>""",
    ),
    "matmul-of-invalid-padded-rows": single(
        "%a: tensor<3x4xf32>, %b: tensor<4x6xf32>",
        "tensor<5x6xf32>",
        """    %ap = tg.pad %a [[1, 1], [0, 0]] invalid : tensor<3x4xf32> -> tensor<5x4xf32>
    %ar = tg.reshape %ap : tensor<5x4xf32> -> tensor<5x1x4xf32>
    %ae = tg.expand %ar : tensor<5x1x4xf32> -> tensor<5x6x4xf32>
    %bt = tg.permute %b [1, 0] : tensor<4x6xf32> -> tensor<6x4xf32>
    %br = tg.reshape %bt : tensor<6x4xf32> -> tensor<1x6x4xf32>
    %be = tg.expand %br : tensor<1x6x4xf32> -> tensor<5x6x4xf32>
    %p = arith.mulf %ae, %be : tensor<5x6x4xf32>
    %s = tg.reduce add %p [2] : tensor<5x6x4xf32> -> tensor<5x6x1xf32>
    %c = tg.reshape %s : tensor<5x6x1xf32> -> tensor<5x6xf32>
    func.return %c : tensor<5x6xf32>""",
    ),
    "column-sum-tiled": single(
        "%x: tensor<6x37xf32>",
        "tensor<1x37xf32>",
        """    %s = tg.reduce add %x [0] : tensor<6x37xf32> -> tensor<1x37xf32>
    func.return %s : tensor<1x37xf32>""",
    ),
    "matmul-chain": single(
        "%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<5x2xf32>",
        "tensor<3x2xf32>",
        """    %ar = tg.reshape %a : tensor<3x4xf32> -> tensor<3x1x4xf32>
    %ae = tg.expand %ar : tensor<3x1x4xf32> -> tensor<3x5x4xf32>
    %bt = tg.permute %b [1, 0] : tensor<4x5xf32> -> tensor<5x4xf32>
    %br = tg.reshape %bt : tensor<5x4xf32> -> tensor<1x5x4xf32>
    %be = tg.expand %br : tensor<1x5x4xf32> -> tensor<3x5x4xf32>
    %p = arith.mulf %ae, %be : tensor<3x5x4xf32>
    %s = tg.reduce add %p [2] : tensor<3x5x4xf32> -> tensor<3x5x1xf32>
    %h = tg.reshape %s : tensor<3x5x1xf32> -> tensor<3x1x5xf32>
    %he = tg.expand %h : tensor<3x1x5xf32> -> tensor<3x2x5xf32>
    %ct = tg.permute %c [1, 0] : tensor<5x2xf32> -> tensor<2x5xf32>
    %cr = tg.reshape %ct : tensor<2x5xf32> -> tensor<1x2x5xf32>
    %ce = tg.expand %cr : tensor<1x2x5xf32> -> tensor<3x2x5xf32>
    %q = arith.mulf %he, %ce : tensor<3x2x5xf32>
    %t = tg.reduce add %q [2] : tensor<3x2x5xf32> -> tensor<3x2x1xf32>
    %o = tg.reshape %t : tensor<3x2x1xf32> -> tensor<3x2xf32>
    func.return %o : tensor<3x2xf32>""",
    ),
}


@pytest.mark.parametrize("name", sorted(OP_CASES))
def test_op(name: str) -> None:
    run_both(OP_CASES[name], "form-kernels", seed=sum(name.encode()))


@pytest.mark.parametrize("tile", ["{tile-rows=1 tile-cols=1}", "{tile-rows=2 tile-cols=4}", ""])
@pytest.mark.parametrize(
    "name", ["matmul-with-epilogue", "matmul-of-invalid-padded-rows", "column-sum-tiled"]
)
def test_tiles_with_remainders(name: str, tile: str) -> None:
    run_both(OP_CASES[name], "form-kernels" + tile, seed=1)


RANDOM_SEEDS = range(60)


@pytest.mark.parametrize("seed", RANDOM_SEEDS)
def test_random_program(seed: int) -> None:
    """The symbolic-lowering issue's random multi-level programs (test/support), lowered to the
    device level and then to kernels with small tiles (so tiles and their remainders occur)."""
    from pipeline_check import compare
    from random_programs import program_inputs, random_program

    text = random_program(seed).text
    before = parse(text)
    inputs = program_inputs(before, seed)
    want = run_module(before, inputs)
    module = apply(parse(text), LOWER)
    if compare(run_module(module, inputs), want) is not None:
        pytest.skip("the device level already differs (not form-kernels' business)")
    apply(module, "form-kernels{tile-rows=2 tile-cols=3}")
    check_contract(module)
    assert compare(run_module(module, inputs), want) is None


def test_nan_and_infinities_propagate() -> None:
    x = np.array([[np.nan, 1.0, -np.inf], [2.0, np.inf, 3.0]], np.float32)
    text = single(
        "%x: tensor<2x3xf32>",
        "tensor<2x1xf32>, tensor<1x3xf32>",
        """    %m = tg.reduce max %x [1] : tensor<2x3xf32> -> tensor<2x1xf32>
    %s = tg.reduce add %x [0] : tensor<2x3xf32> -> tensor<1x3xf32>
    func.return %m, %s : tensor<2x1xf32>, tensor<1x3xf32>""",
    )
    run_both(text, "form-kernels", inputs=[x])


def test_materialized_reductions_get_their_own_kernels() -> None:
    """A reduction the output loops would recompute (column max under the row loop) and one
    two results need are materialized; layernorm-like row reductions are not."""
    m = apply(parse(OP_CASES["row-and-column-reductions"]), "form-kernels")
    assert len(kernels_of(m)) == 2
    m = apply(parse(OP_CASES["reduction-shared-by-two-results"]), "form-kernels")
    assert len(kernels_of(m)) == 2
    m = apply(parse(OP_CASES["matmul-chain"]), "form-kernels")
    assert len(kernels_of(m)) == 2


def test_matmul_epilogue_is_stored_with_its_matmul() -> None:
    """Megatron's relu(x @ W1) @ W2: the first matmul's kernel applies the relu and stores the
    result the second one reads, instead of every tile of the second recomputing it."""
    case = next(c for c in SCALED if c.id == "w5_megatron_mlp")
    module = apply(parse(case.text()), LOWER + ",form-kernels")
    first, second = kernels_of(module)[:2]
    assert any(isinstance(op, arith.MaximumfOp) for op in first.body.walk())
    assert not any(isinstance(op, arith.MaximumfOp) for op in second.body.walk())


def test_chain_of_row_reductions_stays_linear() -> None:
    """BENCH C1 (x = relu(x*1.01+0.5); x = x - mean(x) repeated): one kernel per device whose
    size grows linearly with the chain (rows needed at many positions go to scratch rows),
    and the results still match."""
    sizes = {}
    for iters in (6, 12):
        text = BENCH.load_gen_c1().c1_program(8, iters, 2)
        module = run_both(text, LOWER + ",form-kernels", seed=iters)
        (k0, _) = kernels_of(module)
        sizes[iters] = sum(1 for _ in k0.body.walk())
        assert any(isinstance(op, memref.AllocaOp) for op in k0.body.walk())
    assert sizes[12] < 2.3 * sizes[6], sizes


@pytest.mark.parametrize("spmd", [False, True])
def test_chain_of_row_reductions_writes_scratch_rows_in_its_reduction_loops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spmd: bool
) -> None:
    """BENCH C1: a row that goes to scratch takes the loop variables of the reduction that
    computes it (tensor_elements._fill_vars), and that reduction's loop writes it: one loop per
    iteration of the chain (plus the first sum and the output row), not two (LLVM's time is
    per loop); the output row reads the last scratch row. Interpreter before/after, and the
    JIT against numpy, in both modes."""
    import xdsl_multi as xm

    iters = 6
    text = BENCH.load_gen_c1().c1_program(16, iters, 2)
    lowering = (
        "multi-to-devidx,devidx-simplify,form-kernels{spmd=true}"
        if spmd
        else LOWER + ",form-kernels"
    )
    module = run_both(text, lowering, seed=iters)
    kernel = kernels_of(module)[0]
    (rows,) = [op for op in kernel.body.walk() if isinstance(op, scf.ForOp)][:1]
    inner = [op for op in rows.body.block.ops if isinstance(op, scf.ForOp)]
    assert len(inner) == iters + 1, len(inner)  # was 2 * iters - 1 (a loop per scratch row)
    # the output row reads the last scratch row: one iteration's work, not all of them again
    # from the input (tensor_elements.reread_from_scratch)
    output = inner[-1]
    assert sum(isinstance(op, arith.MaximumfOp) for op in output.walk()) == 1
    assert not any(
        isinstance(op, memref.LoadOp) and op.memref in kernel.args for op in output.walk()
    )
    scratch_stores = [
        op
        for op in kernel.body.walk()
        if isinstance(op, memref.StoreOp) and isinstance(op.memref.owner, memref.AllocaOp)
    ]
    assert scratch_stores and all(
        isinstance(op.parent_op(), scf.ForOp) and op.parent_op().iter_args  # type: ignore[union-attr]
        for op in scratch_stores
    )
    monkeypatch.setenv("XDSL_MULTI_CACHE_DIR", str(tmp_path))
    x = np.random.default_rng(iters).uniform(-1, 1, size=(16, 16)).astype(np.float32)
    want = x.astype(np.float64)
    for _ in range(iters):
        want = np.maximum(want * np.float64(np.float32(1.01)) + 0.5, 0)
        want = want - want.mean(axis=1, keepdims=True)
    with xm.compile(text, backend="threads", spmd=spmd) as program:
        (got,) = program(x)
    np.testing.assert_allclose(got, want.astype(np.float32), rtol=1e-5, atol=1e-5)


ROW_READ_BY_ITS_OWN_REDUCTION = """
#s0 = #multi.shard<["CPU:0", "CPU:1"], axis = 0>
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<4x8xf32, #s0>) -> tensor<4x8xf32, #s0> {
    %inv = arith.constant dense<1.250000e-01> : tensor<4x1xf32, #s0>
    %s0 = tg.reduce add %x [1] : tensor<4x8xf32, #s0> -> tensor<4x1xf32, #s0>
    %m0 = arith.mulf %s0, %inv : tensor<4x1xf32, #s0>
    %e0 = tg.expand %m0 : tensor<4x1xf32, #s0> -> tensor<4x8xf32, #s0>
    %ex = math.exp %x : tensor<4x8xf32, #s0>
    %ex2 = arith.mulf %ex, %ex : tensor<4x8xf32, #s0>
    %ex3 = arith.addf %ex2, %x : tensor<4x8xf32, #s0>
    %ex4 = math.sin %ex3 : tensor<4x8xf32, #s0>
    %v = arith.subf %ex4, %e0 : tensor<4x8xf32, #s0>
    %s1 = tg.reduce add %v [1] : tensor<4x8xf32, #s0> -> tensor<4x1xf32, #s0>
    %m1 = arith.mulf %s1, %inv : tensor<4x1xf32, #s0>
    %e1 = tg.expand %m1 : tensor<4x1xf32, #s0> -> tensor<4x8xf32, #s0>
    %w = arith.subf %v, %e1 : tensor<4x8xf32, #s0>
    %p = arith.mulf %v, %w : tensor<4x8xf32, #s0>
    %s2 = tg.reduce add %p [1] : tensor<4x8xf32, #s0> -> tensor<4x1xf32, #s0>
    %e2 = tg.expand %s2 : tensor<4x1xf32, #s0> -> tensor<4x8xf32, #s0>
    %out = arith.mulf %v, %e2 : tensor<4x8xf32, #s0>
    func.return %out : tensor<4x8xf32, #s0>
  }
}
"""


def test_a_scratch_row_the_reduction_itself_reads_keeps_its_own_loop() -> None:
    """%v is read at a third position (by %s1) while the element of %s2, which read it at the
    second, is still being built: its scratch row must not take %s2's loop (%s2 needs %m1,
    whose sum reads the row: it would be written inside %s2's own loop; this recursed without
    end), so the row keeps a loop of its own; the results match the interpreter's."""
    module = run_both(ROW_READ_BY_ITS_OWN_REDUCTION, LOWER + ",form-kernels", seed=3)
    kernel = kernels_of(module)[0]
    (store,) = [
        op
        for op in kernel.body.walk()
        if isinstance(op, memref.StoreOp) and isinstance(op.memref.owner, memref.AllocaOp)
    ]
    loop = store.parent_op()
    assert isinstance(loop, scf.ForOp) and not loop.iter_args


def test_pads_split_loops() -> None:
    """Where a pad's bounds check changes, the loop splits: no clamp, no select, and the rows
    of Invalid padding only store zeros (nothing is computed for them)."""
    module = apply(parse(OP_CASES["concatenate-by-padding"]), "form-kernels")
    for k in kernels_of(module):
        names = {op.name for op in k.body.walk()}
        assert not names & {"arith.select", "arith.minsi", "arith.maxsi", "arith.cmpi"}, names
    cat, padded = kernels_of(module)
    assert sum(isinstance(op, scf.ForOp) for op in cat.body.walk()) == 3  # rows, 2 x columns
    rows = [op for op in padded.body.block.ops if isinstance(op, scf.ForOp)]
    assert len(rows) == 3  # padding, the two valid rows, padding
    assert [sum(isinstance(o, math.ExpOp) for o in r.walk()) for r in rows] == [0, 1, 0]


def test_reduction_under_padding_is_not_materialized() -> None:
    """The last device of an uneven split (BENCH W7): rows past the share are Invalid padding;
    the split loop never computes the row sums there, so they stay fused (one kernel)."""
    module = apply(parse(OP_CASES["reduction-under-invalid-padding"]), "form-kernels")
    (kernel,) = kernels_of(module)
    assert sum(isinstance(op, scf.ForOp) for op in kernel.body.block.ops) == 2
    # layernorm over Invalid padding rows: still the multireduce kernel, rows split, no scratch
    module = apply(parse(OP_CASES["layernorm-of-padded-rows"]), "form-kernels")
    (kernel,) = kernels_of(module)
    rows = [op for op in kernel.body.block.ops if isinstance(op, scf.ForOp)]
    assert [sum(isinstance(o, scf.ForOp) for o in r.walk()) for r in rows] == [4, 2]
    assert not any(isinstance(op, memref.AllocaOp) for op in kernel.body.walk())


def test_broadcast_contiguous_is_not_written_out() -> None:
    """The keep-slice copy of W4's replicated operand is a contiguous of an expanded tensor:
    fused, so the kernel reads B itself."""
    case = next(c for c in SCALED if c.id == "w4_matmul")
    module = apply(parse(case.text()), LOWER + ",form-kernels")
    for k in kernels_of(module):
        for t in k.function_type.inputs.data:
            assert isinstance(t, MemRefType) and len(t.get_shape()) == 2, t


def test_dynamic_pad_bounds_are_rejected_when_not_constant() -> None:
    from xdsl.utils.exceptions import PassFailedException

    text = single(
        "%x: tensor<3xf32>",
        "tensor<5xf32>",
        """    %z = arith.constant 0 : index
    %n = arith.addi %z, %z : index
    %p = tg.pad %x [[%n, 2]] value 0.0 : tensor<3xf32> -> tensor<5xf32>
    func.return %p : tensor<5xf32>""",
    )
    with pytest.raises(PassFailedException, match="not a constant"):
        apply(parse(text), "form-kernels")


def test_signature_is_kept() -> None:
    text = OP_CASES["shrink"]
    m = apply(parse(text), "form-kernels")
    assert str(m.attributes["multi.signature"]) == "(tensor<4x6xf32>) -> tensor<2x3xf32>"

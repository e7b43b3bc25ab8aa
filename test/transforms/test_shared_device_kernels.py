"""Specialized form-kernels shares one kernel among devices whose kernels are the same loops but
for their bounds (form_kernels.py `share_kernels_across_devices`, bounds_versions.py
`merge_device_kernels`; issue 14, BENCH W7's cold first call in the default mode): the merged
kernel takes d last and each device's schedule passes its number. Programs that do not qualify
keep a kernel per device. Every program is run by the reference interpreter before (multi
level) and after (kernel level), and compiled on threads, all against numpy."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.passes import PassPipeline

from xdsl_multi.dialects import make_context
from xdsl_multi.dialects.devidx import DEVICE_ATTR
from xdsl_multi.dialects.parsing import parse_mlir
from xdsl_multi.lowering.jit import KernelCache
from xdsl_multi.passes import get_all_passes
from xdsl_multi.pipeline import lower_for_runtime
from xdsl_multi.runtime.interpreter.interpreter import run_module
from xdsl_multi.runtime.program import Program
from xdsl_multi.transforms.form_kernels.kernel_codegen import KERNEL_ATTR

ROOT = Path(__file__).resolve().parents[2]
KERNEL_LEVEL = "multi-to-devidx,devidx-simplify,specialize-devices,form-kernels"


def names(devices: list[int]) -> str:
    return ", ".join(f'"CPU:{i}"' for i in devices)


def row_program(n: int, rows: int, cols: int, body: str, order: list[int] | None = None) -> str:
    """x (rows, cols) sharded on axis 0 over `order` (default 0..n-1) of n devices, then
    `body`: "sumsq" (x * x).sum(axis=1), "maxrow" x - x.max(axis=1), "elementwise" x * x + x;
    the result sharded as x."""
    order = list(range(n)) if order is None else order
    enc = f"#multi.shard<[{names(order)}], axis = 0>"
    full = f"tensor<{rows}x{cols}xf32, {enc}>"
    row = f"tensor<{rows}x1xf32, {enc}>"
    if body == "sumsq":
        out, ops = row, [
            f"%sq = arith.mulf %x, %x : {full}",
            f"%r = tg.reduce add %sq [1] : {full} -> {row}",
        ]
    elif body == "maxrow":
        out, ops = full, [
            f"%m = tg.reduce max %x [1] : {full} -> {row}",
            f"%b = tg.expand %m : {row} -> {full}",
            f"%r = arith.subf %x, %b : {full}",
        ]
    else:
        out, ops = full, [
            f"%sq = arith.mulf %x, %x : {full}",
            f"%r = arith.addf %sq, %x : {full}",
        ]
    lines = "\n    ".join(ops)
    return f"""builtin.module attributes {{multi.devices = [{names(list(range(n)))}]}} {{
  func.func @main(%x: {full}) -> {out} {{
    {lines}
    func.return %r : {out}
  }}
}}
"""


def numpy_of(body: str, x: np.ndarray) -> np.ndarray:
    if body == "sumsq":
        return (x * x).sum(axis=1, keepdims=True)
    if body == "maxrow":
        return x - x.max(axis=1, keepdims=True)
    return x * x + x


def kernel_level(text: str) -> ModuleOp:
    module = parse_mlir(make_context(), text)
    passes = get_all_passes()
    PassPipeline.parse_spec(passes, KERNEL_LEVEL).apply(make_context(), module)
    return module


def device_kernels(module: ModuleOp) -> list[list[func.FuncOp]]:
    """Per device module, its kernels."""
    return [
        [k for k in m.ops if isinstance(k, func.FuncOp) and KERNEL_ATTR in k.attributes]
        for m in module.ops
        if isinstance(m, ModuleOp)
    ]


def same_kernel(a: func.FuncOp, b: func.FuncOp) -> bool:
    """The same signature, attributes and body (kernels of two device modules)."""
    return (
        a.function_type == b.function_type
        and a.attributes == b.attributes
        and a.body.is_structurally_equivalent(b.body)
    )


def distinct_kernels(module: ModuleOp) -> int:
    """How many different kernels the devices hold (identical kernels count once)."""
    seen: list[func.FuncOp] = []
    for kernels in device_kernels(module):
        for k in kernels:
            if not any(same_kernel(k, s) for s in seen):
                seen.append(k)
    return len(seen)


def check_runs(text: str, x: np.ndarray, want: np.ndarray) -> ModuleOp:
    """The program at the multi level and at the kernel level in the interpreter, and
    compiled on threads, against numpy's `want`; returns the kernel-level module."""
    before = run_module(parse_mlir(make_context(), text), [x])[0]
    np.testing.assert_allclose(before, want, rtol=1e-5, atol=1e-5)
    module = kernel_level(text)
    after = run_module(module.clone(), [x])[0]
    np.testing.assert_allclose(after, want, rtol=1e-5, atol=1e-5)
    lowered = parse_mlir(make_context(), text)
    lower_for_runtime(lowered)
    with Program(lowered) as program:
        (got,) = program([x])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=text)
    return module


def test_w7_shape_one_kernel_for_every_device() -> None:
    """W7's shape (scaled): 10 rows over 3 devices are 4, 4 and 2; the last device pads 2
    rows. One kernel for the three devices, taking d last; each schedule passes its number."""
    text = row_program(3, 10, 7, "sumsq")
    x = np.random.default_rng(7).standard_normal((10, 7)).astype(np.float32)
    module = check_runs(text, x, numpy_of("sumsq", x))
    assert distinct_kernels(module) == 1
    for m in module.ops:
        assert isinstance(m, ModuleOp)
        (kernel,) = [k for k in m.ops if isinstance(k, func.FuncOp) and KERNEL_ATTR in k.attributes]
        assert isinstance(kernel.function_type.inputs.data[-1], IndexType)
        calls = [op for op in m.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "main"]
        (call,) = [op for op in calls[0].body.ops if isinstance(op, func.CallOp)]
        d = call.arguments[-1].owner
        assert isinstance(d, arith.ConstantOp) and isinstance(d.value, IntegerAttr)
        device = m.attributes[DEVICE_ATTR]
        assert isinstance(device, IntegerAttr) and d.value.value.data == device.value.data
    # the loops: the rows (with the sum inside) and the padding rows
    (kernel, *_) = device_kernels(module)[0]
    assert sum(isinstance(op, scf.ForOp) for op in kernel.body.block.ops) == 2


def test_w7_itself_one_kernel_compiled_once() -> None:
    """BENCH W7 (1000 rows over 3 devices): the JIT compiles one kernel for the three."""
    text = (ROOT / "bench/programs/w7_uneven.mlir").read_text()
    module = parse_mlir(make_context(), text)
    lower_for_runtime(module)
    cache = KernelCache(disk=False)
    x = np.random.default_rng(0).standard_normal((1000, 999)).astype(np.float32)
    with Program(module, kernel_cache=cache) as program:
        (got,) = program([x])
    assert cache.stats.compiled == 1
    np.testing.assert_allclose(got, (x * x).sum(axis=1, keepdims=True), rtol=1e-4)


def test_even_shards_are_left_alone() -> None:
    """An even shard: every device already runs the same kernel, which takes no d."""
    text = row_program(2, 8, 5, "maxrow")
    x = np.random.default_rng(1).standard_normal((8, 5)).astype(np.float32)
    module = check_runs(text, x, numpy_of("maxrow", x))
    assert distinct_kernels(module) == 1
    for kernels in device_kernels(module):
        for k in kernels:
            assert not any(isinstance(t, IndexType) for t in k.function_type.inputs)


def test_different_schedules_keep_their_kernels() -> None:
    """An uneven shard gathered to device 0: device 0 receives what the others send, so the
    schedules differ and each device keeps its own kernels (none takes d)."""
    n, rows, cols = 3, 7, 4
    shard = f"tensor<{rows}x{cols}xf32, #multi.shard<[{names(list(range(n)))}], axis = 0>>"
    one = f'tensor<{rows}x{cols}xf32, #multi.on<["CPU:0"]>>'
    text = f"""builtin.module attributes {{multi.devices = [{names(list(range(n)))}]}} {{
  func.func @main(%x: {shard}) -> {one} {{
    %c = multi.copy %x : {shard} -> {one}
    %d = arith.addf %c, %c : {one}
    func.return %d : {one}
  }}
}}
"""
    x = np.random.default_rng(2).standard_normal((rows, cols)).astype(np.float32)
    module = check_runs(text, x, x + x)
    for kernels in device_kernels(module):
        for k in kernels:
            assert not any(isinstance(t, IndexType) for t in k.function_type.inputs)


def owned_rows(rows: int, k: int) -> list[int]:
    """Rows each of k devices owns (SPEC §1)."""
    s = -(-rows // k)
    return [max(0, min((j + 1) * s, rows) - min(j * s, rows)) for j in range(k)]


def uneven_case(seed: int) -> tuple[int, int, list[int], int, int, str]:
    """Random program `seed`'s n devices, the k of them (in `order`) x is sharded over, its
    rows and columns, and its body."""
    rng = random.Random(5100 + seed)
    n = rng.randint(2, 4)
    k = rng.randint(2, n) if seed % 3 else n
    order = rng.sample(range(n), k)
    rows = rng.randint(k + 1, 4 * k + 3)
    cols = rng.choice([3, 8, 17])
    body = rng.choice(["sumsq", "maxrow", "elementwise"])
    return n, k, order, rows, cols, body


def shares_one_kernel(n: int, k: int, rows: int) -> bool:
    """The shard covers every device and each owns rows: one kernel for all of them."""
    return k == n and all(owned_rows(rows, k))


@pytest.mark.parametrize("seed", range(12))
def test_random_uneven_rows_match_numpy(seed: int) -> None:
    """Uneven row programs on random device subsets in random order: the interpreter and the
    compiled program agree with numpy. When the shard covers every device and each owns
    rows, the devices hold one kernel in all (the shorter ones' loops get bounds on d)."""
    n, k, order, rows, cols, body = uneven_case(seed)
    text = row_program(n, rows, cols, body, order)
    x = np.random.default_rng(seed).standard_normal((rows, cols)).astype(np.float32)
    module = check_runs(text, x, numpy_of(body, x))
    if shares_one_kernel(n, k, rows):
        assert distinct_kernels(module) == 1, text


def test_random_programs_reach_the_shared_kernel() -> None:
    """The random programs above include uneven ones where every device owns rows."""
    reached = 0
    for seed in range(12):
        n, k, _, rows, _, _ = uneven_case(seed)
        reached += shares_one_kernel(n, k, rows) and len(set(owned_rows(rows, k))) > 1
    assert reached >= 2, reached

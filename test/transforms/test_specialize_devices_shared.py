"""specialize-devices simplifies a fetch-free program once for all devices when the
device-window rules (invalid_windows.py `device_window_patterns`) leave it free of d (issue 14:
BENCH C1's specialize-devices was one full simplification per device). The output is the
text the per-device path gives, the programs mean what the multi-level ones do (interpreter,
then the JIT against numpy in both modes), and the two rules are checked on their own, where
they apply and where they must not."""

from __future__ import annotations

import cProfile
import io
import pstats
from pathlib import Path

import numpy as np
import pass_equivalence as E  # test/support, on pythonpath
import pytest
from bench_sources import load_gen_c1  # test/support, on pythonpath
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from xdsl_multi.dialects import devidx, make_context, tg
from xdsl_multi.dialects.parsing import parse_mlir
from xdsl_multi.runtime.interpreter.interpreter import run_module
from xdsl_multi.transforms.devidx_simplify.devidx_simplify import DevidxSimplify, Simplifier
from xdsl_multi.transforms.devidx_simplify.invalid_windows import device_window_patterns
from xdsl_multi.transforms.multi_to_devidx.multi_to_devidx import MultiToDevidx
from xdsl_multi.transforms.specialize_devices import specialize_devices
from xdsl_multi.transforms.specialize_devices.specialize_devices import SpecializeDevices

ROOT = Path(__file__).resolve().parents[2]
RTOL = ATOL = 1e-5




def c1_numpy(x: np.ndarray, iters: int) -> np.ndarray:
    x = x.astype(np.float32)
    for _ in range(iters):
        x = np.maximum(x * np.float32(1.01) + np.float32(0.5), np.float32(0))
        x = x - x.sum(axis=1, keepdims=True) * np.float32(1 / x.shape[1])
    return x


def spmd_form(text: str) -> ModuleOp:
    module = parse_mlir(make_context(), text)
    MultiToDevidx().apply(Context(), module)
    DevidxSimplify().apply(Context(), module)
    return module


def printed(module: ModuleOp) -> str:
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


def calls(stats: pstats.Stats, name: str) -> int:
    return sum(v[1] for (_, _, fn), v in stats.stats.items() if fn == name)  # type: ignore[attr-defined]


@pytest.mark.parametrize("devices", [2, 3, 4])
def test_row_local_chain_is_simplified_once_for_all_devices(
    devices: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    iters, size = 4, 12  # rows divisible by 2, 3 and 4 devices
    text = load_gen_c1().c1_program(size, iters, devices)
    shared = spmd_form(text)
    run = cProfile.Profile()
    run.enable()
    SpecializeDevices().apply(Context(), shared)
    run.disable()
    stats = pstats.Stats(run)
    assert calls(stats, "_device_copy") == 0  # was one copy, and its simplification, per device
    assert calls(stats, "_shared_program") == 1

    monkeypatch.setattr(specialize_devices, "_shared_program", lambda *_: None)
    each = spmd_form(text)
    SpecializeDevices().apply(Context(), each)
    assert printed(shared) == printed(each)  # the per-device path gives the same text

    modules = [op for op in shared.body.block.ops if isinstance(op, ModuleOp)]
    assert len(modules) == devices
    for module in modules:
        assert not any(isinstance(op, tg.PadOp | tg.ShrinkOp) for op in module.walk())

    x = np.random.default_rng(devices).standard_normal((size, size)).astype(np.float32)
    (want,) = run_module(parse_mlir(make_context(), text), [x])
    (got,) = run_module(shared, [x])
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(np.asarray(got), c1_numpy(x, iters), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("spmd", [False, True])
def test_row_local_chain_compiles_and_runs(spmd: bool, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import xdsl_multi as xm

    monkeypatch.setenv("XDSL_MULTI_CACHE_DIR", str(tmp_path))
    iters, size = 5, 16
    text = load_gen_c1().c1_program(size, iters, 2)
    program = xm.compile(text, spmd=spmd)
    x = np.random.default_rng(7).standard_normal((size, size)).astype(np.float32)
    got = program(x)
    got = got[0] if isinstance(got, tuple | list) else got
    np.testing.assert_allclose(np.asarray(got), c1_numpy(x, iters), rtol=1e-4, atol=1e-4)


def test_uneven_shards_keep_one_copy_per_device() -> None:
    """Uneven shards (7 rows over 2 devices: 4 and 3) keep d in their windows: each device is
    simplified on its own, as before."""
    text = load_gen_c1().c1_program(7, 2, 2)
    module = spmd_form(text)
    run = cProfile.Profile()
    run.enable()
    SpecializeDevices().apply(Context(), module)
    run.disable()
    assert calls(pstats.Stats(run), "_device_copy") == 2
    x = np.random.default_rng(3).standard_normal((7, 7)).astype(np.float32)
    (got,) = run_module(module, [x])
    np.testing.assert_allclose(np.asarray(got), c1_numpy(x, 2), rtol=1e-4, atol=1e-4)


SPMD_HEADER = "builtin.module {\n"


def _window_program(body: str, result: str) -> str:
    """An SPMD program of x: tensor<4x8xf32> (device d's rows of an 8x8 value) whose window
    bounds are %lo = 4d, %hi = 4 - 4d, %end = 4d + 4."""
    return (
        SPMD_HEADER
        + f"""  func.func @main(%x: tensor<4x8xf32>, %c: tensor<4x1xf32>) -> {result} {{
    %d = devidx.device_num : index
    %four = arith.constant 4 : index
    %one = arith.constant 1 : index
    %lo = arith.muli %d, %four : index
    %e = arith.subi %one, %d : index
    %hi = arith.muli %e, %four : index
    %end = arith.addi %lo, %four : index
{body}
  }}
}}
"""
    )


EXPAND_THEN_SHRINK = """    %p = tg.pad %c [[%lo, %hi], [0, 0]] invalid : tensor<4x1xf32> -> tensor<8x1xf32>
    %q = tg.expand %p : tensor<8x1xf32> -> tensor<8x8xf32>
    %px = tg.pad %x [[%lo, %hi], [0, 0]] invalid : tensor<4x8xf32> -> tensor<8x8xf32>
    %s = arith.subf %px, %q : tensor<8x8xf32>
    %r = tg.shrink %s [[%lo, %end], [0, 8]] : tensor<8x8xf32> -> tensor<4x8xf32>
    func.return %r : tensor<4x8xf32>"""

REDUCE_THEN_SHRINK = """    %px = tg.pad %x [[%lo, %hi], [0, 0]] invalid : tensor<4x8xf32> -> tensor<8x8xf32>
    %s = tg.reduce add %px [1] : tensor<8x8xf32> -> tensor<8x1xf32>
    %r = tg.shrink %s [[%lo, %end], [0, 1]] : tensor<8x1xf32> -> tensor<4x1xf32>
    func.return %r : tensor<4x1xf32>"""

REDUCE_OVER_THE_PADDED_AXIS = """    %px = tg.pad %x [[%lo, %hi], [0, 0]] invalid : tensor<4x8xf32> -> tensor<8x8xf32>
    %s = tg.reduce add %px [0] : tensor<8x8xf32> -> tensor<1x8xf32>
    func.return %s : tensor<1x8xf32>"""

SHRINK_OF_ANOTHER_WINDOW = """    %px = tg.pad %x [[%lo, %hi], [0, 0]] invalid : tensor<4x8xf32> -> tensor<8x8xf32>
    %s = tg.reduce add %px [1] : tensor<8x8xf32> -> tensor<8x1xf32>
    %hend = arith.addi %hi, %four : index
    %r = tg.shrink %s [[%hi, %hend], [0, 1]] : tensor<8x1xf32> -> tensor<4x1xf32>
    func.return %r : tensor<4x1xf32>"""

SHRINK_OF_COPIES = """    %r1 = tg.reshape %c : tensor<4x1xf32> -> tensor<1x4x1xf32>
    %q = tg.expand %r1 : tensor<1x4x1xf32> -> tensor<8x4x1xf32>
    %r = tg.shrink %q [[%lo, %end], [0, 4], [0, 1]] : tensor<8x4x1xf32> -> tensor<4x4x1xf32>
    func.return %r : tensor<4x4x1xf32>"""

SHRINK_OF_A_KEPT_AXIS = """    %q = tg.expand %c : tensor<4x1xf32> -> tensor<4x8xf32>
    %two = arith.constant 2 : index
    %l2 = arith.muli %d, %two : index
    %e2 = arith.addi %l2, %two : index
    %r = tg.shrink %q [[%l2, %e2], [0, 8]] : tensor<4x8xf32> -> tensor<2x8xf32>
    func.return %r : tensor<2x8xf32>"""


@pytest.mark.parametrize(
    "body, result, narrowed",
    [
        (EXPAND_THEN_SHRINK, "tensor<4x8xf32>", True),
        (REDUCE_THEN_SHRINK, "tensor<4x1xf32>", True),
        (REDUCE_OVER_THE_PADDED_AXIS, "tensor<1x8xf32>", False),
        (SHRINK_OF_ANOTHER_WINDOW, "tensor<4x1xf32>", False),
        (SHRINK_OF_COPIES, "tensor<4x4x1xf32>", True),
        (SHRINK_OF_A_KEPT_AXIS, "tensor<2x8xf32>", False),
    ],
    ids=[
        "expand",
        "reduce",
        "reduce-padded-axis",
        "other-window",
        "shrink-of-copies",
        "shrink-of-a-kept-axis",
    ],
)
def test_device_window_rules(body: str, result: str, narrowed: bool) -> None:
    """ExpandOfDevicePad, ShrinkOfReduceOfDevicePad and ShrinkOfExpandOnExpandedAxes on the
    SPMD form: where they apply the
    program no longer reads d (no pad, no shrink left); where they must not, d stays. The
    interpreter (every device) gives the same values before and after."""
    text = _window_program(body, result)
    after = E.check_pass_keeps_meaning(
        text, 2, "main", lambda m: Simplifier(2, extra=device_window_patterns())(m)
    )
    reads_d = any(isinstance(op, devidx.DeviceNumOp) for op in after.walk())
    assert reads_d != narrowed, printed(after)

"""specialize-devices simplifies each device's copy once when every device keeps the fetches
whose values it sends (issue 14, compile time: collectives), and builds its patterns once per
pass, not once per copy. The specialized programs mean what the multi-level ones do."""

from __future__ import annotations

import cProfile
import pstats

import numpy as np
import pytest
from multi_programs import sum_to_every_device
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from xdsl_multi.dialects import devidx, make_context
from xdsl_multi.dialects.parsing import parse_mlir
from xdsl_multi.runtime.interpreter.interpreter import run_module
from xdsl_multi.transforms.devidx_simplify.devidx_simplify import DevidxSimplify
from xdsl_multi.transforms.multi_to_devidx.multi_to_devidx import MultiToDevidx
from xdsl_multi.transforms.specialize_devices.specialize_devices import SpecializeDevices


def spmd_form(text: str, allreduce: str) -> ModuleOp:
    module = parse_mlir(make_context(), text)
    MultiToDevidx(allreduce=allreduce).apply(Context(), module)
    DevidxSimplify().apply(Context(), module)
    return module


def calls(stats: pstats.Stats, name: str) -> int:
    return sum(v[1] for (_, _, fn), v in stats.stats.items() if fn == name)  # type: ignore[attr-defined]


@pytest.mark.parametrize("allreduce", ["naive", "ring", "all2all"])
@pytest.mark.parametrize("n", [2, 4])
def test_collectives_copy_and_simplify_each_device_once(n: int, allreduce: str) -> None:
    text = sum_to_every_device(n)
    module = spmd_form(text, allreduce)
    run = cProfile.Profile()
    run.enable()
    SpecializeDevices().apply(Context(), module)
    run.disable()
    stats = pstats.Stats(run)
    # before: the copies were made and simplified again with the sends in (2N), and the
    # patterns built for each simplification (3N); now one copy per device, patterns twice
    assert calls(stats, "_device_copy") == n
    assert calls(stats, "simplify_patterns") == 2
    assert sum(isinstance(op, devidx.SendOp) for op in module.walk()) > 0
    x = np.random.default_rng(n).standard_normal((n, 8)).astype(np.float32)
    want = run_module(parse_mlir(make_context(), text), [x])
    got = run_module(module, [x])
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(np.asarray(g)[0], x.sum(axis=0, keepdims=True), rtol=1e-5)

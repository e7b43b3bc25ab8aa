"""Issue 9 point 2: the max identity of a reduction over an empty shard is -inf, printed by
multi-opt as `dense<0xff800000>`. Printed after specialize-devices and run from that text, a
3-device `tg.reduce max` whose third shard is empty must give numpy's max, on the interpreter
and on the compiled backend (it gave 4.29e9: the hex literal was read as an integer)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from xdsl_multi.tools.multi_opt import run_multi_opt
from xdsl_multi.tools.multi_run import run_multi_run

DEVICES = '["CPU:0", "CPU:1", "CPU:2"]'
PROGRAM = f"""\
func.func @main(%x: tensor<4x3xf32, #multi.shard<{DEVICES}, axis = 0>>) -> tensor<1x3xf32, #multi.on<{DEVICES}>> {{
  %r = tg.reduce max %x [0] : tensor<4x3xf32, #multi.shard<{DEVICES}, axis = 0>> -> tensor<1x3xf32, #multi.on<{DEVICES}>>
  func.return %r : tensor<1x3xf32, #multi.on<{DEVICES}>>
}}
"""


@pytest.mark.parametrize("backend", ["interp", "threads"])
def test_printed_device_level_max_with_empty_shard(tmp_path: Path, backend: str) -> None:
    source, printed = tmp_path / "max.mlir", tmp_path / "max-devices.mlir"
    source.write_text(PROGRAM)
    passes = "multi-to-devidx,devidx-simplify,specialize-devices"
    assert run_multi_opt([str(source), "-p", passes, "-o", str(printed)]) == 0
    assert "dense<0xff800000>" in printed.read_text()  # the identity of the empty shard

    x = -np.arange(12, dtype=np.float32).reshape(4, 3) - 5  # all negative: 0 would be wrong too
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "out.npz"
    args = [str(printed), "--backend", backend, "--input", f"x={tmp_path / 'x.npy'}"]
    assert run_multi_run([*args, "--output", str(out)]) == 0
    got = np.load(out)["result0"]
    want = np.broadcast_to(x.max(axis=0, keepdims=True), (3, 1, 3))
    np.testing.assert_array_equal(got, want)

"""What the tinygrad importer rejects (SPEC §8: `UnsupportedGraph` naming the op and why), and
that `import xdsl_multi` does not load tinygrad."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

tinygrad = pytest.importorskip("tinygrad")

from tinygrad import Tensor
from tinygrad.uop.ops import AxisType, UOp

from xdsl_multi.frontends.tinygrad import UnsupportedGraph, import_tensors

D4 = ("CPU:0", "CPU:1", "CPU:2", "CPU:3")


def test_sharding_on_two_axes_needs_a_mesh() -> None:
    x = Tensor(np.ones((4, 4), np.float32)).to(D4)
    rows, cols = UOp.range(2, -1, AxisType.DEVICE), UOp.range(2, -2, AxisType.DEVICE)
    with pytest.raises(UnsupportedGraph) as info:
        import_tensors(Tensor(x.uop.unshard((0, 1), (rows, cols))) + 1)
    assert info.value.op == "UNSHARD"
    assert "2 axes (0, 1)" in info.value.reason and "mesh" in info.value.reason


def test_a_symbolic_shape_is_named_by_its_variable() -> None:
    i = UOp.variable("i", 1, 8).bind(4)
    x = Tensor(np.ones((8, 4), np.float32)).to("CPU")[:i]
    with pytest.raises(UnsupportedGraph) as info:
        import_tensors(x + 1)
    assert str(info.value) == "tinygrad SHRINK: symbolic shape (i, 4)"


def test_importing_the_package_does_not_import_tinygrad() -> None:
    code = "import sys, xdsl_multi; xdsl_multi.Builder; print('tinygrad' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_what_the_verifiers_reject_is_unsupported_not_a_traceback() -> None:
    """A shrink of the shard axis that neither keeps it nor selects one shard (tinygrad's multi
    rewrite rejects it too)."""
    x = Tensor(np.ones((6, 2), np.float32)).shard(("CPU:0", "CPU:1"), axis=0)
    with pytest.raises(UnsupportedGraph) as info:
        import_tensors(x[0:1] + 1)
    assert info.value.op == "SHRINK"
    assert info.value.reason.startswith("the IR rejects it: tg.shrink: shrink [0, 1] on the shard")

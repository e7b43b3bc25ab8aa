"""Our compiler and runtime imported and initialized once per benchmark process, before any
timed first call (bench/run.py and bench/profile.py)."""

from __future__ import annotations

import os
import tempfile

import numpy as np

WARM_UP = """
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>)
      -> tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
    %y = arith.addf %x, %x : tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
    func.return %y : tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  }
}
"""


def warm_up_ours() -> None:
    """Import and initialize our compiler and runtime once per process, as a peer's `load`
    imports jax or tinygrad and opens its devices before its first timed call: a tiny program
    (no workload's) compiled in a cache folder of its own and run. Without it the first
    workload's cold first call also counts the imports of the pipeline, the runtime and the
    JIT (0.4-1 s here), which no later workload and no peer pays."""
    import xdsl_multi as xm

    previous = os.environ.get("XDSL_MULTI_CACHE_DIR")
    with tempfile.TemporaryDirectory() as cache:
        os.environ["XDSL_MULTI_CACHE_DIR"] = cache
        try:
            with xm.compile(WARM_UP, backend="threads") as program:
                (result,) = program(np.arange(4, dtype=np.float32))
            if not np.array_equal(result, 2 * np.arange(4)):
                raise RuntimeError(f"the warm-up program computed {result}, not 2 * x")
        finally:
            if previous is None:
                os.environ.pop("XDSL_MULTI_CACHE_DIR", None)
            else:
                os.environ["XDSL_MULTI_CACHE_DIR"] = previous


__all__ = ["warm_up_ours"]

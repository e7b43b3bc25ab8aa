"""The Megatron (tensor-parallel) MLP built with `xm.Builder`, compiled with `xm.compile` and
checked against numpy (SPEC §7).

    y = relu(x @ W1) @ W2        x (4, 8) replicated, W1 (8, 16) column-parallel (sharded on
                                 axis 1), W2 (16, 8) row-parallel (sharded on axis 0)

A matmul is written as in examples/megatron_mlp_shard.mlir: broadcast both operands to
(M, N, K), multiply, reduce K. The Builder infers every placement: the hidden layer comes out
sharded on its units, and the second product's reduction runs over the shard axis, so its result
is `#multi.on` on every device: that reduction is the allreduce (tinygrad's rule).

Run: python examples/python/megatron_mlp.py [--backend threads|interp]
"""

from __future__ import annotations

import argparse

import numpy as np
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.ir import Attribute, SSAValue

import xdsl_multi as xm

DEVICES = ["CPU:0", "CPU:1"]


def matmul(b: xm.Builder, a: SSAValue, w: SSAValue, a_to: Attribute | None = None) -> SSAValue:
    """a @ w; `a_to` places the broadcast `a` first (a replicated `a` against a sharded `w`)."""
    assert isinstance(a.type, TensorType) and isinstance(w.type, TensorType)
    m, k = a.type.get_shape()
    n = w.type.get_shape()[1]
    ae = b.expand(b.reshape(a, [m, 1, k]), [m, n, k])
    if a_to is not None:
        ae = b.copy(ae, a_to)
    we = b.expand(b.reshape(b.permute(w, [1, 0]), [1, n, k]), [m, n, k])
    return b.reshape(b.reduce("add", b.mulf(ae, we), [2]), [m, n])


def build(m: int = 4, d: int = 8, hidden: int = 16) -> ModuleOp:
    """The MLP's multi-level module: `@main(x, w1, w2) -> y`."""
    B = xm.Builder
    b = B(devices=DEVICES)
    x, w1, w2 = b.function(
        "main",
        [
            B.tensor([m, d], f32, B.on(DEVICES)),
            B.tensor([d, hidden], f32, B.shard(DEVICES, axis=1)),
            B.tensor([hidden, d], f32, B.shard(DEVICES, axis=0)),
        ],
        arg_names=["x", "w1", "w2"],
    )
    mm1 = matmul(b, x, w1, a_to=B.shard(DEVICES, axis=1))
    h = b.maximumf(mm1, b.constant(0.0, like=mm1))
    b.ret(matmul(b, h, w2))
    return b.finish()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="threads", choices=["threads", "interp"])
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 8), dtype=np.float32)
    w1 = rng.standard_normal((8, 16), dtype=np.float32)
    w2 = rng.standard_normal((16, 8), dtype=np.float32)
    module = build()
    print(module)
    with xm.compile(module, backend=args.backend) as prog:
        (y,) = prog(x, w1, w2)
    want = np.maximum(x @ w1, 0) @ w2
    # y is #multi.on on both devices: one (4, 8) slice per device, each the full result.
    np.testing.assert_allclose(y, np.stack([want] * len(DEVICES)), rtol=1e-4, atol=1e-4)
    print(f"megatron MLP on {len(DEVICES)} devices ({args.backend}): matches numpy")


if __name__ == "__main__":
    main()

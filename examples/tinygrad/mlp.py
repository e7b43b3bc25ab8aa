"""A small MLP sharded with tinygrad's own API, run by xdsl-multi (SPEC §8), checked against
numpy.

    h = relu(x @ W1 + b1); y = h @ W2 + b2     x (8, 16) data-parallel (split on the batch) for
                                               one forward pass; a Megatron (tensor-parallel)
                                               one with W1 split on its columns, W2 on its rows

tinygrad only builds the graphs (`Tensor.shard`, `@`, `relu`): nothing is realized by tinygrad,
so it needs no compiler. `xdsl_multi.frontends.tinygrad.run` imports them, compiles them and runs
them on two devices.

Run: python examples/tinygrad/mlp.py                  (threads)
     mpiexec -n 2 python examples/tinygrad/mlp.py     (mpi: one rank per device)
"""

from __future__ import annotations

import argparse
import os

import numpy as np
from tinygrad import Tensor

from xdsl_multi.frontends.tinygrad import run

DEVICES = ("CPU:0", "CPU:1")


def under_mpiexec() -> bool:
    """mpiexec (MPICH's Hydra, or Open MPI) tells its ranks how many there are."""
    return any(v in os.environ for v in ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE"))


def mlp(x: Tensor, w1: Tensor, b1: Tensor, w2: Tensor, b2: Tensor) -> Tensor:
    return (x @ w1 + b1).relu() @ w2 + b2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["threads", "mpi", "interp"], default=None)
    backend = parser.parse_args().backend or ("mpi" if under_mpiexec() else "threads")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 16), dtype=np.float32)
    w1 = rng.standard_normal((16, 32), dtype=np.float32)
    b1 = rng.standard_normal(32, dtype=np.float32)
    w2 = rng.standard_normal((32, 4), dtype=np.float32)
    b2 = rng.standard_normal(4, dtype=np.float32)
    want = np.maximum(x @ w1 + b1, 0) @ w2 + b2

    data_parallel = mlp(
        Tensor(x).shard(DEVICES, axis=0),
        *(Tensor(p).shard(DEVICES) for p in (w1, b1, w2, b2)),
    )
    megatron = mlp(
        Tensor(x).shard(DEVICES),
        Tensor(w1).shard(DEVICES, axis=1),
        Tensor(b1).shard(DEVICES, axis=0),
        Tensor(w2).shard(DEVICES, axis=0),
        Tensor(b2).shard(DEVICES),
    )
    got_dp, got_mp = run(data_parallel, megatron, backend=backend)
    np.testing.assert_allclose(got_dp, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got_mp, want, rtol=1e-4, atol=1e-4)
    print(
        f"tinygrad MLP, data- and tensor-parallel on {len(DEVICES)} devices ({backend}): matches numpy"
    )


if __name__ == "__main__":
    main()

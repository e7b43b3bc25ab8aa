"""The workloads of BENCH.md: program, inputs, numpy reference and byte/flop counts, and the
same computation for the peers (tinygrad, JAX) with the placement of its inputs and output.

Programs are the files of bench/programs/ (C1 from gen_c1.py); `--quick` substitutes smaller
dimensions inside `tensor<...>` types only.

Each workload's computation is written once against a numpy-like namespace (`compute(xp, ...)`):
numpy runs it as the one-device baseline, JAX runs it with `jax.numpy`. tinygrad's Tensor methods
differ from numpy's (`keepdim`, `.maximum`), so its version is written out next to it
(`tinygrad(...)`); bench/peers.py checks both against numpy before timing them.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

Array = np.ndarray


def resize(text: str, dims: dict[int, int]) -> str:
    """`text` with the tensor dimensions in `dims` replaced (inside `tensor<...>` only)."""

    def one(m: re.Match[str]) -> str:
        parts = m.group(1).split("x")
        return "tensor<" + "x".join(str(dims.get(int(p), int(p))) for p in parts) + "x"

    return re.sub(r"tensor<((?:\d+x)*\d+)x", one, text)


@dataclass(frozen=True)
class MeshPlacement:
    """A placement on a device mesh (W8) for the peers: the mesh's shape and axis names, and
    for each input and the output one entry per tensor axis, the mesh axis that splits it or
    None (JAX's `PartitionSpec`; all None: replicated)."""

    shape: tuple[int, ...]
    names: tuple[str, ...]
    inputs: tuple[tuple[str | None, ...], ...]
    output: tuple[str | None, ...]


@dataclass
class Workload:
    """One row of BENCH.md.

    `reference` gives our program's logical outputs in float64-then-float32 (a replicated output
    is stacked, one copy per device); `compute(xp, *inputs)` is the logical computation on a
    numpy-like namespace and `tinygrad(*tensors)` the same on tinygrad Tensors. `shard_axes` says
    how each input is placed on the `n` devices (an axis: split along it; None: replicated) and
    `out_axis` the output (None: replicated, on every device).
    """

    id: str
    n: int
    source: str | Callable[[Path], str]
    shapes: Sequence[tuple[int, ...]]
    reference: Callable[..., list[Array]]
    compute: Callable[..., object]
    out_bytes: int
    flops: float = 0.0
    dims: dict[int, int] = field(default_factory=dict)
    variants: dict[str, dict[str, object]] = field(default_factory=lambda: {"default": {}})
    rtol: float = 1e-4
    atol: float = 1e-4
    shard_axes: tuple[int | None, ...] = (0,)
    out_axis: int | None = 0
    tinygrad: Callable[..., object] | None = None
    mesh: MeshPlacement | None = None
    """The peers' placement on a mesh; then `shard_axes` only says which axes to pad and the
    peers' result is compared with our first output (the logical value)."""

    def numpy(self, *inputs: Array) -> object:
        """The one-device numpy baseline: `compute` on numpy."""
        return self.compute(np, *inputs)

    def program(self, programs: Path) -> str:
        text = self.source(programs) if callable(self.source) else (programs / self.source).read_text()
        return resize(text, self.dims) if self.dims else text

    def inputs(self) -> list[Array]:
        rng = np.random.default_rng(0)
        return [rng.standard_normal(s, dtype=np.float32) for s in self.shapes]

    @property
    def bytes(self) -> int:
        return sum(int(np.prod(s)) * 4 for s in self.shapes) + self.out_bytes


def _f32(*arrays: Array) -> list[Array]:
    return [np.asarray(a, np.float32) for a in arrays]


# The computations, on a numpy-like namespace `xp` (numpy, jax.numpy) ...


def _w1(x: Array, xp: ModuleType = np) -> Array:
    return xp.maximum(x * 2 + 1, 0) - x / 3


def _layernorm(x: Array, xp: ModuleType = np) -> Array:
    mu = x.mean(axis=1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
    return (x - mu) / xp.sqrt(var + 1e-5)


def _megatron(x: Array, w1: Array, w2: Array, xp: ModuleType = np) -> Array:
    return xp.maximum(x @ w1, 0) @ w2


def _c1(x: Array, iters: int, xp: ModuleType = np) -> Array:
    for _ in range(iters):
        x = xp.maximum(x * np.float32(1.01) + np.float32(0.5), 0)
        x = x - x.mean(axis=1, keepdims=True)
    return x


# ... and on tinygrad Tensors (typed loosely: tinygrad is imported only when it is benchmarked).


def _tg_w1(x: Any) -> Any:
    return (x * 2 + 1).maximum(0) - x / 3


def _tg_layernorm(x: Any) -> Any:
    mu = x.mean(axis=1, keepdim=True)
    var = ((x - mu) ** 2).mean(axis=1, keepdim=True)
    return (x - mu) / (var + 1e-5).sqrt()


def _tg_c1(x: Any, iters: int) -> Any:
    for _ in range(iters):
        x = (x * 1.01 + 0.5).maximum(0)
        x = x - x.mean(axis=1, keepdim=True)
    return x


def _gen_c1(programs: Path) -> Callable[..., str]:
    spec = importlib.util.spec_from_file_location("gen_c1", programs / "gen_c1.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.c1_program


def _mesh_matmul(s: int) -> Callable[[Path], str]:
    """examples/mesh_matmul.mlir (A (7, 6) @ B (6, 10) on a 2x2 mesh) at (s, s) @ (s, s)."""

    def source(programs: Path) -> str:
        text = (programs.parents[1] / "examples" / "mesh_matmul.mlir").read_text()
        return resize(text, {7: s, 6: s, 10: s})

    return source


def WORKLOADS(quick: bool) -> list[Workload]:
    q = quick
    s1 = 1024 if q else 4096
    rows2 = 1024 if q else 8192
    n3 = 2**20 if q else 2**24
    s4 = 256 if q else 1024
    m5, k5, h5 = (128, 256, 1024) if q else (512, 1024, 4096)
    n6 = 2**18 if q else 2**22
    iters = 10 if q else 50
    out: list[Workload] = [
        Workload(
            "W1", 2, "w1_elementwise.mlir", [(s1, s1)],
            lambda x: _f32(_w1(x.astype(np.float64))), lambda xp, x: _w1(x, xp), s1 * s1 * 4,
            dims={4096: s1}, tinygrad=_tg_w1,
        ),
        Workload(
            "W2", 2, "w2_layernorm.mlir", [(rows2, 1024)],
            lambda x: _f32(_layernorm(x.astype(np.float64))), lambda xp, x: _layernorm(x, xp),
            rows2 * 1024 * 4, dims={8192: rows2}, tinygrad=_tg_layernorm,
        ),
        Workload(
            "W3", 2, "w3_sum.mlir", [(n3,)],
            lambda x: _f32(np.array([x.astype(np.float64).sum()]) * np.ones((2, 1))),
            lambda xp, x: x.sum(keepdims=True), 4, dims={2**24: n3}, rtol=1e-3, atol=1e-2,
            out_axis=None, tinygrad=lambda x: x.sum(keepdim=True),
        ),
        Workload(
            "W4", 2, "w4_matmul.mlir", [(s4, s4), (s4, s4)],
            lambda a, b: _f32(a.astype(np.float64) @ b), lambda xp, a, b: a @ b, s4 * s4 * 4,
            flops=2.0 * s4**3, dims={1024: s4}, rtol=1e-3, atol=1e-3,
            shard_axes=(0, None), tinygrad=lambda a, b: a @ b,
        ),
        Workload(
            "W5", 2, "w5_megatron_mlp.mlir", [(m5, k5), (k5, h5), (h5, k5)],
            lambda x, w1, w2: _f32(
                np.stack([_megatron(x.astype(np.float64), w1, w2)] * 2)
            ),
            lambda xp, x, w1, w2: _megatron(x, w1, w2, xp), m5 * k5 * 4,
            flops=4.0 * m5 * k5 * h5, dims={512: m5, 1024: k5, 4096: h5}, rtol=1e-3, atol=1e-2,
            shard_axes=(None, 1, 0), out_axis=None,
            tinygrad=lambda x, w1, w2: (x @ w1).relu() @ w2,
        ),
    ]
    for n in (2, 4, 8):
        out.append(
            Workload(
                f"W6/N={n}", n, f"w6_allreduce_n{n}.mlir", [(n, n6)],
                lambda x, n=n: _f32(np.stack([x.astype(np.float64).sum(axis=0, keepdims=True)] * n)),
                lambda xp, x: x.sum(axis=0, keepdims=True), n6 * 4, dims={4194304: n6},
                variants={
                    "naive": {"allreduce": "naive"},
                    "ring": {"allreduce": "ring", "ring_threshold": 0},
                    "all2all": {"allreduce": "all2all"},
                },
                rtol=1e-4, atol=1e-4, out_axis=None,
                tinygrad=lambda x: x.sum(axis=0, keepdim=True),
            )
        )
    out += [
        Workload(
            "W7", 3, "w7_uneven.mlir", [(1000, 999)],
            lambda x: _f32((x.astype(np.float64) ** 2).sum(axis=1, keepdims=True)),
            lambda xp, x: (x * x).sum(axis=1, keepdims=True), 1000 * 4, rtol=1e-4, atol=1e-3,
            tinygrad=lambda x: (x * x).sum(axis=1, keepdim=True),
        ),
        Workload(
            "W8", 4, _mesh_matmul(s4), [(s4, s4), (s4, s4)],
            lambda a, b: _f32(c := a.astype(np.float64) @ b, np.stack([c] * 4)),
            lambda xp, a, b: a @ b, s4 * s4 * 4, flops=2.0 * s4**3, rtol=1e-3, atol=1e-3,
            shard_axes=(0, 1),
            mesh=MeshPlacement((2, 2), ("x", "y"), (("x", None), (None, "y")), (None, None)),
        ),
        Workload(
            "C1", 2, lambda programs: _gen_c1(programs)(256, iters, 2), [(256, 256)],
            lambda x: _f32(_c1(x.astype(np.float64), iters)), lambda xp, x: _c1(x, iters, xp),
            256 * 256 * 4, rtol=1e-3, atol=1e-3, tinygrad=lambda x: _tg_c1(x, iters),
        ),
    ]
    return out

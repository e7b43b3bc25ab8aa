"""The workloads of BENCH.md: program, inputs, numpy reference and byte/flop counts.

Programs are the files of bench/programs/ (C1 from gen_c1.py); `--quick` substitutes smaller
dimensions inside `tensor<...>` types only.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

Array = np.ndarray


def resize(text: str, dims: dict[int, int]) -> str:
    """`text` with the tensor dimensions in `dims` replaced (inside `tensor<...>` only)."""

    def one(m: re.Match[str]) -> str:
        parts = m.group(1).split("x")
        return "tensor<" + "x".join(str(dims.get(int(p), int(p))) for p in parts) + "x"

    return re.sub(r"tensor<((?:\d+x)*\d+)x", one, text)


@dataclass
class Workload:
    id: str
    n: int
    source: str | Callable[[Path], str]
    shapes: Sequence[tuple[int, ...]]
    reference: Callable[..., list[Array]]
    numpy: Callable[..., object]
    out_bytes: int
    flops: float = 0.0
    dims: dict[int, int] = field(default_factory=dict)
    variants: dict[str, dict[str, object]] = field(default_factory=lambda: {"default": {}})
    rtol: float = 1e-4
    atol: float = 1e-4

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


def _w1(x: Array) -> Array:
    return np.maximum(x * 2 + 1, 0) - x / 3


def _layernorm(x: Array) -> Array:
    mu = x.mean(axis=1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5)


def _megatron(x: Array, w1: Array, w2: Array) -> Array:
    return np.maximum(x @ w1, 0) @ w2


def _c1(x: Array, iters: int) -> Array:
    for _ in range(iters):
        x = np.maximum(x * np.float32(1.01) + np.float32(0.5), 0)
        x = x - x.mean(axis=1, keepdims=True)
    return x


def _gen_c1(programs: Path) -> Callable[..., str]:
    spec = importlib.util.spec_from_file_location("gen_c1", programs / "gen_c1.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.c1_program


def WORKLOADS(quick: bool) -> list[Workload]:  # noqa: N802 - a table, read as a constant
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
            lambda x: _f32(_w1(x.astype(np.float64))), _w1, s1 * s1 * 4,
            dims={4096: s1},
        ),
        Workload(
            "W2", 2, "w2_layernorm.mlir", [(rows2, 1024)],
            lambda x: _f32(_layernorm(x.astype(np.float64))), _layernorm, rows2 * 1024 * 4,
            dims={8192: rows2},
        ),
        Workload(
            "W3", 2, "w3_sum.mlir", [(n3,)],
            lambda x: _f32(np.array([x.astype(np.float64).sum()]) * np.ones((2, 1))),
            lambda x: x.sum(), 4, dims={2**24: n3}, rtol=1e-3, atol=1e-2,
        ),
        Workload(
            "W4", 2, "w4_matmul.mlir", [(s4, s4), (s4, s4)],
            lambda a, b: _f32(a.astype(np.float64) @ b), lambda a, b: a @ b, s4 * s4 * 4,
            flops=2.0 * s4**3, dims={1024: s4}, rtol=1e-3, atol=1e-3,
        ),
        Workload(
            "W5", 2, "w5_megatron_mlp.mlir", [(m5, k5), (k5, h5), (h5, k5)],
            lambda x, w1, w2: _f32(
                np.stack([_megatron(x.astype(np.float64), w1, w2)] * 2)
            ),
            _megatron, m5 * k5 * 4, flops=4.0 * m5 * k5 * h5,
            dims={512: m5, 1024: k5, 4096: h5}, rtol=1e-3, atol=1e-2,
        ),
    ]
    for n in (2, 4, 8):
        out.append(
            Workload(
                f"W6/N={n}", n, f"w6_allreduce_n{n}.mlir", [(n, n6)],
                lambda x, n=n: _f32(np.stack([x.astype(np.float64).sum(axis=0, keepdims=True)] * n)),
                lambda x: x.sum(axis=0), n6 * 4, dims={4194304: n6},
                variants={
                    "naive": {"allreduce": "naive"},
                    "ring": {"allreduce": "ring", "ring_threshold": 0},
                    "all2all": {"allreduce": "all2all"},
                },
                rtol=1e-4, atol=1e-4,
            )
        )
    out += [
        Workload(
            "W7", 3, "w7_uneven.mlir", [(1000, 999)],
            lambda x: _f32((x.astype(np.float64) ** 2).sum(axis=1, keepdims=True)),
            lambda x: (x * x).sum(axis=1), 1000 * 4, rtol=1e-4, atol=1e-3,
        ),
        Workload(
            "C1", 2, lambda programs: _gen_c1(programs)(256, iters, 2), [(256, 256)],
            lambda x: _f32(_c1(x.astype(np.float64), iters)), lambda x: _c1(x, iters),
            256 * 256 * 4, rtol=1e-3, atol=1e-3,
        ),
    ]
    return out

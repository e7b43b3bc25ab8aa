"""The benchmark programs in bench/programs/ (BENCH.md W1-W7, C1): each parses and verifies at
its full size, c1_chain.mlir is what gen_c1.py generates, and scaled-down copies compute what
BENCH.md says, checked against numpy through the reference interpreter, at the multi level and
after lowering to per-device programs.

Scaled copies are the program text with its sizes substituted (`scaled`), so they run the very
ops of the benchmark, only on small tensors; every substitution must match (a changed program
fails here instead of silently testing something else). C1 is scaled through its generator.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from bench_sources import load_gen_c1  # test/support, on pythonpath
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.passes import PassPipeline

from xdsl_multi.dialects import make_context
from xdsl_multi.passes import get_all_passes

PROGRAMS = Path(__file__).resolve().parents[1] / "bench" / "programs"
PROGRAM_FILES = sorted(p.name for p in PROGRAMS.glob("*.mlir"))
RTOL = ATOL = 1e-5


def parse_text(text: str, name: str) -> ModuleOp:
    return Parser(make_context(), text, name).parse_module()




def scaled(text: str, sizes: dict[int, int], literals: dict[str, str] | None = None) -> str:
    """`text` with every dimension in `sizes` replaced (as a whole number, not inside another)
    and every literal in `literals` replaced; each must occur at least once."""
    for old, new in (literals or {}).items():
        assert old in text, f"literal {old!r} not found"
        text = text.replace(old, new)
    for old_dim, new_dim in sizes.items():
        pattern = rf"(?<![\d.]){old_dim}(?![\d.])"
        text, count = re.subn(pattern, str(new_dim), text)
        assert count, f"size {old_dim} not found"
    return text


def f32(a: np.ndarray) -> np.ndarray:
    return np.asarray(a, dtype=np.float32)


def check(got: np.ndarray, want: np.ndarray, what: str) -> None:
    got = np.asarray(got)
    assert got.dtype == np.float32, f"{what}: dtype {got.dtype}, expected float32"
    assert got.shape == want.shape, f"{what}: shape {got.shape}, expected {want.shape}"
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=what)


# --------------------------------------------------------------------------------------------
# Full-size programs
# --------------------------------------------------------------------------------------------


def test_programs_exist() -> None:
    for stem in ("w1", "w2", "w3", "w4", "w5", "w6", "w7", "c1"):
        assert any(f.startswith(stem + "_") for f in PROGRAM_FILES), f"no {stem} program"


@pytest.mark.parametrize("name", PROGRAM_FILES)
def test_program_parses_and_verifies(name: str) -> None:
    module = parse_text((PROGRAMS / name).read_text(), name)
    module.verify()
    func = next(op for op in module.walk() if op.name == "func.func")
    assert func.sym_name.data == "main"  # type: ignore[attr-defined]
    assert "multi.devices" in module.attributes


def test_c1_is_generated() -> None:
    """c1_chain.mlir is exactly gen_c1.py's output at BENCH.md's sizes (256, 50 iterations)."""
    text = load_gen_c1().c1_program(256, 50, 2)
    assert (PROGRAMS / "c1_chain.mlir").read_text() == text, (
        "c1_chain.mlir is stale: run python bench/programs/gen_c1.py"
    )
    assert text.count("tg.reduce add") == 50


# --------------------------------------------------------------------------------------------
# Scaled-down runs against numpy
# --------------------------------------------------------------------------------------------


def layernorm_reference(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    mu = x.mean(axis=1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
    return f32((x - mu) / np.sqrt(var + 1e-5))


def relu(a: np.ndarray) -> np.ndarray:
    return np.maximum(a, 0)


@dataclass(frozen=True)
class Scaled:
    """A benchmark program at a small size, its inputs and its expected (logical) outputs."""

    id: str
    text: Callable[[], str]
    make_inputs: Callable[[np.random.Generator], list[np.ndarray]]
    expected: Callable[[list[np.ndarray]], list[np.ndarray]]


def program(name: str) -> str:
    return (PROGRAMS / name).read_text()


def replicated(value: np.ndarray, num_devices: int) -> np.ndarray:
    """The logical form of a `#multi.on` value holding `value` on every device."""
    return np.stack([value] * num_devices)


def c1_reference(x: np.ndarray, iters: int) -> np.ndarray:
    y = x.astype(np.float64)
    for _ in range(iters):
        y = relu(y * np.float64(np.float32(1.01)) + 0.5)
        y = y - y.mean(axis=1, keepdims=True)
    return f32(y)


SCALED = [
    Scaled(
        "w1_elementwise",
        lambda: scaled(program("w1_elementwise.mlir"), {4096: 6}),  # (6, 6): 3 rows per device
        lambda rng: [f32(rng.uniform(-3, 3, size=(6, 6)))],
        lambda ins: [f32(relu(ins[0].astype(np.float64) * 2 + 1) - ins[0].astype(np.float64) / 3)],
    ),
    Scaled(
        "w2_layernorm",
        lambda: scaled(
            program("w2_layernorm.mlir"), {8192: 8, 1024: 16}, {"9.765625e-04": "6.25e-02"}
        ),
        lambda rng: [f32(rng.normal(0.5, 2.0, size=(8, 16)))],
        lambda ins: [layernorm_reference(ins[0])],
    ),
    Scaled(
        "w3_sum",
        lambda: scaled(program("w3_sum.mlir"), {16777216: 1000}),
        lambda rng: [f32(rng.random(1000))],
        lambda ins: [replicated(f32(ins[0].astype(np.float64).sum(keepdims=True)), 2)],
    ),
    Scaled(
        "w4_matmul",
        lambda: scaled(program("w4_matmul.mlir"), {1024: 8}),
        lambda rng: [
            f32(rng.uniform(-1, 1, size=(8, 8))),
            replicated(f32(rng.uniform(-1, 1, size=(8, 8))), 2),
        ],
        lambda ins: [f32(ins[0].astype(np.float64) @ ins[1][0].astype(np.float64))],
    ),
    Scaled(
        "w5_megatron_mlp",
        lambda: scaled(program("w5_megatron_mlp.mlir"), {4096: 16, 1024: 8, 512: 4}),
        lambda rng: [
            replicated(f32(rng.uniform(-1, 1, size=(4, 8))), 2),
            f32(rng.uniform(-0.35, 0.35, size=(8, 16))),
            f32(rng.uniform(-0.25, 0.25, size=(16, 8))),
        ],
        lambda ins: [replicated(f32(relu(ins[0][0].astype(np.float64) @ ins[1]) @ ins[2]), 2)],
    ),
    Scaled(
        "w5_megatron_mlp_local",
        lambda: scaled(program("w5_megatron_mlp_local.mlir"), {2048: 8, 1024: 8, 512: 4}),
        lambda rng: [
            replicated(f32(rng.uniform(-1, 1, size=(4, 8))), 2),
            f32(rng.uniform(-0.35, 0.35, size=(2, 8, 8))),  # W1[:, 8k:8k+8] on device k
            f32(rng.uniform(-0.25, 0.25, size=(2, 8, 8))),  # W2[8k:8k+8, :] on device k
        ],
        lambda ins: [
            replicated(
                f32(
                    relu(ins[0][0].astype(np.float64) @ np.concatenate(list(ins[1]), axis=1))
                    @ np.concatenate(list(ins[2]), axis=0)
                ),
                2,
            )
        ],
    ),
    Scaled(
        "w6_allreduce_n4",
        lambda: scaled(program("w6_allreduce_n4.mlir"), {4194304: 10}),
        lambda rng: [f32(rng.uniform(-1, 1, size=(4, 10)))],
        lambda ins: [replicated(f32(ins[0].astype(np.float64).sum(axis=0, keepdims=True)), 4)],
    ),
    Scaled(
        "w7_uneven",  # 7 rows over 3 devices: 3, 3, 1
        lambda: scaled(program("w7_uneven.mlir"), {1000: 7, 999: 5}),
        lambda rng: [f32(rng.uniform(-2, 2, size=(7, 5)))],
        lambda ins: [f32((ins[0].astype(np.float64) ** 2).sum(axis=1, keepdims=True))],
    ),
    Scaled(
        "c1_chain",
        lambda: load_gen_c1().c1_program(8, 3, 2),
        lambda rng: [f32(rng.uniform(-1, 1, size=(8, 8)))],
        lambda ins: [c1_reference(ins[0], 3)],
    ),
]


@pytest.mark.parametrize("case", SCALED, ids=[s.id for s in SCALED])
def test_scaled_program_matches_numpy(case: Scaled) -> None:
    from xdsl_multi.runtime.interpreter.interpreter import run_module

    module = parse_text(case.text(), f"{case.id} (scaled)")
    module.verify()
    inputs = case.make_inputs(np.random.default_rng(sum(case.id.encode())))
    got = run_module(module, [a.copy() for a in inputs])
    want = case.expected(inputs)
    assert len(got) == len(want), f"{len(got)} results, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        check(g, w, f"{case.id} result {i}")


LOWERINGS = [
    "multi-to-devidx,devidx-simplify,specialize-devices",
    "multi-to-devidx{allreduce=ring ring-threshold=0},devidx-simplify,specialize-devices",
]


@pytest.mark.parametrize("pipeline", LOWERINGS)
@pytest.mark.parametrize("case", SCALED, ids=[s.id for s in SCALED])
def test_lowered_scaled_program_matches_numpy(case: Scaled, pipeline: str) -> None:
    """Every pass keeps @main's logical signature (SPEC §5): same inputs, same outputs."""
    from xdsl_multi.runtime.interpreter.interpreter import run_module

    passes = get_all_passes()
    for spec in pipeline.split(","):
        if spec.split("{")[0] not in passes:
            pytest.skip(f"pass {spec.split('{')[0]} does not exist yet")
    module = parse_text(case.text(), f"{case.id} (scaled)")
    PassPipeline.parse_spec(passes, pipeline).apply(make_context(), module)
    module.verify()
    inputs = case.make_inputs(np.random.default_rng(sum(case.id.encode())))
    got = run_module(module, [a.copy() for a in inputs])
    want = case.expected(inputs)
    assert len(got) == len(want), f"{len(got)} results, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        check(g, w, f"{case.id} ({pipeline}) result {i}")

"""The programs in examples/: each parses, verifies and prints with `multi-opt`, and computes what
its header says, checked against numpy written from the math (not from the interpreter).

Every example has a `Case`: seeded inputs in the logical form of SPEC §6 (a `#multi.shard` value
is the full array, a one-device value its array, a `#multi.on` value on N > 1 devices an array
with a leading axis of N) and the expected outputs. The same cases run through the reference
interpreter (`run_module`) at the multi level and after each lowering pass (same logical inputs
and outputs at every level, SPEC §5), and through the `multi-run` command line
(`--input`/`--output`).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.passes import PassPipeline

from xdsl_multi.dialects import make_context
from xdsl_multi.passes import get_all_passes

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
RTOL = ATOL = 1e-5
SUBPROCESS_TIMEOUT_SECONDS = 120

# --------------------------------------------------------------------------------------------
# Expected outputs
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Expect:
    """One expected result: `logical` for a sharded or one-device value, else one array per
    device of a many-device `#multi.on` value (in the encoding's order)."""

    logical: np.ndarray | None = None
    per_device: tuple[np.ndarray, ...] = ()

    @staticmethod
    def replicated(value: np.ndarray, num_devices: int) -> Expect:
        return Expect(per_device=(value,) * num_devices)


def check_result(index: int, got: np.ndarray, want: Expect) -> None:
    """Shape, dtype and values of result `index`; every device's slice of a `#multi.on` value."""
    got = np.asarray(got)
    assert got.dtype == np.float32, f"result {index}: dtype {got.dtype}, expected float32"
    if want.logical is not None:
        assert got.shape == want.logical.shape, (
            f"result {index}: shape {got.shape}, expected {want.logical.shape}"
        )
        np.testing.assert_allclose(
            got, want.logical, rtol=RTOL, atol=ATOL, err_msg=f"result {index}"
        )
        return
    n = len(want.per_device)
    expected_shape = (n, *want.per_device[0].shape)
    assert got.shape == expected_shape, (
        f"result {index}: shape {got.shape}, expected {expected_shape} (one slice per device)"
    )
    for k, value in enumerate(want.per_device):
        np.testing.assert_allclose(
            got[k], value, rtol=RTOL, atol=ATOL, err_msg=f"result {index}, device slice {k}"
        )


def check_results(got: list[np.ndarray], want: list[Expect]) -> None:
    assert len(got) == len(want), f"{len(got)} results, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        check_result(i, g, w)


def f32(a: np.ndarray) -> np.ndarray:
    return np.asarray(a, dtype=np.float32)


def relu(a: np.ndarray) -> np.ndarray:
    return np.maximum(a, 0)


def uniform(rng: np.random.Generator, *shape: int, scale: float = 1.0) -> np.ndarray:
    return f32(rng.uniform(-scale, scale, size=shape))


# --------------------------------------------------------------------------------------------
# The examples and what they compute (float64 math on the float32 inputs)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    file: str
    arg_names: tuple[str, ...]
    make_inputs: Callable[[np.random.Generator], list[np.ndarray]]
    expected: Callable[[list[np.ndarray]], list[Expect]]


def dp_mlp_inputs(rng: np.random.Generator) -> list[np.ndarray]:
    x = uniform(rng, 8, 16)
    w1 = uniform(rng, 16, 32, scale=0.25)
    w2 = uniform(rng, 32, 4, scale=0.18)
    return [x, np.stack([w1, w1]), np.stack([w2, w2])]


def dp_mlp_expected(inputs: list[np.ndarray]) -> list[Expect]:
    x, w1s, w2s = (a.astype(np.float64) for a in inputs)
    return [Expect(f32(relu(x @ w1s[0]) @ w2s[0]))]


def megatron_weights(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return uniform(rng, 4, 8), uniform(rng, 8, 16, scale=0.35), uniform(rng, 16, 8, scale=0.25)


def megatron_inputs(rng: np.random.Generator) -> list[np.ndarray]:
    """x replicated; device k holds W1[:, 8k:8k+8] and W2[8k:8k+8, :]."""
    x, w1, w2 = megatron_weights(rng)
    return [
        np.stack([x, x]),
        np.stack([w1[:, 0:8], w1[:, 8:16]]),
        np.stack([w2[0:8, :], w2[8:16, :]]),
    ]


def megatron_expected(inputs: list[np.ndarray]) -> list[Expect]:
    xs, w1_local, w2_local = (a.astype(np.float64) for a in inputs)
    w1 = np.concatenate([w1_local[0], w1_local[1]], axis=1)
    w2 = np.concatenate([w2_local[0], w2_local[1]], axis=0)
    return [Expect.replicated(f32(relu(xs[0] @ w1) @ w2), 2)]


def megatron_shard_inputs(rng: np.random.Generator) -> list[np.ndarray]:
    """x replicated; W1 and W2 as their full logical arrays (the types shard them)."""
    x, w1, w2 = megatron_weights(rng)
    return [np.stack([x, x]), w1, w2]


def megatron_shard_expected(inputs: list[np.ndarray]) -> list[Expect]:
    xs, w1, w2 = (a.astype(np.float64) for a in inputs)
    return [Expect.replicated(f32(relu(xs[0] @ w1) @ w2), 2)]


def layernorm_inputs(rng: np.random.Generator) -> list[np.ndarray]:
    return [f32(rng.normal(1.5, 3.0, size=(8, 16)))]


def layernorm_reference(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    mu = x.mean(axis=1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
    return f32((x - mu) / np.sqrt(var + 1e-5))


def layernorm_expected(inputs: list[np.ndarray]) -> list[Expect]:
    return [Expect(layernorm_reference(inputs[0]))]


def allreduce_mstack_inputs(rng: np.random.Generator) -> list[np.ndarray]:
    return [uniform(rng, 4, 4, scale=2.0) for _ in range(4)]


def allreduce_mstack_expected(inputs: list[np.ndarray]) -> list[Expect]:
    a, b, c, d = (x.astype(np.float64) for x in inputs)
    total = f32(a + b + c + d)
    biggest = f32(np.maximum(np.maximum(a, b), np.maximum(c, d)))
    return [Expect.replicated(total, 4), Expect.replicated(biggest, 4)]


def uneven_inputs(rng: np.random.Generator) -> list[np.ndarray]:
    return [uniform(rng, 7, 5, scale=2.0)]


def uneven_expected(inputs: list[np.ndarray]) -> list[Expect]:
    x = inputs[0].astype(np.float64)
    rows = f32((x * x).sum(axis=1, keepdims=True))
    cols = f32(x.sum(axis=0, keepdims=True))
    return [Expect(rows), Expect.replicated(cols, 3)]


def copies_inputs(rng: np.random.Generator) -> list[np.ndarray]:
    return [uniform(rng, 8, 4, scale=3.0)]


def copies_expected(inputs: list[np.ndarray]) -> list[Expect]:
    x = inputs[0]
    e = f32(x.astype(np.float64) * 2 + 1)
    return [
        Expect(e),  # gathered to CPU:1
        Expect.replicated(e, 2),  # broadcast from CPU:1
        Expect.replicated(e, 2),  # all-gather of the shards
        Expect(e),  # resharded on axis 1
        Expect(per_device=(x, e)),  # mstack(x on CPU:0, e on CPU:1), then moved to (CPU:1, CPU:0)
    ]


def mesh_matmul_inputs(rng: np.random.Generator) -> list[np.ndarray]:
    return [uniform(rng, 7, 6), uniform(rng, 6, 10)]


def mesh_matmul_expected(inputs: list[np.ndarray]) -> list[Expect]:
    a, b = (x.astype(np.float64) for x in inputs)
    c = f32(a @ b)
    return [Expect(c), Expect.replicated(c, 4)]


CASES = [
    Case("dp_mlp.mlir", ("x", "w1", "w2"), dp_mlp_inputs, dp_mlp_expected),
    Case("megatron_mlp.mlir", ("x", "w1", "w2"), megatron_inputs, megatron_expected),
    Case(
        "megatron_mlp_shard.mlir",
        ("x", "w1", "w2"),
        megatron_shard_inputs,
        megatron_shard_expected,
    ),
    Case("layernorm.mlir", ("x",), layernorm_inputs, layernorm_expected),
    Case(
        "allreduce_mstack.mlir",
        ("a", "b", "c", "d"),
        allreduce_mstack_inputs,
        allreduce_mstack_expected,
    ),
    Case("uneven.mlir", ("x",), uneven_inputs, uneven_expected),
    Case("copies.mlir", ("x",), copies_inputs, copies_expected),
    Case("mesh_matmul.mlir", ("a", "b"), mesh_matmul_inputs, mesh_matmul_expected),
]
CASE_IDS = [c.file.removesuffix(".mlir") for c in CASES]
EXAMPLE_FILES = sorted(p.name for p in EXAMPLES.glob("*.mlir"))


def parse_example(name: str) -> ModuleOp:
    path = EXAMPLES / name
    return Parser(make_context(), path.read_text(), str(path)).parse_module()


def seed_of(case: Case) -> int:
    return sum(case.file.encode())  # fixed per example, different between examples


# --------------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------------


def test_every_example_has_a_numeric_case() -> None:
    assert EXAMPLE_FILES, f"no examples found in {EXAMPLES}"
    assert sorted(c.file for c in CASES) == EXAMPLE_FILES


@pytest.mark.parametrize("name", EXAMPLE_FILES)
def test_example_parses_and_verifies(name: str) -> None:
    module = parse_example(name)
    module.verify()
    func = next(op for op in module.walk() if op.name == "func.func")
    assert func.sym_name.data == "main"  # type: ignore[attr-defined]
    assert "multi.devices" in module.attributes


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_example_arg_names_match_the_program(case: Case) -> None:
    """The names the command-line test passes with `--input NAME=...` are main's arguments."""
    text = (EXAMPLES / case.file).read_text()
    for name in case.arg_names:
        assert f"%{name}: tensor<" in text, f"{case.file}: no argument %{name}"


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_example_matches_numpy(case: Case) -> None:
    from xdsl_multi.runtime.interpreter.interpreter import run_module

    module = parse_example(case.file)
    module.verify()
    inputs = case.make_inputs(np.random.default_rng(seed_of(case)))
    got = run_module(module, [a.copy() for a in inputs])
    check_results(got, case.expected(inputs))


# Every pass keeps @main's logical signature (SPEC §5), so a lowered example takes the same inputs
# and must give the same outputs. One pipeline per level, and each allreduce algorithm.
PIPELINES = [
    "multi-to-devidx",
    "multi-to-devidx,devidx-simplify",
    "multi-to-devidx,devidx-simplify,specialize-devices",
    "multi-to-devidx{allreduce=ring ring-threshold=0},devidx-simplify,specialize-devices",
    "multi-to-devidx{allreduce=all2all},devidx-simplify,specialize-devices",
]
KNOWN_LOWERING_BUGS: dict[tuple[str, str], str] = {}


def lowering_params() -> list[object]:
    params: list[object] = []
    for case in CASES:
        for pipeline in PIPELINES:
            marks = [
                pytest.mark.xfail(strict=True, reason=reason)
                for (file, pass_name), reason in KNOWN_LOWERING_BUGS.items()
                if file == case.file and pass_name in pipeline
            ]
            case_id = f"{case.file.removesuffix('.mlir')}|{pipeline}"
            params.append(pytest.param(case, pipeline, id=case_id, marks=marks))
    return params


def lower(module: ModuleOp, pipeline: str) -> ModuleOp:
    passes = get_all_passes()
    for spec in pipeline.split(","):
        name = spec.split("{")[0]
        if name not in passes:
            pytest.skip(f"pass {name} does not exist yet")
    PassPipeline.parse_spec(passes, pipeline).apply(make_context(), module)
    module.verify()
    return module


@pytest.mark.parametrize(("case", "pipeline"), lowering_params())
def test_lowered_example_matches_numpy(case: Case, pipeline: str) -> None:
    from xdsl_multi.runtime.interpreter.interpreter import run_module

    module = lower(parse_example(case.file), pipeline)
    inputs = case.make_inputs(np.random.default_rng(seed_of(case)))
    got = run_module(module, [a.copy() for a in inputs])
    check_results(got, case.expected(inputs))


# --------------------------------------------------------------------------------------------
# Command-line tools
# --------------------------------------------------------------------------------------------


def tool_command(script: str, module: str) -> list[str]:
    """The console script next to this Python (the installation under test), else `-m module`.

    Skips the test, naming the reason, when the tool's module does not exist yet.
    """
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{script}: module {module} does not exist yet")
    path = Path(sys.executable).parent / script
    if path.exists() and os.access(path, os.X_OK):
        return [str(path)]
    return [sys.executable, "-m", module]


def run_tool(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cmd, check=False, capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT_SECONDS
    )


@pytest.mark.parametrize("name", EXAMPLE_FILES)
def test_multi_opt_prints_example(name: str) -> None:
    """`multi-opt` prints the example, and its output parses back to the same module."""
    cmd = tool_command("multi-opt", "xdsl_multi.tools.multi_opt")
    result = run_tool([*cmd, str(EXAMPLES / name)])
    assert result.returncode == 0, result.stderr
    assert "func.func @main" in result.stdout
    reparsed = Parser(make_context(), result.stdout, "<multi-opt output>").parse_module()
    reparsed.verify()
    assert str(reparsed) == str(parse_example(name))


@pytest.mark.parametrize("name", EXAMPLE_FILES)
def test_multi_run_random_inputs(name: str) -> None:
    cmd = tool_command("multi-run", "xdsl_multi.tools.multi_run")
    result = run_tool(
        [*cmd, str(EXAMPLES / name), "--backend", "interp", "--random-inputs", "--seed", "0"]
    )
    assert result.returncode == 0, f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_multi_run_matches_numpy(case: Case, tmp_path: Path) -> None:
    """The command-line contract end to end: `--input NAME=FILE.npy`, `--output FILE.npz`."""
    cmd = tool_command("multi-run", "xdsl_multi.tools.multi_run")
    inputs = case.make_inputs(np.random.default_rng(seed_of(case)))
    args: list[str] = []
    for name, value in zip(case.arg_names, inputs, strict=True):
        np.save(tmp_path / f"{name}.npy", value)
        args += ["--input", f"{name}={tmp_path / f'{name}.npy'}"]
    out = tmp_path / "out.npz"
    result = run_tool(
        [*cmd, str(EXAMPLES / case.file), "--backend", "interp", *args, "--output", str(out)]
    )
    assert result.returncode == 0, f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    with np.load(out) as saved:
        want = case.expected(inputs)
        assert sorted(saved.files) == sorted(f"result{i}" for i in range(len(want)))
        check_results([saved[f"result{i}"] for i in range(len(want))], want)

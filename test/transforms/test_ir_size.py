"""IR size does not depend on tensor sizes (issue 9): no pass emits code per tensor element.

Every example, every benchmark program (at a small size) and the programs in programs/ go
through the pipeline at two sizes, with every shape scaled by 2 and by 8 (`scale_shapes`); the
op count after each level must not grow with the sizes (up to `SLACK` ops: an uneven split
whose parts change, index constants that coincide at one size). Scaling by 2 first keeps every
device's share longer than 1 (at the programs' small sizes a share of one row is a different
program: no loop). Register tiles are the one legitimate growth (a tile is unrolled, and is
smaller than the policy's when the data is): form-kernels runs with a 2 x 4 tile, which both
sizes fill.

A gather of a large tensor to a device holding no shard (programs/gather_to_fifth_device.mlir)
and allreduces to devices that are not sources also compile quickly at their full size and give
numpy's values on the threads backend, with the kernels specialized and in SPMD mode.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import time
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from compiled_runs import MODES, lowered
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.passes import PassPipeline

from xdsl_multi.dialects import make_context
from xdsl_multi.levels import Level
from xdsl_multi.passes import get_all_passes
from xdsl_multi.pipeline import pipeline_specs
from xdsl_multi.runtime.program import Program
from xdsl_multi.runtime.schedule import Call, Recv, Send, compile_schedules

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent / "programs"
TILE = "tile-rows=2 tile-cols=4"
OPTIONS = {"form-kernels": TILE}


def _stages(spmd: bool) -> tuple[str, ...]:
    """The pipeline's passes (xdsl_multi/pipeline.py) from the multi level, with the test's
    register tile."""
    return tuple(str(s) for s in pipeline_specs(Level.MULTI, spmd=spmd, options=OPTIONS))


SHARED = _stages(False)[:2]  # multi-to-devidx, devidx-simplify: both modes
SPECIALIZED = _stages(False)[2:]
SPMD = _stages(True)[2:]
SLACK = 8
"""Ops a level may gain when every shape grows 4x (never a number proportional to elements)."""
COMPILE_LIMIT_SECONDS = 30.0
"""Far above the second the full-size programs take, far below the minutes of issue 9."""


def scale_shapes(text: str, factor: int) -> str:
    """`text` with every dimension above 1 of every `tensor<...>` type multiplied by `factor`
    (dimensions of 1, kept reduced axes and broadcast sources, stay 1). Static `tg.pad` and
    `tg.shrink` bounds and non-splat constants would need scaling too: none may occur."""
    assert not re.search(r"dense<\[", text), "non-splat dense constants are not scaled"
    for line in text.splitlines():
        if re.search(r"tg\.(pad|shrink) ", line):
            assert not re.search(r"\[\[\s*\d", line), f"static bounds are not scaled: {line}"

    def dims(m: re.Match[str]) -> str:
        sizes = m.group(1).split("x")[:-1]
        return "tensor<" + "".join(f"{int(s) * factor if int(s) > 1 else s}x" for s in sizes)

    return re.sub(r"tensor<((?:\d+x)+)", dims, text)


def test_scale_shapes() -> None:
    text = "tensor<8x1x16xf32, #s0> tensor<f32> tensor<7xi32> tensor<1x5xf32>"
    assert (
        scale_shapes(text, 4)
        == "tensor<32x1x64xf32, #s0> tensor<f32> tensor<28xi32> tensor<1x20xf32>"
    )
    with pytest.raises(AssertionError, match="static bounds"):
        scale_shapes("%f = tg.shrink %x [[0, 4], [1, 3]] : tensor<8x4xf32> -> tensor<4x2xf32>", 2)


def load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def programs() -> dict[str, str]:
    """Every example, every benchmark program at its tested small size, and programs/."""
    bench = load("test_bench_programs_sizes", ROOT / "test" / "test_bench_programs.py")
    out = {p.stem: p.read_text() for p in sorted((ROOT / "examples").glob("*.mlir"))}
    small = {case.id: case.text for case in bench.SCALED}
    for n in (2, 8):  # the other allreduce sizes of W6, scaled like w6_allreduce_n4
        name = f"w6_allreduce_n{n}"
        small[name] = lambda name=name: bench.scaled(bench.program(f"{name}.mlir"), {4194304: 10})
    files = sorted(p.stem for p in (ROOT / "bench" / "programs").glob("*.mlir"))
    assert sorted(small) == files, "every benchmark program needs a small size here"
    out.update({f"bench/{name}": small[name]() for name in files})
    out.update({p.stem: p.read_text() for p in sorted(HERE.glob("*.mlir"))})
    return out


PROGRAMS = programs()


def level_sizes(text: str) -> dict[str, int]:
    """The op count of the module after each level's pass (SPMD mode prefixed `spmd:`)."""
    passes, ctx = get_all_passes(), make_context()
    module = Parser(ctx, text).parse_module()
    sizes: dict[str, int] = {}

    def run(m: ModuleOp, names: tuple[str, ...], prefix: str) -> None:
        for name in names:
            PassPipeline.parse_spec(passes, name).apply(ctx, m)
            sizes[prefix + name] = sum(1 for _ in m.walk())

    run(module, SHARED, "")
    spmd = module.clone()
    run(module, SPECIALIZED, "")
    run(spmd, SPMD, "spmd:")
    return sizes


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_ir_size_does_not_grow_with_tensor_sizes(name: str) -> None:
    small = level_sizes(scale_shapes(PROGRAMS[name], 2))
    large = level_sizes(scale_shapes(PROGRAMS[name], 8))
    grown = {
        level: (small[level], large[level])
        for level in small
        if large[level] > small[level] + SLACK
    }
    assert not grown, f"{name}: ops at shapes x2 -> x8, by level: {grown}"


def gather_case(rng: np.random.Generator) -> tuple[list[np.ndarray], list[np.ndarray]]:
    x = rng.integers(-1000, 1000, size=(64, 1024), dtype=np.int32)
    return [x], [x]


def allreduce_case(rng: np.random.Generator) -> tuple[list[np.ndarray], list[np.ndarray]]:
    x = rng.uniform(-1, 1, size=(2, 64, 256)).astype(np.float32)
    return [x], [np.stack([x[0] + x[1]] * 2), np.maximum(x[0], x[1]), x[0]]


FULL_SIZE = {"gather_to_fifth_device": gather_case, "allreduce_to_other_devices": allreduce_case}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(FULL_SIZE))
def test_full_size_compiles_quickly_and_matches_numpy(name: str, mode: str) -> None:
    text = (HERE / f"{name}.mlir").read_text()
    start = time.perf_counter()
    module = lowered(text, mode)
    seconds = time.perf_counter() - start
    assert seconds < COMPILE_LIMIT_SECONDS, f"{name} ({mode}) took {seconds:.1f} s to lower"
    inputs, want = FULL_SIZE[name](np.random.default_rng(9))
    with Program(module) as program:
        got = program(inputs)
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g.dtype == w.dtype and g.shape == w.shape, f"result {k}: {g.dtype}{g.shape}"
        np.testing.assert_allclose(g, w, rtol=1e-6, err_msg=f"{name} ({mode}) result {k}")


def kernel_level(text: str, mode: str) -> list[ModuleOp]:
    """The device modules after form-kernels (`mode` as in compiled_runs.MODES)."""
    passes, ctx = get_all_passes(), make_context()
    module = Parser(ctx, text).parse_module()
    tail = SPMD[0] if mode == "spmd" else ",".join(SPECIALIZED[:2])
    PassPipeline.parse_spec(passes, ",".join((*SHARED, tail))).apply(ctx, module)
    return [m for m in module.ops if isinstance(m, ModuleOp)]


@pytest.mark.parametrize("mode", MODES)
def test_gather_non_holders_compute_and_receive_nothing(mode: str) -> None:
    """CPU:0..3 hold no part of the gathered result: each sends its share to CPU:4 once and
    runs no kernel for the result (SPMD mode: only the kernel that makes what it sends) and
    receives nothing; CPU:4 receives the four shares."""
    text = (HERE / "gather_to_fifth_device.mlir").read_text()
    if mode == "spmd":  # one schedule for every device: what each device runs of it
        spmd = Parser(make_context(), text).parse_module()
        PassPipeline.parse_spec(get_all_passes(), ",".join((*SHARED, SPMD[0]))).apply(
            make_context(), spmd
        )
        for k, sched in enumerate(compile_schedules(spmd, "threads")):
            sends = sum(isinstance(s, Send) for s in sched.steps)
            recvs = sum(isinstance(s, Recv) for s in sched.steps)
            calls = sum(isinstance(s, Call) for s in sched.steps)
            if k < 4:
                assert (sends, recvs, calls) == (1, 0, 1), (k, sched.steps)
            else:
                assert (sends, recvs) == (0, 4), sched.steps
        return
    devices = kernel_level(text, mode)
    assert len(devices) == 5
    for k, device in enumerate(devices):
        ops = [op.name for op in device.walk()]
        calls = ops.count("func.call")
        if k < 4:
            assert (ops.count("devidx.send"), ops.count("devidx.recv")) == (1, 0), (k, ops)
            assert calls == (1 if mode == "spmd" else 0), f"device {k} runs {calls} kernels"
        else:
            assert (ops.count("devidx.send"), ops.count("devidx.recv")) == (0, 4), ops

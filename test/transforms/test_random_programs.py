"""Property-based equivalence of the lowering pipeline on random multi-level programs
(issue "Symbolic lowering").

Each example is a random VALID multi-level program (test/support/random_programs.py: up to ~12
ops over 1, 2, 3, 4 or 8 devices mixing elementwise math, cmp/where/cast, reductions on and off
the shard axis, movement ops, every copy kind, multi/mselect/mstack and allreduce, with uneven
and empty shards). The reference interpreter must give the same logical outputs for

    the multi-level program
    == after multi-to-devidx{allreduce=naive|ring|all2all|auto ring-threshold=<small>}
    == after devidx-simplify          (when xdsl_multi.transforms.devidx_simplify exists)
    == after specialize-devices       (when xdsl_multi.transforms.specialize_devices exists)

Floats are compared with rtol=1e-4, atol=1e-5 (the generator keeps magnitudes and summation-order
drift far below that), integers and booleans exactly.

Number of programs: 300 by default (derandomized, so every run checks the same programs). Set
the environment variable XDSL_MULTI_RANDOM_PROGRAMS for more, e.g.

    XDSL_MULTI_RANDOM_PROGRAMS=10000 python -m pytest test/transforms/test_random_programs.py

A failure message holds the program text, the pass options, the input seed and the stage that
disagrees. To replay one seeded program outside hypothesis:

    python test/transforms/test_random_programs.py SEED [allreduce] [ring_threshold]

The explicit cases at the bottom are programs found by this test (see test/regressions/).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.passes import ModulePass

from xdsl_multi.dialects import make_context
from xdsl_multi.runtime.interpreter import run_module
from xdsl_multi.transforms.multi_to_devidx import MultiToDevidx

if __name__ == "__main__":  # replay mode: make test/support importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))

from random_programs import Program, program_inputs, programs, random_program  # noqa: E402

NUM_PROGRAMS = int(os.environ.get("XDSL_MULTI_RANDOM_PROGRAMS", "300"))
ALLREDUCE = ("naive", "ring", "all2all", "auto")
RTOL, ATOL = 1e-4, 1e-5


def _optional_pass(module: str, cls: str) -> Callable[[], ModulePass] | None:
    """A later pass of the pipeline, once its module exists."""
    if importlib.util.find_spec(module) is None:
        return None
    return getattr(importlib.import_module(module), cls)


LATER_STAGES: list[tuple[str, Callable[[], ModulePass]]] = [
    (name, factory)
    for name, factory in [
        ("devidx-simplify",
         _optional_pass("xdsl_multi.transforms.devidx_simplify", "DevidxSimplify")),
        ("specialize-devices",
         _optional_pass("xdsl_multi.transforms.specialize_devices", "SpecializeDevices")),
    ]
    if factory is not None
]


def parse(text: str) -> ModuleOp:
    module = Parser(make_context(), text).parse_module()
    module.verify()
    return module


def compare(got: list[np.ndarray], want: list[np.ndarray]) -> str | None:
    """None when equal, else what differs."""
    if len(got) != len(want):
        return f"{len(got)} results, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        g, w = np.asarray(g), np.asarray(w)
        if g.shape != w.shape or g.dtype != w.dtype:
            return f"result {i}: {g.dtype}{list(g.shape)}, expected {w.dtype}{list(w.shape)}"
        if np.issubdtype(w.dtype, np.floating):
            ok = np.isclose(g, w, rtol=RTOL, atol=ATOL, equal_nan=True)
        else:
            ok = g == w
        if not ok.all():
            bad = np.argwhere(~ok)
            idx = tuple(bad[0])
            return (f"result {i}: {len(bad)} of {w.size} elements differ, first at {list(idx)}: "
                    f"got {g[idx]!r}, expected {w[idx]!r}\n  got:      "
                    f"{np.array2string(g.ravel()[:24], precision=5)}\n  expected: "
                    f"{np.array2string(w.ravel()[:24], precision=5)}")
    return None


def check_program(text: str, allreduce: str, ring_threshold: int, seed: int) -> None:
    """The multi-level program and every stage of the pipeline give the same outputs."""
    where = (f"\n--- options: allreduce={allreduce} ring-threshold={ring_threshold}, "
             f"input seed {seed}\n--- program:\n{text}")
    before = parse(text)
    inputs = program_inputs(before, seed)
    want = run_module(before, inputs)
    module = before.clone()
    stages: list[tuple[str, Callable[[], ModulePass]]] = [
        ("multi-to-devidx",
         lambda: MultiToDevidx(allreduce=allreduce, ring_threshold=ring_threshold)),
        *LATER_STAGES,
    ]
    for name, make in stages:
        try:
            make().apply(make_context(), module)
            module.verify()
            got = run_module(module, inputs)
        except Exception as e:
            raise AssertionError(
                f"{name} failed: {type(e).__name__}: {e}{where}\n--- module after {name}:\n"
                f"{_head(module)}"
            ) from e
        diff = compare(got, want)
        if diff is not None:
            raise AssertionError(
                f"outputs after {name} differ from the multi-level program: {diff}{where}\n"
                f"--- module after {name}:\n{_head(module)}"
            )


def _head(module: ModuleOp, lines: int = 150) -> str:
    text = str(module).splitlines()
    return "\n".join(text[:lines] + ([f"... ({len(text) - lines} more lines)"]
                                     if len(text) > lines else []))


@settings(
    max_examples=NUM_PROGRAMS,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    program=programs(),
    allreduce=st.sampled_from(ALLREDUCE),
    ring_threshold=st.integers(0, 64),
    seed=st.integers(0, 2**16),
)
def test_random_programs_are_equivalent_at_every_level(
    program: Program, allreduce: str, ring_threshold: int, seed: int
) -> None:
    event(f"devices: {program.num_devices}")
    event(f"allreduce: {allreduce}")
    event(f"ops: {program.num_ops // 4 * 4}-{program.num_ops // 4 * 4 + 3}")
    for name in sorted(set(program.op_names)):
        event(f"op: {name}")
    check_program(program.text, allreduce, ring_threshold, seed)


@pytest.mark.parametrize("seed", range(5))
def test_seeded_programs(seed: int) -> None:
    """The plain seeded generator (used for reproduction) gives checkable programs too."""
    check_program(random_program(seed).text, ALLREDUCE[seed % 4], 8 * seed, seed)


def test_pipeline_stages_present() -> None:
    """Documents which stages this run checks (later passes join once their modules exist)."""
    assert [n for n, _ in LATER_STAGES] == [
        n for n in ("devidx-simplify", "specialize-devices")
        if importlib.util.find_spec(
            "xdsl_multi.transforms." + n.replace("-", "_")) is not None
    ]


if __name__ == "__main__":
    seed = int(sys.argv[1])
    allreduce = sys.argv[2] if len(sys.argv) > 2 else "auto"
    threshold = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    program = random_program(seed)
    print(program.text)
    check_program(program.text, allreduce, threshold, seed)
    print(f"ok: {program.num_ops} ops on {program.num_devices} devices")

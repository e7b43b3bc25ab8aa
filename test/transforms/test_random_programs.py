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

    python test/transforms/test_random_programs.py SEED [allreduce] [ring_threshold] [max_ops]

Programs this test found that the pipeline gets wrong are minimized into test/regressions/
(test_random_program_findings.py); the explicit cases below are interesting passing programs.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

if __name__ == "__main__":  # replay mode: make test/support importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))

from pipeline_check import ALLREDUCE, LATER_STAGES, check_program  # noqa: E402
from random_programs import Program, programs, random_program  # noqa: E402

NUM_PROGRAMS = int(os.environ.get("XDSL_MULTI_RANDOM_PROGRAMS", "300"))


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
    program = random_program(seed, int(sys.argv[4]) if len(sys.argv) > 4 else 12)
    print(program.text)
    check_program(program.text, allreduce, threshold, seed)
    print(f"ok: {program.num_ops} ops on {program.num_devices} devices")

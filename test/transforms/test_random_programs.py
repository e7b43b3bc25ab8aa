"""Property-based equivalence of the lowering pipeline on random multi-level programs
(issue "Symbolic lowering").

Each example is a random VALID multi-level program (test/support/random_programs.py: up to ~12
ops over 1, 2, 3, 4 or 8 devices mixing elementwise math, cmp/where/cast, reductions on and off
the shard axis, movement ops, every copy kind, multi/mselect/mstack and allreduce, with uneven
and empty shards). The reference interpreter must give the same logical outputs for

    the multi-level program
    == after multi-to-devidx{allreduce=naive|ring|all2all|auto ring-threshold=<small>}
    == after devidx-simplify          (when xdsl_multi.transforms.devidx_simplify.devidx_simplify exists)
    == after specialize-devices       (when xdsl_multi.transforms.specialize_devices.specialize_devices exists)
    == after form-kernels             (when xdsl_multi.transforms.form_kernels.form_kernels exists; the
                                       interpreter runs the kernel level)

Floats are compared with rtol=1e-4, atol=1e-5 (the generator keeps magnitudes and summation-order
drift far below that), integers and booleans exactly.

Number of programs: 80 by default (derandomized, so every run checks the same programs; CI time). Set
the environment variable XDSL_MULTI_RANDOM_PROGRAMS for more, e.g.

    XDSL_MULTI_RANDOM_PROGRAMS=10000 python -m pytest test/transforms/test_random_programs.py

A failure message holds the program text, the pass options, the input seed and the stage that
disagrees. To replay one seeded program outside hypothesis:

    python test/transforms/test_random_programs.py SEED [allreduce] [ring_threshold] [max_ops]

Programs this test found that the pipeline gets wrong are minimized into test/regressions/
(test_random_program_findings.py); the explicit cases below are interesting passing programs.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

if __name__ == "__main__":  # replay mode: make test/support importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))

from pipeline_check import ALLREDUCE, check_program, stages
from random_programs import Program, programs, random_program

NUM_PROGRAMS = int(os.environ.get("XDSL_MULTI_RANDOM_PROGRAMS", "80"))


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
    """Documents which stages this run checks: the pipeline's (xdsl_multi/pipeline.py) up to
    the kernel level, and in SPMD mode form-kernels{spmd=true} after devidx-simplify."""
    assert [str(s) for s in stages("ring", 0)] == [
        'multi-to-devidx{allreduce="ring" ring-threshold=0}',
        "devidx-simplify",
        "specialize-devices",
        "form-kernels",
    ]
    assert [str(s) for s in stages("ring", 0, spmd=True)][1:] == [
        "devidx-simplify",
        "form-kernels{spmd=true}",
    ]


# Interesting programs met while writing the generator, checked on every allreduce schedule.
CASES: dict[str, str] = {
    # 3 rows over 4 devices (CPU:3 owns nothing) in a permuted module order: mul and max over the
    # shard axis need the identity on the empty device
    "empty_shards_reduce_mul_max_permuted_module_order": """\
module attributes {multi.devices = ["CPU:2", "CPU:0", "CPU:3", "CPU:1"]} {
  func.func @main(%x: tensor<3x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], axis = 0>>) -> (tensor<1x5xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>, tensor<1x5xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>) {
    %t = math.tanh %x : tensor<3x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], axis = 0>>
    %p = tg.reduce mul %t [0] : tensor<3x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], axis = 0>> -> tensor<1x5xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>
    %m = tg.reduce max %t [0] : tensor<3x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], axis = 0>> -> tensor<1x5xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>
    func.return %p, %m : tensor<1x5xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>, tensor<1x5xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>
  }
}
""",
    # reshape by tinygrad's even-split rule (8 -> 4x2 on axis 0), then a reshard to axis 2 in the
    # reversed device order, and a row-local reduce that keeps the split
    "even_split_reshape_then_reshard_axis_and_order": """\
module attributes {multi.devices = ["CPU:1", "CPU:0"]} {
  func.func @main(%x: tensor<8x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> (tensor<4x2x3xf32, #multi.shard<["CPU:1", "CPU:0"], axis = 2>>, tensor<4x1x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) {
    %r = tg.reshape %x : tensor<8x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<4x2x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
    %c = multi.copy %r : tensor<4x2x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<4x2x3xf32, #multi.shard<["CPU:1", "CPU:0"], axis = 2>>
    %s = tg.reduce add %r [1, 2] : tensor<4x2x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<4x1x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
    func.return %c, %s : tensor<4x2x3xf32, #multi.shard<["CPU:1", "CPU:0"], axis = 2>>, tensor<4x1x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  }
}
""",
    # i8 max over an axis with Invalid padding: all-Invalid columns give the identity (-128), on
    # and off the shard axis, 4 rows over 3 devices
    "i8_max_over_invalid_padding": """\
module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2"]} {
  func.func @main(%x: tensor<4x3xi8, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>) -> (tensor<1x5xi8, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>, tensor<4x1xi8, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>) {
    %p = tg.pad %x [[0, 0], [1, 1]] invalid : tensor<4x3xi8, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<4x5xi8, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
    %m = tg.reduce max %p [0] : tensor<4x5xi8, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<1x5xi8, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
    %r = tg.reduce max %p [1] : tensor<4x5xi8, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<4x1xi8, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
    func.return %m, %r : tensor<1x5xi8, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>, tensor<4x1xi8, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  }
}
""",
    # bf16 allreduce mul from 2 devices to 3 others, f16 exp scattered to a reversed subset
    "bf16_f16_allreduce_to_other_devices": """\
module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2", "CPU:3"]} {
  func.func @main(%x: tensor<3x2xbf16, #multi.on<["CPU:1", "CPU:3"]>>, %y: tensor<3x2xf16, #multi.on<["CPU:0"]>>) -> (tensor<3x2xbf16, #multi.on<["CPU:2", "CPU:0", "CPU:3"]>>, tensor<3x2xf16, #multi.shard<["CPU:3", "CPU:2"], axis = 0>>) {
    %t = math.tanh %x : tensor<3x2xbf16, #multi.on<["CPU:1", "CPU:3"]>>
    %a = multi.allreduce mul %t : tensor<3x2xbf16, #multi.on<["CPU:1", "CPU:3"]>> -> tensor<3x2xbf16, #multi.on<["CPU:2", "CPU:0", "CPU:3"]>>
    %e = math.exp %y : tensor<3x2xf16, #multi.on<["CPU:0"]>>
    %s = multi.copy %e : tensor<3x2xf16, #multi.on<["CPU:0"]>> -> tensor<3x2xf16, #multi.shard<["CPU:3", "CPU:2"], axis = 0>>
    func.return %a, %s : tensor<3x2xbf16, #multi.on<["CPU:2", "CPU:0", "CPU:3"]>>, tensor<3x2xf16, #multi.shard<["CPU:3", "CPU:2"], axis = 0>>
  }
}
""",
    # 3 rows over 8 devices: shrink selecting shard 1, mselect device 5, reshard axis 0 -> 1 in the
    # reversed order (most shards empty)
    "select_one_of_8_shards_and_transposing_reshard": """\
module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2", "CPU:3", "CPU:4", "CPU:5", "CPU:6", "CPU:7"]} {
  func.func @main(%x: tensor<3x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3", "CPU:4", "CPU:5", "CPU:6", "CPU:7"], axis = 0>>) -> (tensor<1x6xf32, #multi.on<["CPU:5"]>>, tensor<3x6xf32, #multi.shard<["CPU:7", "CPU:6", "CPU:5", "CPU:4", "CPU:3", "CPU:2", "CPU:1", "CPU:0"], axis = 1>>) {
    %one = tg.shrink %x [[1, 2], [0, 6]] : tensor<3x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3", "CPU:4", "CPU:5", "CPU:6", "CPU:7"], axis = 0>> -> tensor<1x6xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3", "CPU:4", "CPU:5", "CPU:6", "CPU:7"]>>
    %s = multi.mselect %one[5] : tensor<1x6xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3", "CPU:4", "CPU:5", "CPU:6", "CPU:7"]>> -> tensor<1x6xf32, #multi.on<["CPU:5"]>>
    %r = multi.copy %x : tensor<3x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3", "CPU:4", "CPU:5", "CPU:6", "CPU:7"], axis = 0>> -> tensor<3x6xf32, #multi.shard<["CPU:7", "CPU:6", "CPU:5", "CPU:4", "CPU:3", "CPU:2", "CPU:1", "CPU:0"], axis = 1>>
    func.return %s, %r : tensor<1x6xf32, #multi.on<["CPU:5"]>>, tensor<3x6xf32, #multi.shard<["CPU:7", "CPU:6", "CPU:5", "CPU:4", "CPU:3", "CPU:2", "CPU:1", "CPU:0"], axis = 1>>
  }
}
""",
}


@pytest.mark.parametrize("allreduce", ALLREDUCE)
@pytest.mark.parametrize("name", sorted(CASES))
def test_explicit_cases(name: str, allreduce: str) -> None:
    check_program(CASES[name], allreduce, 0, seed=1)


if __name__ == "__main__":
    seed = int(sys.argv[1])
    allreduce = sys.argv[2] if len(sys.argv) > 2 else "auto"
    threshold = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    program = random_program(seed, int(sys.argv[4]) if len(sys.argv) > 4 else 12)
    print(program.text)
    check_program(program.text, allreduce, threshold, seed)
    print(f"ok: {program.num_ops} ops on {program.num_devices} devices")

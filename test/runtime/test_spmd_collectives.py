"""All-gather and broadcast as ops of the SPMD host schedule (issue 13): with
`collectives=ops` (SPMD mode) a copy from a shard over every device to every device is one
`devidx.allgather` and a copy from one device to every device one `devidx.broadcast`; every
level's interpreter, the threads backend and the mpi backend give the multi-level
interpreter's results, with uneven shards and device lists in another order than the module's.
The default `collectives=fetches` has no such op."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from mpi_jobs import mpirun, needs_mpi
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import VerifyException

from xdsl_multi.dialects import devidx, make_context
from xdsl_multi.dialects.parsing import parse_mlir
from xdsl_multi.levels import Level
from xdsl_multi.pipeline import build_pipeline, lower_for_runtime, pipeline_specs
from xdsl_multi.runtime.interpreter.interpreter import run_module
from xdsl_multi.runtime.interpreter.machine import InterpStats
from xdsl_multi.runtime.program import Program
from xdsl_multi.runtime.schedule import ScheduleError, compile_schedules


def _names(order: list[int]) -> str:
    return "[" + ", ".join(f'"CPU:{i}"' for i in order) + "]"


def collective_program(n: int, order: list[int], root: int) -> str:
    """x ((3n+1) x 5, uneven) sharded on axis 0 and y (4 x (2n-1) i32) on axis 1 over `order`,
    gathered to every device (listed reversed) and used by a kernel; w (3 x i1) on device
    `root` broadcast to every device."""
    shard, every = _names(order), _names(list(range(n))[::-1])
    tx = f"tensor<{3 * n + 1}x5xf32, #multi.shard<{shard}, axis = 0>>"
    ty = f"tensor<4x{2 * n - 1}xi32, #multi.shard<{shard}, axis = 1>>"
    tw = f"tensor<3xi1, #multi.on<{_names([root])}>>"
    ax = f"tensor<{3 * n + 1}x5xf32, #multi.on<{every}>>"
    ay = f"tensor<4x{2 * n - 1}xi32, #multi.on<{every}>>"
    aw = f"tensor<3xi1, #multi.on<{every}>>"
    return f"""builtin.module attributes {{multi.devices = {_names(list(range(n)))}}} {{
  func.func @main(%x: {tx}, %y: {ty}, %w: {tw}) -> ({ax}, {ay}, {aw}) {{
    %a = multi.copy %x : {tx} -> {ax}
    %a2 = arith.mulf %a, %a : {ax}
    %b = multi.copy %y : {ty} -> {ay}
    %c = multi.copy %w : {tw} -> {aw}
    func.return %a2, %b, %c : {ax}, {ay}, {aw}
  }}
}}
"""


def inputs(n: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [
        rng.standard_normal((3 * n + 1, 5)).astype(np.float32),
        rng.integers(-1000, 1000, (4, 2 * n - 1)).astype(np.int32),
        rng.random(3) < 0.5,
    ]


def parse(text: str) -> ModuleOp:
    return parse_mlir(make_context(), text)


def collective_ops(module: ModuleOp) -> list[str]:
    return [
        op.name for op in module.walk() if isinstance(op, devidx.AllgatherOp | devidx.BroadcastOp)
    ]


CASES = [(2, [1, 0], 1), (3, [2, 0, 1], 2), (4, [1, 3, 0, 2], 0)]


@pytest.mark.parametrize(("n", "order", "root"), CASES)
def test_every_spmd_level_gives_the_multi_level_results(
    n: int, order: list[int], root: int
) -> None:
    text = collective_program(n, order, root)
    args = inputs(n, n)
    want = run_module(parse(text), args)
    module = parse(text)
    for spec in pipeline_specs(Level.MULTI, Level.KERNEL, spmd=True):
        build_pipeline((spec,)).apply(make_context(), module)
        module.verify()
        got = run_module(module, args)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w, err_msg=str(spec))
        assert sorted(collective_ops(module)) == [
            "devidx.allgather",
            "devidx.allgather",
            "devidx.broadcast",
        ], str(spec)
    assert not any(isinstance(op, devidx.FetchOp) for op in module.walk())


@pytest.mark.parametrize(("n", "order", "root"), CASES)
def test_threads_gives_the_interpreters_results(n: int, order: list[int], root: int) -> None:
    """Compiled SPMD module on threads, run twice (reused buffers)."""
    text = collective_program(n, order, root)
    module = parse(text)
    lower_for_runtime(module, spmd=True)
    assert len(collective_ops(module)) == 3
    with Program(module) as program:
        for seed in (1, 2):
            args = inputs(n, seed)
            want = run_module(parse(text), args)
            got = program(args)
            for g, w in zip(got, want, strict=True):
                np.testing.assert_array_equal(g, w)


def test_collectives_fetches_has_no_collective_ops() -> None:
    """SPEC §5's form (the default): the same copies stay fetches."""
    module = parse(collective_program(3, [2, 0, 1], 2))
    build_pipeline(tuple(pipeline_specs(Level.MULTI, Level.SPMD))).apply(make_context(), module)
    assert collective_ops(module) == []
    assert any(isinstance(op, devidx.FetchOp) for op in module.walk())


def _verify_error(body: str) -> str:
    text = f"""func.func @f(%x: tensor<2x4xf32>) {{
  %k = devidx.device_num : index
  {body}
  func.return
}}"""
    with pytest.raises(VerifyException) as e:
        parse(text).verify()
    return str(e.value)


def test_allgather_verifier_names_the_expected_type() -> None:
    msg = _verify_error("%g = devidx.allgather %x at %k : tensor<2x4xf32> -> tensor<3x2x5xf32>")
    assert "devidx.allgather: result must be tensor<3x2x4xf32>, found tensor<3x2x5xf32>" in msg
    msg = _verify_error("%g = devidx.allgather %x at %k : tensor<2x4xf32> -> memref<3x2x4xf32>")
    assert "result must be a tensor with a leading axis" in msg


def test_broadcast_verifier_rejects_a_negative_root() -> None:
    msg = _verify_error("%b = devidx.broadcast %x root -1 : tensor<2x4xf32>")
    assert "devidx.broadcast: root device -1 is negative" in msg


def test_allgather_positions_must_be_a_permutation() -> None:
    module = parse("""builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"], devidx.spmd} {
  func.func @main(%x: memref<2xf32>) -> memref<2x2xf32> {
    %c0 = arith.constant 0 : index
    %g = devidx.allgather %x at %c0 : memref<2xf32> -> memref<2x2xf32>
    func.return %g : memref<2x2xf32>
  }
}""")
    with pytest.raises(ScheduleError, match=r"positions \[0, 0\] are not a permutation"):
        compile_schedules(module, "threads")


@needs_mpi
@pytest.mark.parametrize(("n", "order", "root"), [CASES[1], (2, [0, 1], 0)])
def test_mpi_gives_the_interpreters_results(
    tmp_path: Path, n: int, order: list[int], root: int
) -> None:
    """Allgatherv (the shard's order is not the ranks'; one case in rank order: Allgather),
    Bcast of i1, under mpiexec."""
    prog = tmp_path / "prog.mlir"
    prog.write_text(collective_program(n, order, root))
    r = mpirun(
        n,
        "-m",
        "xdsl_multi.tools.multi_run",
        prog,
        "--spmd",
        "--backend",
        "mpi",
        "--random-inputs",
        "--seed",
        "3",
        "--check",
    )
    assert r.returncode == 0, r.stderr
    assert "check: mpi matches interp (3 results)" in r.stdout


def rooted_program(n: int, order: list[int], root: int) -> str:
    """x ((3n+1) x (2n-1), uneven on both axes) sharded on axis 0 over `order`: gathered to
    device `root` (devidx.gather), and resharded on axis 1 (devidx.alltoall); w (2n-1 x 3 i32)
    on device `root` scattered on axis 0 over `order` (devidx.scatter)."""
    shard = _names(order)
    rows, cols = 3 * n + 1, 2 * n - 1
    tx = f"tensor<{rows}x{cols}xf32, #multi.shard<{shard}, axis = 0>>"
    gx = f"tensor<{rows}x{cols}xf32, #multi.on<{_names([root])}>>"
    rx = f"tensor<{rows}x{cols}xf32, #multi.shard<{shard}, axis = 1>>"
    tw = f"tensor<{cols}x3xi32, #multi.on<{_names([root])}>>"
    sw = f"tensor<{cols}x3xi32, #multi.shard<{shard}, axis = 0>>"
    return f"""builtin.module attributes {{multi.devices = {_names(list(range(n)))}}} {{
  func.func @main(%x: {tx}, %w: {tw}) -> ({gx}, {rx}, {sw}) {{
    %g = multi.copy %x : {tx} -> {gx}
    %g2 = arith.addf %g, %g : {gx}
    %r = multi.copy %x : {tx} -> {rx}
    %r2 = arith.mulf %r, %r : {rx}
    %s = multi.copy %w : {tw} -> {sw}
    func.return %g2, %r2, %s : {gx}, {rx}, {sw}
  }}
}}
"""


def rooted_inputs(n: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [
        rng.standard_normal((3 * n + 1, 2 * n - 1)).astype(np.float32),
        rng.integers(-1000, 1000, (2 * n - 1, 3)).astype(np.int32),
    ]


ROOTED = ["devidx.alltoall", "devidx.gather", "devidx.scatter"]


def rooted_ops(module: ModuleOp) -> list[str]:
    kinds = devidx.GatherOp | devidx.ScatterOp | devidx.AlltoallOp
    return sorted(op.name for op in module.walk() if isinstance(op, kinds))


@pytest.mark.parametrize(("n", "order", "root"), CASES)
def test_gather_scatter_alltoall_at_every_spmd_level(n: int, order: list[int], root: int) -> None:
    text = rooted_program(n, order, root)
    args = rooted_inputs(n, n)
    want = run_module(parse(text), args)
    module = parse(text)
    for spec in pipeline_specs(Level.MULTI, Level.KERNEL, spmd=True):
        build_pipeline((spec,)).apply(make_context(), module)
        module.verify()
        got = run_module(module, args)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w, err_msg=str(spec))
        assert rooted_ops(module) == ROOTED, str(spec)
    assert not any(isinstance(op, devidx.FetchOp) for op in module.walk())


@pytest.mark.parametrize(("n", "order", "root"), CASES)
def test_gather_scatter_alltoall_on_threads(n: int, order: list[int], root: int) -> None:
    """Compiled SPMD module on threads, run twice (reused buffers), against the multi-level
    interpreter; uneven shards, the shard's device order not the module's."""
    text = rooted_program(n, order, root)
    module = parse(text)
    lower_for_runtime(module, spmd=True)
    assert rooted_ops(module) == ROOTED
    with Program(module) as program:
        for seed in (1, 2):
            args = rooted_inputs(n, seed)
            want = run_module(parse(text), args)
            got = program(args)
            for g, w in zip(got, want, strict=True):
                np.testing.assert_array_equal(g, w)


def test_collectives_fetches_keeps_gathers_scatters_reshards_as_fetches() -> None:
    module = parse(rooted_program(3, [2, 0, 1], 2))
    build_pipeline(tuple(pipeline_specs(Level.MULTI, Level.SPMD))).apply(make_context(), module)
    assert rooted_ops(module) == []


def test_rooted_verifiers_name_the_rule() -> None:
    msg = _verify_error("%g = devidx.gather %x at %k root 0 : tensor<2x4xf32> -> tensor<3x2x5xf32>")
    assert "devidx.gather: result must be tensor<3x2x4xf32>, found tensor<3x2x5xf32>" in msg
    msg = _verify_error("%g = devidx.gather %x at %k root -2 : tensor<2x4xf32> -> tensor<3x2x4xf32>")
    assert "devidx.gather: root device -2 is negative" in msg
    msg = _verify_error("%s = devidx.scatter %x at %k root 0 : tensor<2x4xf32> -> tensor<3xf32>")
    assert "devidx.scatter: value must be tensor<2x3xf32>, found tensor<2x4xf32>" in msg


def test_positioned_collective_positions_must_be_a_permutation() -> None:
    module = parse("""builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"], devidx.spmd} {
  func.func @main(%x: memref<2x3xf32>) -> memref<2x3xf32> {
    %c0 = arith.constant 0 : index
    %a = devidx.alltoall %x at %c0 : memref<2x3xf32>
    func.return %a : memref<2x3xf32>
  }
}""")
    with pytest.raises(ScheduleError, match=r"devidx.alltoall .*positions \[0, 0\] are not a"):
        compile_schedules(module, "threads")


@needs_mpi
@pytest.mark.parametrize(("order", "root"), [([2, 0, 1], 1), ([0, 1, 2], 0)])
def test_gather_scatter_alltoall_on_mpi(tmp_path: Path, order: list[int], root: int) -> None:
    """Gatherv, Scatterv and Alltoallv under `mpiexec -n 3`, blocks at the shard positions."""
    prog = tmp_path / "prog.mlir"
    prog.write_text(rooted_program(3, order, root))
    r = mpirun(
        3,
        "-m",
        "xdsl_multi.tools.multi_run",
        prog,
        "--spmd",
        "--backend",
        "mpi",
        "--random-inputs",
        "--seed",
        "5",
        "--check",
    )
    assert r.returncode == 0, r.stderr
    assert "check: mpi matches interp (3 results)" in r.stdout


def subset_program(n: int, order: list[int]) -> str:
    """Copies between device lists that are not every device in the module's order (issue
    13): x (uneven) sharded over `order` to `#multi.on` all but one device (allgather), y
    sharded over all but the first of `order` to one device (gather), z sharded over a subset
    to a shard over every device in reverse (allgather + clean), x resharded to axis 1 in
    reverse order, and w on one device to a shard over the subset (scatter)."""
    sub, rest, back = order[: max(1, n - 1)], order[1:] or order, list(range(n))[::-1]
    tx = f"tensor<{3 * n + 1}x5xf32, #multi.shard<{_names(order)}, axis = 0>>"
    ax = f"tensor<{3 * n + 1}x5xf32, #multi.on<{_names(sub[::-1])}>>"
    ty = f"tensor<4x{2 * n - 1}xi32, #multi.shard<{_names(rest)}, axis = 1>>"
    ay = f"tensor<4x{2 * n - 1}xi32, #multi.on<{_names(order[:1])}>>"
    tz = f"tensor<{2 * n + 1}x3xf32, #multi.shard<{_names(sub)}, axis = 0>>"
    az = f"tensor<{2 * n + 1}x3xf32, #multi.shard<{_names(back)}, axis = 0>>"
    ax1 = f"tensor<{3 * n + 1}x5xf32, #multi.shard<{_names(back)}, axis = 1>>"
    tw = f"tensor<{2 * n + 1}x3xf32, #multi.on<{_names(order[-1:])}>>"
    aw = f"tensor<{2 * n + 1}x3xf32, #multi.shard<{_names(sub)}, axis = 0>>"
    return f"""builtin.module attributes {{multi.devices = {_names(list(range(n)))}}} {{
  func.func @main(%x: {tx}, %y: {ty}, %z: {tz}, %w: {tw}) -> ({ax}, {ay}, {az}, {ax1}, {aw}) {{
    %a = multi.copy %x : {tx} -> {ax}
    %b = multi.copy %y : {ty} -> {ay}
    %c = multi.copy %z : {tz} -> {az}
    %e = multi.copy %x : {tx} -> {ax1}
    %f = multi.copy %w : {tw} -> {aw}
    func.return %a, %b, %c, %e, %f : {ax}, {ay}, {az}, {ax1}, {aw}
  }}
}}
"""


def subset_inputs(n: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [
        rng.standard_normal((3 * n + 1, 5)).astype(np.float32),
        rng.integers(-1000, 1000, (4, 2 * n - 1)).astype(np.int32),
        rng.standard_normal((2 * n + 1, 3)).astype(np.float32),
        rng.standard_normal((2 * n + 1, 3)).astype(np.float32),
    ]


SUBSET_CASES = [(2, [1, 0]), (3, [2, 0, 1]), (4, [1, 3, 0, 2])]


@pytest.mark.parametrize(("n", "order"), SUBSET_CASES)
def test_subset_and_permuted_copies_at_every_spmd_level(n: int, order: list[int]) -> None:
    """Every SPMD-mode level's interpreter gives the multi level's results, with collective
    ops and position tables (`devidx.lookup`) and no fetch."""
    text = subset_program(n, order)
    args = subset_inputs(n, n)
    want = run_module(parse(text), args)
    module = parse(text)
    for spec in pipeline_specs(Level.MULTI, Level.KERNEL, spmd=True):
        build_pipeline((spec,)).apply(make_context(), module)
        module.verify()
        for g, w in zip(run_module(module, args), want, strict=True):
            np.testing.assert_array_equal(g, w, err_msg=str(spec))
    names = [op.name for op in module.walk()]
    assert "devidx.fetch" not in names and "devidx.lookup" in names
    moving = ("devidx.gather", "devidx.allgather", "devidx.alltoall")
    assert sum(names.count(k) for k in moving) == 4 and names.count("devidx.scatter") == 1


@pytest.mark.parametrize(("n", "order"), SUBSET_CASES)
def test_subset_and_permuted_copies_on_threads(n: int, order: list[int]) -> None:
    """Compiled (kernels in LLVM, tables as constant globals) on threads, run twice."""
    text = subset_program(n, order)
    module = parse(text)
    lower_for_runtime(module, spmd=True)
    assert not any(isinstance(op, devidx.FetchOp) for op in module.walk())
    with Program(module) as program:
        for seed in (1, 2):
            args = subset_inputs(n, seed)
            want = run_module(parse(text), args)
            for g, w in zip(program(args), want, strict=True):
                np.testing.assert_array_equal(g, w)


def test_collectives_fetches_keeps_position_chains_and_fetches() -> None:
    """SPEC §5's form (the default): positions are arith selects, copies fetches."""
    module = parse(subset_program(3, [2, 0, 1]))
    build_pipeline(tuple(pipeline_specs(Level.MULTI, Level.SPMD))).apply(make_context(), module)
    names = [op.name for op in module.walk()]
    assert "devidx.lookup" not in names and "devidx.allgather" not in names
    assert "devidx.fetch" in names and "arith.select" in names


@needs_mpi
def test_subset_and_permuted_copies_on_mpi(tmp_path: Path) -> None:
    """Allgatherv, Gatherv and Scatterv over every rank (the non-members' blocks dropped or
    padding) under `mpiexec -n 3`, with positions from tables."""
    module = parse(subset_program(3, [2, 0, 1]))
    lower_for_runtime(module, spmd=True)
    assert not any(isinstance(op, devidx.FetchOp) for op in module.walk())  # collectives only
    prog = tmp_path / "prog.mlir"
    prog.write_text(subset_program(3, [2, 0, 1]))
    r = mpirun(
        3,
        "-m",
        "xdsl_multi.tools.multi_run",
        prog,
        "--spmd",
        "--backend",
        "mpi",
        "--random-inputs",
        "--seed",
        "7",
        "--check",
    )
    assert r.returncode == 0, r.stderr
    assert "check: mpi matches interp (5 results)" in r.stdout


def subset_allreduce_program(n: int, order: list[int]) -> str:
    """Allreduces over a subset of the devices (issue 13): x (uneven, f32) sharded over all but
    the last of `order`, reduced (add) over its shard axis; y (i32) sharded over the odd
    devices, reduced (max) over its shard axis; x's
    partial sums (on the subset) allreduced to the devices outside it (broadcast); z on every
    device in `order` allreduced (mul) to the first half of `order` (a full allreduce, masked)."""
    sub, odd = order[: max(1, n - 1)], list(range(1, n, 2))
    other = [e for e in range(n) if e not in sub] or order[:1]
    half = order[: max(1, n // 2)]
    tx = f"tensor<{3 * n + 1}x5xf32, #multi.shard<{_names(sub)}, axis = 0>>"
    rx = f"tensor<1x5xf32, #multi.on<{_names(sub)}>>"
    lx = f"tensor<{-(-(3 * n + 1) // len(sub))}x5xf32, #multi.on<{_names(sub)}>>"
    ox = f"tensor<{-(-(3 * n + 1) // len(sub))}x5xf32, #multi.on<{_names(other)}>>"
    ty = f"tensor<4x{2 * n - 1}xi32, #multi.shard<{_names(odd)}, axis = 1>>"
    ry = f"tensor<4x1xi32, #multi.on<{_names(odd)}>>"
    tz = f"tensor<3x2xf32, #multi.on<{_names(order)}>>"
    hz = f"tensor<3x2xf32, #multi.on<{_names(half)}>>"
    return f"""builtin.module attributes {{multi.devices = {_names(list(range(n)))}}} {{
  func.func @main(%x: {tx}, %y: {ty}, %z: {tz}) -> ({rx}, {ry}, {ox}, {hz}) {{
    %a = tg.reduce add %x [0] : {tx} -> {rx}
    %b = tg.reduce max %y [1] : {ty} -> {ry}
    %l = multi.local %x : {tx} -> {lx}
    %c = multi.allreduce add %l : {lx} -> {ox}
    %e = multi.allreduce mul %z : {tz} -> {hz}
    func.return %a, %b, %c, %e : {rx}, {ry}, {ox}, {hz}
  }}
}}
"""


def subset_allreduce_inputs(n: int, seed: int) -> list[np.ndarray]:
    """Small integers as floats: sums and products exact in any order (the multi level
    reduces the logical rows in order, the allreduce the shards' partial sums)."""
    rng = np.random.default_rng(seed)
    return [
        rng.integers(-8, 9, (3 * n + 1, 5)).astype(np.float32),
        rng.integers(-1000, 1000, (4, 2 * n - 1)).astype(np.int32),
        rng.integers(-4, 5, (n, 3, 2)).astype(np.float32),
    ]


def _allreduce_members(module: ModuleOp) -> list[tuple[int, ...] | None]:
    return [op.member_devices for op in module.walk() if isinstance(op, devidx.AllreduceOp)]


@pytest.mark.parametrize(("n", "order"), SUBSET_CASES)
def test_subset_allreduces_are_one_op_at_every_spmd_level(n: int, order: list[int]) -> None:
    """An allreduce over a subset is one `devidx.allreduce ... members [..]` (a broadcast for
    destinations outside the sources), no fetch, with the multi level's results everywhere."""
    text = subset_allreduce_program(n, order)
    args = subset_allreduce_inputs(n, n)
    want = run_module(parse(text), args)
    module = parse(text)
    for spec in pipeline_specs(Level.MULTI, Level.KERNEL, spmd=True):
        build_pipeline((spec,)).apply(make_context(), module)
        module.verify()
        for g, w in zip(run_module(module, args), want, strict=True):
            np.testing.assert_array_equal(g, w, err_msg=str(spec))
    names = [op.name for op in module.walk()]
    assert "devidx.fetch" not in names
    sub = tuple(order[: max(1, n - 1)])
    assert sorted(map(str, _allreduce_members(module))) == sorted(
        map(str, [sub, tuple(range(1, n, 2)), sub, None])
    )
    assert names.count("devidx.broadcast") == 1


@pytest.mark.parametrize(("n", "order"), SUBSET_CASES)
def test_subset_allreduces_on_threads(n: int, order: list[int]) -> None:
    """Compiled on threads (members-only rendezvous, the others zero), run twice."""
    text = subset_allreduce_program(n, order)
    module = parse(text)
    lower_for_runtime(module, spmd=True)
    assert not any(isinstance(op, devidx.FetchOp) for op in module.walk())
    with Program(module) as program:
        for seed in (1, 2):
            args = subset_allreduce_inputs(n, seed)
            want = run_module(parse(text), args)
            for g, w in zip(program(args), want, strict=True):
                np.testing.assert_array_equal(g, w)


def test_allreduce_members_verifier_and_round_trip() -> None:
    msg = _verify_error(
        "%r = devidx.allreduce add %x algorithm naive members [1, 1] : tensor<2x4xf32>"
    )
    assert "devidx.allreduce: members must be distinct device numbers >= 0" in msg
    assert "found [1, 1]" in msg
    text = """func.func @f(%x: tensor<2x4xf32>) {
  %r = devidx.allreduce max %x algorithm ring members [3, 0] : tensor<2x4xf32>
  func.return
}"""
    printed = str(parse(text))
    assert "devidx.allreduce max %x algorithm ring members [3, 0] : tensor<2x4xf32>" in printed


def test_allreduce_members_outside_the_devices_is_a_schedule_error() -> None:
    module = parse("""builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"], devidx.spmd} {
  func.func @main(%x: memref<2xf32>) -> memref<2xf32> {
    %r = devidx.allreduce add %x algorithm naive members [0, 2] : memref<2xf32>
    func.return %r : memref<2xf32>
  }
}""")
    with pytest.raises(ScheduleError, match=r"member device 2, outside \[0, 2\)"):
        compile_schedules(module, "threads")


@needs_mpi
def test_subset_allreduces_on_mpi(tmp_path: Path) -> None:
    """Allreduce on a communicator split by membership (made once), Bcast, under mpiexec -n 3."""
    prog = tmp_path / "prog.mlir"
    prog.write_text(subset_allreduce_program(3, [2, 0, 1]))
    r = mpirun(
        3,
        "-m",
        "xdsl_multi.tools.multi_run",
        prog,
        "--spmd",
        "--backend",
        "mpi",
        "--random-inputs",
        "--seed",
        "5",
        "--check",
    )
    assert r.returncode == 0, r.stderr
    assert "check: mpi matches interp (4 results)" in r.stdout


def reshard_program(n: int, rows: int, cols: int, src: list[int], dst: list[int], axis: int) -> str:
    """One copy of x (rows x cols f32) from a shard over `src` to one over `dst`, on `axis`."""
    ts = f"tensor<{rows}x{cols}xf32, #multi.shard<{_names(src)}, axis = {axis}>>"
    td = f"tensor<{rows}x{cols}xf32, #multi.shard<{_names(dst)}, axis = {axis}>>"
    return f"""builtin.module attributes {{multi.devices = {_names(list(range(n)))}}} {{
  func.func @main(%x: {ts}) -> {td} {{
    %y = multi.copy %x : {ts} -> {td}
    func.return %y : {td}
  }}
}}
"""


def _received(n: int, rows: int, cols: int, src: list[int], dst: list[int], axis: int) -> list[int]:
    """Elements each device receives in the SPMD program (interpreter stats), checked against
    numpy, and that the copy is one rows alltoall."""
    text = reshard_program(n, rows, cols, src, dst, axis)
    x = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols)
    module = parse(text)
    for spec in pipeline_specs(Level.MULTI, Level.SPMD, spmd=True):
        build_pipeline((spec,)).apply(make_context(), module)
    alltoalls = [op for op in module.walk() if isinstance(op, devidx.AlltoallOp)]
    assert len(alltoalls) == 1 and alltoalls[0].row_split is not None
    stats = InterpStats()
    (got,) = run_module(module, [x], stats=stats)
    np.testing.assert_array_equal(got, x)
    return [sum(v for (_, d), v in stats.elements_sent.items() if d == e) for e in range(n)]


def _owned_rows(length: int, names: list[int], device: int) -> set[int]:
    if device not in names:
        return set()
    s, k = -(-length // len(names)), names.index(device)
    return set(range(min(k * s, length), min(k * s + s, length)))


@pytest.mark.parametrize(
    ("n", "rows", "cols", "src", "dst", "axis", "want"),
    [
        # reversed order, even: one block of L/N from one peer each (allgather: 3 blocks)
        (4, 16, 3, [0, 1, 2, 3], [3, 2, 1, 0], 0, [12, 12, 12, 12]),
        # the odd devices (4 rows each) to every device (2 rows): the odd ones keep theirs
        (8, 16, 3, [1, 3, 5, 7], list(range(8)), 0, [6, 0, 6, 0, 6, 0, 6, 0]),
        # uneven (13 columns over 8 devices, axis 1) to the evens in reverse (4 each)
        (8, 3, 13, [7, 6, 5, 4, 3, 2, 1, 0], [6, 4, 2, 0], 1, [3, 0, 6, 0, 6, 0, 6, 0]),
        # disjoint subsets: every row moves once
        (4, 6, 2, [0, 1], [3, 2], 0, [0, 0, 6, 6]),
    ],
)
def test_reshard_between_device_lists_moves_only_what_changes_owner(
    n: int, rows: int, cols: int, src: list[int], dst: list[int], axis: int, want: list[int]
) -> None:
    """Elements received per device (before: an allgather, every device got every block)
    equal what its new share lacks: |new rows - rows it held| x the other axis."""
    got = _received(n, rows, cols, src, dst, axis)
    length, other = (rows, cols) if axis == 0 else (cols, rows)
    lacks = [
        len(_owned_rows(length, dst, e) - _owned_rows(length, src, e)) * other for e in range(n)
    ]
    assert got == lacks == want


@pytest.mark.parametrize(
    ("n", "src", "dst", "want"),
    [
        # the odd devices (4 rows each) to every device on axis 1 (2 columns each): N blocks
        # of 4 x 2, the 2 from unlisted senders padding (allgather: 3 blocks of 4 x 8 = 96)
        (4, [1, 3], [0, 1, 2, 3], [24] * 4),
        # every device reversed to the evens on axis 1: 8 blocks of 1 x 4 (uneven: 2 empty)
        (8, list(range(8))[::-1], [0, 2, 4, 6], [28] * 8),
    ],
)
def test_reshard_to_another_axis_between_device_lists_moves_blocks_not_the_value(
    n: int, src: list[int], dst: list[int], want: list[int]
) -> None:
    """A copy between shardings on different axes over other lists: one alltoall of column
    blocks (`from %i`), each device receiving N - 1 blocks of s_a x s_b, not the value."""
    text = reshard_program(n, 8 if n == 4 else 6, 8 if n == 4 else 16, src, dst, 0)
    text = text.replace(f"{_names(dst)}, axis = 0", f"{_names(dst)}, axis = 1")
    rows, cols = (8, 8) if n == 4 else (6, 16)
    x = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols)
    module = parse(text)
    for spec in pipeline_specs(Level.MULTI, Level.SPMD, spmd=True):
        build_pipeline((spec,)).apply(make_context(), module)
    alltoalls = [op for op in module.walk() if isinstance(op, devidx.AlltoallOp)]
    assert len(alltoalls) == 1 and alltoalls[0].source is not None
    stats = InterpStats()
    np.testing.assert_array_equal(run_module(module, [x], stats=stats)[0], x)
    got = [sum(v for (_, d), v in stats.elements_sent.items() if d == e) for e in range(n)]
    assert got == want


@pytest.mark.parametrize(("n", "order"), SUBSET_CASES)
def test_reshards_between_device_lists_on_threads(n: int, order: list[int]) -> None:
    """Rows alltoalls (uneven, axis 0 and 1, subsets, other orders) compiled on threads and
    at every SPMD level give the multi level's results."""
    sub = order[: max(1, n - 1)]
    cases = [
        (3 * n + 1, 4, order, sub[::-1], 0, 0),
        (3, 2 * n - 1, sub, order[::-1], 1, 1),
        (2 * n + 1, 2 * n - 1, sub, order[::-1], 0, 1),  # to another axis
    ]
    for rows, cols, src, dst, axis, dst_axis in cases:
        text = reshard_program(n, rows, cols, src, dst, axis)
        text = text.replace(f"{_names(dst)}, axis = {axis}", f"{_names(dst)}, axis = {dst_axis}")
        x = np.random.default_rng(n).standard_normal((rows, cols)).astype(np.float32)
        module = parse(text)
        for spec in pipeline_specs(Level.MULTI, Level.KERNEL, spmd=True):
            build_pipeline((spec,)).apply(make_context(), module)
            np.testing.assert_array_equal(run_module(module, [x])[0], x, err_msg=str(spec))
        compiled = parse(text)
        lower_for_runtime(compiled, spmd=True)
        assert any(isinstance(op, devidx.AlltoallOp) for op in compiled.walk())
        with Program(compiled) as program:
            np.testing.assert_array_equal(program([x])[0], x)


def test_rows_alltoall_verifier_names_the_rule() -> None:
    msg = _verify_error(
        "%r = devidx.alltoall %x at %k from %k rows 2 -> 3 of 5 : tensor<2x4xf32> -> "
        "tensor<3x5xf32>"
    )
    assert "devidx.alltoall: rows 2 -> 3 needs a value of 2 leading rows" in msg
    assert "found tensor<2x4xf32> -> tensor<3x5xf32>" in msg


@needs_mpi
def test_reshards_between_device_lists_on_mpi(tmp_path: Path) -> None:
    """Alltoallv with counts from the position tables (uneven, axis 1, a subset to every
    device in another order) under `mpiexec -n 3`."""
    prog = tmp_path / "prog.mlir"
    prog.write_text(reshard_program(3, 4, 7, [2, 0], [1, 2, 0], 1))
    r = mpirun(
        3,
        "-m",
        "xdsl_multi.tools.multi_run",
        prog,
        "--spmd",
        "--backend",
        "mpi",
        "--random-inputs",
        "--seed",
        "4",
        "--check",
    )
    assert r.returncode == 0, r.stderr
    assert "check: mpi matches interp (1 results)" in r.stdout

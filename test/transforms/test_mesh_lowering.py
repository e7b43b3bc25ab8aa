"""Device meshes (SPEC §1.1) through the compiled pipeline: multi-to-devidx's SPMD form, the
specialized device modules and the compiled threads backend (both modes), each against the
multi-level program in the reference interpreter (numpy oracles in test_interp_mesh.py).

The cases are test_interp_mesh.py's (meshes 2x2, 2x3, 1x4, 4x1, 2x2x2; each dim its own
axis, every dim on axis 0, replicated on all dims but the last; even and uneven lengths).
Copies also pin their traffic after specialize-devices: only the blocks that change owner move.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp, f32
from xdsl.parser import Parser

import xdsl_multi as xm
from xdsl_multi.dialects import make_context
from xdsl_multi.dialects.multi import MeshAxis, OnAttr, ShardAttr
from xdsl_multi.runtime.interpreter.interpreter import InterpStats, run_module
from xdsl_multi.transforms.devidx_simplify.devidx_simplify import DevidxSimplify
from xdsl_multi.transforms.multi_to_devidx.multi_to_devidx import MultiToDevidx
from xdsl_multi.transforms.specialize_devices.specialize_devices import SpecializeDevices

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
from test_interp_mesh import CASES, case_id, multi_local_program, names

Case = tuple[tuple[int, ...], tuple[MeshAxis, ...], tuple[int, ...]]


def parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def lowered_runs(
    text: str, inputs: list[np.ndarray], specialize: bool = True
) -> tuple[list[np.ndarray], list[np.ndarray], InterpStats]:
    """(the SPMD form's outputs, the specialized modules' outputs, their traffic)."""
    ctx = make_context()
    module = parse(text)
    MultiToDevidx().apply(ctx, module)
    module.verify()
    spmd = run_module(module, inputs)
    if not specialize:
        return spmd, spmd, InterpStats()
    DevidxSimplify().apply(ctx, module)
    SpecializeDevices().apply(ctx, module)
    module.verify()
    stats = InterpStats()
    return spmd, run_module(module, inputs, stats=stats), stats


def assert_same(got: list[np.ndarray], want: list[np.ndarray], what: str) -> None:
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, err_msg=f"{what}: result {i}")


def check_levels(
    module: ModuleOp, inputs: list[np.ndarray], specialize: bool = True
) -> InterpStats:
    text = str(module)
    want = run_module(parse(text), inputs)
    spmd, specialized, stats = lowered_runs(text, inputs, specialize)
    assert_same(spmd, want, "SPMD form")
    assert_same(specialized, want, "specialized")
    return stats


def check_compiled(module: ModuleOp, inputs: list[np.ndarray]) -> None:
    text = str(module)
    want = run_module(parse(text), inputs)
    for spmd in (False, True):
        with xm.compile(text, backend="threads", spmd=spmd) as prog:
            assert_same(list(prog(*inputs)), want, f"threads, spmd={spmd}")


def elementwise_and_reduces(mesh, axes, shape) -> ModuleOp:
    """x * x + x, then its reduce over each subset of the split axes and over the last axis."""
    devices = names(int(np.prod(mesh)))
    enc = xm.Builder.shard(devices, mesh=mesh, axes=axes)
    split = sorted({a for a in axes if a is not None})
    subsets = [s for r in range(1, len(split) + 1) for s in itertools.combinations(split, r)]
    b = xm.Builder(devices=devices)
    (x,) = b.function("main", args=[xm.Builder.tensor(list(shape), f32, enc)])
    y = b.addf(b.mulf(x, x), x)
    outs = [y] + [b.reduce("add", y, list(s)) for s in subsets]
    outs.append(b.reduce("max", y, [len(shape) - 1]))
    b.ret(*outs)
    return b.finish()


def local_buffers(c: Case, seed: int) -> tuple[ModuleOp, list[np.ndarray]]:
    mesh, _, _ = c
    module, loc = multi_local_program(*c)
    n = int(np.prod(mesh))
    return module, [np.random.default_rng(seed).standard_normal((n, *loc)).astype(np.float32)]


@pytest.mark.parametrize("c", CASES, ids=case_id)
def test_multi_and_local_at_every_level(c: Case) -> None:
    check_levels(*local_buffers(c, 0))


@pytest.mark.parametrize("c", CASES, ids=case_id)
def test_elementwise_and_reduce_over_each_subset(c: Case) -> None:
    arr = np.random.default_rng(1).standard_normal(c[2]).astype(np.float32)
    check_levels(elementwise_and_reduces(*c), [arr])


COMPILED = CASES[::3]


@pytest.mark.parametrize("c", COMPILED, ids=case_id)
def test_compiled_threads_both_modes(c: Case) -> None:
    arr = np.random.default_rng(2).standard_normal(c[2]).astype(np.float32)
    check_compiled(elementwise_and_reduces(*c), [arr])
    check_compiled(*local_buffers(c, 3))


def test_movement_ops_on_a_mesh() -> None:
    devices = names(6)
    enc = xm.Builder.shard(devices, mesh=[2, 3], axes=[0, 2])
    b = xm.Builder(devices=devices)
    (x,) = b.function("main", args=[xm.Builder.tensor([5, 1, 7], f32, enc)])
    p = b.permute(x, [2, 0, 1])
    e = b.expand(x, [5, 4, 7])
    r = b.reshape(x, [5, 7])
    s = b.shrink(x, [(3, 5), (0, 1), (0, 7)])  # the second block of axis 0
    f = b.flip(x, [1])
    b.ret(p, e, r, s, b.reduce("add", s, [0, 2]), f)
    module = b.finish()
    arr = np.random.default_rng(4).standard_normal((5, 1, 7)).astype(np.float32)
    check_levels(module, [arr])
    check_compiled(module, [arr])


# ---------------------------------------------------------------------------------------------
# Copies: values at every level, and the blocks that move
# ---------------------------------------------------------------------------------------------


def copy_program(
    shape, src: ShardAttr | OnAttr, dsts: list[ShardAttr | OnAttr], devices: list[str] | None = None
) -> ModuleOp:
    b = xm.Builder(devices=devices or names(4))
    (x,) = b.function("main", args=[xm.Builder.tensor(list(shape), f32, src)])
    b.ret(*[b.copy(x, d) for d in dsts])
    return b.finish()


def mesh(devices: list[str], m, axes) -> ShardAttr:
    return xm.Builder.shard(devices, mesh=m, axes=axes)


D4 = names(4)
D6 = names(6)
COPY_ENCODINGS = [(0, 1), (1, 0), (0, None), (None, 1), (0, 0)]


@pytest.mark.parametrize("devices,m", [(D4, (2, 2)), (D6, (2, 3))], ids=["2x2", "2x3"])
def test_copies_between_encodings(devices: list[str], m) -> None:
    """Every pair of a set of encodings (meshes, partially replicated ones, one-axis shards,
    #multi.on every device and one device), uneven lengths, both directions."""
    encs: list[ShardAttr | OnAttr] = [mesh(devices, m, a) for a in COPY_ENCODINGS]
    encs += [xm.Builder.shard(devices, 0), mesh(devices, [m[1], m[0]], [1, 0])]
    targets = encs + [xm.Builder.on(devices), xm.Builder.on(devices[:1])]
    arr = np.random.default_rng(5).standard_normal((5, 7)).astype(np.float32)
    # the SPMD form for every pair; the specialized modules: test_copy_moves_only_...
    for src in encs:
        check_levels(copy_program((5, 7), src, targets, devices), [arr], specialize=False)
    for src in [xm.Builder.on(devices[:1]), xm.Builder.shard(devices, 1)]:
        check_levels(copy_program((5, 7), src, encs, devices), [arr], specialize=False)


def traffic(src: ShardAttr | OnAttr, dst: ShardAttr | OnAttr, shape=(4, 6)) -> dict:
    arr = np.random.default_rng(6).standard_normal(shape).astype(np.float32)
    stats = check_levels(copy_program(shape, src, [dst]), [arr])
    return stats.elements_sent


def test_copy_moves_only_the_blocks_that_change_owner() -> None:
    # 2x2 (axes [0, 1]) -> rows over mesh dim 0 only: each device fetches the other half of
    # its rows from its neighbour on mesh dim 1 (one 2x3 block each way).
    assert traffic(mesh(D4, [2, 2], [0, 1]), mesh(D4, [2, 2], [0, None])) == {
        (0, 1): 6,
        (1, 0): 6,
        (2, 3): 6,
        (3, 2): 6,
    }
    # Transposing the mesh axes: only the two off-diagonal devices swap blocks.
    assert traffic(mesh(D4, [2, 2], [0, 1]), mesh(D4, [2, 2], [1, 0])) == {(1, 2): 6, (2, 1): 6}
    # A replicated source already holds every block its devices need: nothing moves.
    assert traffic(mesh(D4, [2, 2], [0, None]), mesh(D4, [2, 2], [0, 1])) == {}
    # To one-axis rows: each device needs one row, half of which its neighbour holds.
    assert traffic(mesh(D4, [2, 2], [0, 1]), xm.Builder.shard(D4, 0)) == {
        (0, 1): 3,
        (1, 0): 3,
        (2, 3): 3,
        (3, 2): 3,
    }
    # An all-gather: every device gets the 3 blocks it lacks, once each.
    gathered = traffic(mesh(D4, [2, 2], [0, 1]), xm.Builder.on(D4))
    assert gathered == {(i, j): 6 for i in range(4) for j in range(4) if i != j}
    # From one device: it sends each other device its block.
    assert traffic(xm.Builder.on(D4[:1]), mesh(D4, [2, 2], [0, 1])) == {
        (0, 1): 6,
        (0, 2): 6,
        (0, 3): 6,
    }
    # Replicas of the source send nothing: only first replicas (coordinate 0 on `none`) do.
    assert traffic(mesh(D4, [2, 2], [None, 1]), xm.Builder.on(D4[:1])) == {(1, 0): 12}


# ---------------------------------------------------------------------------------------------
# SPMD mode: grouped devidx.allreduce (collectives=ops), threads and mpi
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("c", [c for c in CASES if c[1] == tuple(range(len(c[0])))], ids=case_id)
def test_spmd_mode_reduces_in_groups_with_one_op(c: Case) -> None:
    """With collectives=ops every reduce over split axes is one grouped allreduce (no fetch),
    the reduced mesh dims named; the SPMD form gives the multi level's values."""
    module = elementwise_and_reduces(*c)
    text = str(module)
    lowered = parse(text)
    MultiToDevidx(collectives="ops").apply(make_context(), lowered)
    lowered.verify()
    ops = [op for op in lowered.walk() if op.name.startswith("devidx.")]
    assert not [op for op in ops if op.name == "devidx.fetch"]
    groups = [op.groups for op in ops if op.name == "devidx.allreduce"]  # type: ignore[attr-defined]
    split = len(c[0])
    subsets = [s for r in range(1, split + 1) for s in itertools.combinations(range(split), r)]
    # ... and the max over the last axis, which mesh dim split - 1 splits
    assert groups == [(c[0], s) for s in subsets] + [(c[0], (split - 1,))]
    arr = np.random.default_rng(7).standard_normal(c[2]).astype(np.float32)
    assert_same(run_module(lowered, [arr]), run_module(parse(text), [arr]), "SPMD, ops")


MPI_PROGRAM = Path(__file__).resolve().parents[1] / "lit" / "transforms" / "multi-to-devidx"


@pytest.mark.parametrize("spmd", [False, True], ids=["specialized", "spmd"])
def test_mpi_runs_a_mesh_program_on_four_ranks(tmp_path: Path, spmd: bool) -> None:
    """`multi-run --backend mpi` under `mpiexec -n 4`: reduces within mesh groups (SPMD mode:
    communicators split by the other mesh coordinates) and a copy between meshes."""
    from mpi_jobs import MPIEXEC, mpirun

    if MPIEXEC is None:
        pytest.skip("mpiexec is not installed")
    pytest.importorskip("mpi4py")
    prog = tmp_path / "mesh.mlir"
    prog.write_text(str(mpi_program()))
    args = [prog, "--backend", "mpi", "--random-inputs", "--seed", "1", "--check"]
    r = mpirun(4, "-m", "xdsl_multi.tools.multi_run", *args, *(["--spmd"] if spmd else []))
    assert r.returncode == 0, r.stderr
    assert "check: mpi matches interp (4 results)" in r.stdout


def mpi_program() -> ModuleOp:
    enc = mesh(D4, [2, 2], [0, 1])
    b = xm.Builder(devices=D4)
    (x,) = b.function("main", args=[xm.Builder.tensor([5, 6], f32, enc)])
    y = b.mulf(x, x)
    b.ret(
        b.reduce("add", y, [0]),
        b.reduce("max", y, [0, 1]),
        b.reduce("add", y, [1]),
        b.copy(y, mesh(D4, [2, 2], [0, None])),
    )
    return b.finish()


def test_mesh_matmul_example_moves_only_the_all_gather() -> None:
    """examples/mesh_matmul.mlir: the copies that join A and B to the product's layout move
    nothing; the all-gather gives each device the three blocks of C it lacks (blocks of 4 or 3
    rows and 5 columns): 12 messages, 3 * 70 elements in all."""
    text = (Path(__file__).resolve().parents[2] / "examples" / "mesh_matmul.mlir").read_text()
    rng = np.random.default_rng(8)
    inputs = [rng.standard_normal(s).astype(np.float32) for s in [(7, 6), (6, 10)]]
    want = run_module(parse(text), inputs)
    _, specialized, stats = lowered_runs(text, inputs)
    assert_same(specialized, want, "specialized")
    np.testing.assert_allclose(want[0], inputs[0] @ inputs[1], rtol=1e-5, atol=1e-5)
    assert stats.total_messages == 12
    assert sum(stats.elements_sent.values()) == 3 * 70


def test_mesh_over_a_subset_of_the_devices_in_another_order() -> None:
    """A 2x2 mesh over 4 of the module's 6 devices, listed out of order: positions and
    groups go through the device list (select chains), the other devices hold Invalid."""
    all6 = names(6)
    sub = ["CPU:5", "CPU:1", "CPU:3", "CPU:0"]
    enc = mesh(sub, [2, 2], [0, 1])
    b = xm.Builder(devices=all6)
    (x,) = b.function("main", args=[xm.Builder.tensor([5, 7], f32, enc)])
    y = b.addf(x, x)
    z = b.copy(y, mesh(sub, [2, 2], [None, 1]))
    b.ret(
        b.reduce("add", y, [0]),
        b.reduce("max", y, [0, 1]),
        b.reduce("add", z, [1]),
        b.copy(y, xm.Builder.on(all6)),
        b.copy(y, xm.Builder.shard(all6, 1)),
        b.shrink(y, [(3, 5), (0, 7)]),
        b.local(y),
    )
    arr = np.random.default_rng(9).standard_normal((5, 7)).astype(np.float32)
    check_levels(b.finish(), [arr])

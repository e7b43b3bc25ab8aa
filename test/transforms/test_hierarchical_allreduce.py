"""`multi-to-devidx{allreduce=hierarchical}` (transforms/multi_to_devidx/hierarchical.py): a
reduce over several mesh dims reduces inside each minor group, allreduces across the group
leaders and broadcasts back. Message counts after specialize-devices are pinned against the
naive schedule; every level (SPMD form, specialized, compiled threads, mpi) is compared with the
multi-level program in the reference interpreter."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp, f32, i32

import xdsl_multi as xm
from xdsl_multi.dialects import make_context
from xdsl_multi.dialects.parsing import parse_mlir
from xdsl_multi.runtime.interpreter.interpreter import InterpStats, run_module
from xdsl_multi.transforms.devidx_simplify.devidx_simplify import DevidxSimplify
from xdsl_multi.transforms.multi_to_devidx.multi_to_devidx import MultiToDevidx
from xdsl_multi.transforms.specialize_devices.specialize_devices import SpecializeDevices

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
from test_interp_mesh import names


def reduce_program(mesh: list[int], shape: list[int], axes: list[int]) -> str:
    """x (mesh dim i splitting tensor axis i) * x, reduced over tensor `axes`."""
    devices = names(int(np.prod(mesh)))
    enc = xm.Builder.shard(devices, mesh=mesh, axes=list(range(len(mesh))))
    b = xm.Builder(devices=devices)
    (x,) = b.function("main", args=[xm.Builder.tensor(shape, f32, enc)])
    b.ret(b.reduce("add", b.mulf(x, x), axes))
    return str(b.finish())


def parse(text: str) -> ModuleOp:
    return parse_mlir(make_context(), text)


def specialized_traffic(text: str, arr: np.ndarray, **options: str) -> InterpStats:
    """Lower with `options`, check the SPMD form and the device modules against the multi level,
    and return the device modules' traffic."""
    want = run_module(parse(text), [arr])
    ctx = make_context()
    module = parse(text)
    MultiToDevidx(**options).apply(ctx, module)  # type: ignore[arg-type]
    module.verify()
    for got, w in zip(run_module(module, [arr]), want, strict=True):
        np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-5, err_msg="SPMD form")
    DevidxSimplify().apply(ctx, module)
    SpecializeDevices().apply(ctx, module)
    module.verify()
    stats = InterpStats()
    for got, w in zip(run_module(module, [arr], stats=stats), want, strict=True):
        np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-5, err_msg="specialized")
    return stats


def test_2x2_over_both_dims_sends_6_messages_instead_of_12() -> None:
    """2x2, reduce over both mesh dims (every device): naive 4 * 3 = 12 messages; hierarchical
    2 groups * 1 to the leader + 2 leaders * 1 + 2 groups * 1 back = 6, 2 of them between the
    leaders (devices 0 and 2, coordinate 0 on mesh dim 1)."""
    text = reduce_program([2, 2], [4, 6], [0, 1])
    arr = np.random.default_rng(0).standard_normal((4, 6)).astype(np.float32)
    naive = specialized_traffic(text, arr, allreduce="naive")
    hier = specialized_traffic(text, arr, allreduce="hierarchical")
    assert naive.total_messages == 12
    assert hier.total_messages == 6
    # the reduced value is 1x1: one element a message
    assert hier.elements_sent == {(1, 0): 1, (3, 2): 1, (0, 2): 1, (2, 0): 1, (0, 1): 1, (2, 3): 1}


def test_2x2x2_over_all_dims_and_over_two() -> None:
    """2x2x2 over all three dims (groups of 8, minor groups of 4): 6 + 2 + 6 = 14 messages of
    the 1x1x1 value, naive 8 * 7 = 56. Over tensor axes 1 and 2 (mesh dims 1 and 2: 2 groups
    of 4): per group 2 + 2 + 2 = 6 messages, 12 in all, naive 2 * 4 * 3 = 24; each message is
    the SPMD value of the 4x1x1 result (still split on axis 0, so Invalid outside d's rows)."""
    arr = np.random.default_rng(1).standard_normal((4, 4, 6)).astype(np.float32)
    text = reduce_program([2, 2, 2], [4, 4, 6], [0, 1, 2])
    assert specialized_traffic(text, arr, allreduce="naive").total_messages == 56
    assert specialized_traffic(text, arr, allreduce="hierarchical").total_messages == 14
    text = reduce_program([2, 2, 2], [4, 4, 6], [1, 2])
    naive = specialized_traffic(text, arr, allreduce="naive")
    hier = specialized_traffic(text, arr, allreduce="hierarchical")
    assert naive.total_messages == 24
    assert hier.total_messages == 12
    assert set(hier.elements_sent.values()) == {4}


def test_a_reduce_over_one_mesh_dim_keeps_the_naive_schedule() -> None:
    """A reduce over one mesh dim has no minor group: hierarchical schedules it as naive does."""
    arr = np.random.default_rng(2).standard_normal((4, 6)).astype(np.float32)
    text = reduce_program([2, 2], [4, 6], [1])
    assert specialized_traffic(text, arr, allreduce="hierarchical").total_messages == 4


def test_auto_chooses_hierarchical_above_the_threshold() -> None:
    text = reduce_program([2, 2], [4, 6], [0, 1])
    arr = np.random.default_rng(3).standard_normal((4, 6)).astype(np.float32)
    # the reduced value has 1 element: above a threshold of 0, not above the default
    assert specialized_traffic(text, arr, ring_threshold=0).total_messages == 6  # type: ignore[arg-type]
    assert specialized_traffic(text, arr).total_messages == 12


UNEVEN = [([2, 2], [5, 7]), ([2, 3], [5, 7]), ([2, 2, 2], [4, 4, 6]), ([2, 2, 2], [3, 5, 3])]


@pytest.mark.parametrize("mesh,shape", UNEVEN, ids=lambda v: "x".join(map(str, v)))
def test_interpreter_vs_compiled_threads(mesh: list[int], shape: list[int]) -> None:
    """Reduces over every split axis and over the two minor ones, even and uneven lengths, in
    both modes (specialized: fetches; SPMD: one grouped allreduce with algorithm
    hierarchical), against the multi level in the interpreter."""
    axes = [list(range(len(mesh))), list(range(1, len(mesh)))]
    arr = np.random.default_rng(4).standard_normal(shape).astype(np.float32)
    for reduced in axes:
        text = reduce_program(mesh, shape, reduced)
        (want,) = run_module(parse(text), [arr])
        oracle = (arr * arr).sum(axis=tuple(reduced), keepdims=True)
        if len(reduced) == len(mesh):  # every mesh dim reduced: #multi.on, one slice a device
            oracle = np.broadcast_to(oracle, (int(np.prod(mesh)), *oracle.shape))
        np.testing.assert_allclose(want, oracle, rtol=1e-5)
        for spmd in (False, True):
            options = {"multi-to-devidx": "allreduce=hierarchical"}
            with xm.compile(text, backend="threads", spmd=spmd, options=options) as prog:
                (got,) = prog(arr)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=f"spmd={spmd}")


def test_spmd_mode_emits_one_hierarchical_allreduce() -> None:
    """collectives=ops: the reduce over both dims is one grouped allreduce with algorithm
    hierarchical (naive without the option); the SPMD form gives the multi level's values."""
    text = reduce_program([2, 3], [5, 7], [0, 1])
    arr = np.random.default_rng(5).standard_normal((5, 7)).astype(np.float32)
    for mode, algorithm in [("hierarchical", "hierarchical"), ("naive", "naive")]:
        module = parse(text)
        MultiToDevidx(allreduce=mode, collectives="ops").apply(make_context(), module)
        module.verify()
        ops = [op for op in module.walk() if op.name == "devidx.allreduce"]
        assert [(op.algorithm.data, op.groups) for op in ops] == [  # type: ignore[attr-defined]
            (algorithm, ((2, 3), (0, 1)))
        ]
        (got,) = run_module(module, [arr])
        (want,) = run_module(parse(text), [arr])
        np.testing.assert_allclose(got, want, rtol=1e-5)


def test_threads_hierarchical_collective_of_ints_is_exact() -> None:
    """The threads collective's three phases on integers (exact: any order of additions gives
    numpy's sum) over a 2x2x2 mesh, reduced over all dims and over the two minor ones."""
    devices = names(8)
    enc = xm.Builder.shard(devices, mesh=[2, 2, 2], axes=[0, 1, 2])
    b = xm.Builder(devices=devices)
    (x,) = b.function("main", args=[xm.Builder.tensor([4, 6, 10], i32, enc)])
    b.ret(b.reduce("add", x, [0, 1, 2]), b.reduce("max", x, [1, 2]))
    text = str(b.finish())
    arr = np.random.default_rng(6).integers(-100, 100, (4, 6, 10)).astype(np.int32)
    options = {"multi-to-devidx": "allreduce=hierarchical"}
    with xm.compile(text, backend="threads", spmd=True, options=options) as prog:
        total, peak = prog(arr)
    np.testing.assert_array_equal(total, np.broadcast_to(arr.sum(keepdims=True), (8, 1, 1, 1)))
    np.testing.assert_array_equal(peak, arr.max(axis=(1, 2), keepdims=True))


MPI_DRIVER = """\
import sys
import numpy as np
import xdsl_multi as xm
text = open(sys.argv[1]).read()
spmd = sys.argv[2] == "spmd"
arr = np.random.default_rng(9).standard_normal((5, 7)).astype(np.float32)
want = (arr * arr).sum(keepdims=True)
options = {"multi-to-devidx": "allreduce=hierarchical"}
with xm.compile(text, backend="mpi", spmd=spmd, options=options) as prog:
    (got,) = prog(arr)
np.testing.assert_allclose(got, np.broadcast_to(want, (4, 1, 1)), rtol=1e-5)
print("hierarchical ok")
"""


@pytest.mark.parametrize("spmd", [False, True], ids=["specialized", "spmd"])
def test_mpi_hierarchical_on_four_ranks(tmp_path: Path, spmd: bool) -> None:
    """xm.compile(backend="mpi") under `mpiexec -n 4` with allreduce=hierarchical (SPMD mode:
    MPI_Reduce / MPI_Allreduce / MPI_Bcast on communicators split once per program), every
    rank checking its results against numpy."""
    from mpi_jobs import MPIEXEC, mpirun

    if MPIEXEC is None:
        pytest.skip("mpiexec is not installed")
    pytest.importorskip("mpi4py")
    prog = tmp_path / "hier.mlir"
    prog.write_text(reduce_program([2, 2], [5, 7], [0, 1]))
    driver = tmp_path / "driver.py"
    driver.write_text(MPI_DRIVER)
    r = mpirun(4, driver, prog, "spmd" if spmd else "specialized")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("hierarchical ok") == 4

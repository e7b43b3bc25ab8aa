"""Minimized programs found by the random-program equivalence tests
(test/transforms/test_random_programs.py, test/runtime/test_compiled_corpus.py) and reported
ones (issue 9), each run through the whole pipeline with `pipeline_check.check_program` and
compiled on the threads backend (kernels specialized per device and in SPMD mode) against the
interpreter; issue 9's program also on the mpi backend. Known bugs are `xfail(strict=True)`:
when a fix lands the test starts passing and must be turned into a plain regression test."""

from __future__ import annotations

from pathlib import Path

import pytest
from compiled_runs import MODES, compare_with_interp, inputs_for, lowered
from mpi_jobs import mpirun, needs_mpi
from pipeline_check import ALLREDUCE, check_program

from xdsl_multi.runtime.program import Program

HERE = Path(__file__).resolve().parent

FINDINGS: dict[str, str | None] = {
    # file -> None when fixed, else why it is expected to fail
    # fixed in 06a2ea3: devidx-simplify folded tg.where(c, x, x) -> x with c maybe Invalid
    "where_equal_branches_invalid_cond.mlir": None,
    # fixed in 06a2ea3: multi-to-devidx's keep-slice copy did not store Invalid as 0
    "keep_slice_copy_keeps_invalid.mlir": None,
    # fixed: invalid_windows' content of a window reaching into a pad's padding keeps that
    # part Invalid (a smaller pad) instead of shrinking with negative bounds
    "reduce_of_invalid_pad_negative_shrink.mlir": None,
    "where_of_invalid_pad_negative_shrink.mlir": None,
    # fixed (issue 9): form-kernels read a returned value's buffer (Invalid stored as 0) in
    # another kernel as if every lane were valid
    "issue9_result_read_by_other_kernel.mlir": None,
    "invalid_result_read_by_other_kernel.mlir": None,
    "max_of_returned_invalid_pad.mlir": None,
    # fixed: multi-to-devidx fetched a selected shard (a shrink) without its Invalid lanes
    "invalid_lanes_of_a_selected_shard.mlir": None,
}

ISSUE9 = HERE / "issue9_result_read_by_other_kernel.mlir"


def _cases() -> list[object]:
    out: list[object] = []
    for name, reason in FINDINGS.items():
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(name, marks=marks, id=name.removesuffix(".mlir")))
    return out


@pytest.mark.parametrize("name", _cases())
@pytest.mark.parametrize("allreduce", ALLREDUCE)
def test_finding(name: str, allreduce: str) -> None:
    check_program((HERE / name).read_text(), allreduce, 0, seed=0)


@pytest.mark.parametrize("name", _cases())
@pytest.mark.parametrize("mode", MODES)
def test_finding_compiled(name: str, mode: str) -> None:
    """The compiled threads backend gives the interpreter's results (input seeds 0 and 1)."""
    text = (HERE / name).read_text()
    with Program(lowered(text, mode)) as program:
        for seed in (0, 1):
            inputs = inputs_for(text, seed)
            assert compare_with_interp(text, inputs, program(inputs), "threads") is None


@needs_mpi
@pytest.mark.parametrize("spmd", [False, True], ids=["specialized", "spmd"])
def test_issue9_on_mpi(spmd: bool) -> None:
    """`multi-run --backend mpi --check` on 3 ranks, as the issue ran it on threads."""
    r = mpirun(3, "-m", "xdsl_multi.tools.multi_run", ISSUE9, "--backend", "mpi",
               "--random-inputs", "--check", *(["--spmd"] if spmd else []), timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "check: mpi matches interp (8 results)" in r.stdout, r.stdout + r.stderr

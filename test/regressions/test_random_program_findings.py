"""Minimized programs found by the random-program equivalence test
(test/transforms/test_random_programs.py), each run through the whole pipeline with
`pipeline_check.check_program`. Known bugs are `xfail(strict=True)`: when a fix lands the test
starts passing and must be turned into a plain regression test."""

from __future__ import annotations

from pathlib import Path

import pytest
from pipeline_check import ALLREDUCE, check_program

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
}


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

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
    "where_equal_branches_invalid_cond.mlir": (
        "devidx-simplify SelectOfSameValues folds tg.where(c, x, x) -> x although c may be "
        "Invalid (SPEC §4 rule 1: the result is Invalid there, stored as 0)"
    ),
    "keep_slice_copy_keeps_invalid.mlir": (
        "multi-to-devidx lowers a keep-slice copy to clean(x) without storing it, so Invalid "
        "lanes survive the copy (SPEC §4: a copy stores Invalid as 0) and a max/mul reduce "
        "sees the identity instead of 0"
    ),
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

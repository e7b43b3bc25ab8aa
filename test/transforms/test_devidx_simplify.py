"""devidx-simplify keeps every program's meaning: the reference interpreter gives the same
logical outputs before and after the pass, on 1, 2, 3 and 4 devices.

- every chunk of the pass's lit tests (one per rewrite rule) is run as an SPMD program;
- hand-written SPMD programs in the shapes multi-to-devidx produces: MULTI's invalid pad with
  d-dependent bounds, mselect's select(d == i, x, inv), mstack's index(stack, d), a fetch from
  (d + 1) mod N, a reduce of a select with Invalid, 7 rows over N devices;
- programs lowered by multi-to-devidx from the multi level.
"""

from __future__ import annotations

from pathlib import Path

import pass_equivalence as E  # test/support, on pythonpath
import pytest
import spmd_programs as S
from xdsl.dialects.builtin import ModuleOp

from xdsl_multi.dialects import devidx, make_context, tg
from xdsl_multi.transforms.devidx_simplify.devidx_simplify import DevidxSimplify

LIT_DIR = Path(__file__).resolve().parents[1] / "lit" / "transforms"
LIT_FILES = sorted(LIT_DIR.glob("devidx-simplify-*.mlir"))
DEVICE_COUNTS = [1, 2, 3, 4]
CHUNKS = [
    pytest.param(text, entry, id=f"{path.stem}:{entry}")
    for path in LIT_FILES
    for entry, text in E.lit_chunks(path)
]


def simplify(module: ModuleOp) -> None:
    DevidxSimplify().apply(make_context(), module)


def test_every_lit_file_has_chunks() -> None:
    assert LIT_FILES and all(E.lit_chunks(p) for p in LIT_FILES)


@pytest.mark.parametrize("n", DEVICE_COUNTS)
@pytest.mark.parametrize(("text", "entry"), CHUNKS)
def test_lit_chunk_keeps_meaning(text: str, entry: str, n: int) -> None:
    count = E.device_count(text)
    if count is not None and count != n:
        pytest.skip(f"a specialized chunk runs on its {count} device modules only")
    E.check_pass_keeps_meaning(text, n, entry, simplify)


@pytest.mark.parametrize("n", DEVICE_COUNTS)
@pytest.mark.parametrize("name", sorted(S.PROGRAMS))
def test_spmd_program_keeps_meaning(name: str, n: int) -> None:
    after = E.check_pass_keeps_meaning(S.PROGRAMS[name](n), n, "main", simplify, exact=False)
    if n == 1:
        # One device: d is 0, every select on d folds, nothing Invalid is left to compute.
        assert not any(isinstance(op, devidx.DeviceNumOp | devidx.InvalidOp) for op in after.walk())


@pytest.mark.parametrize("n", DEVICE_COUNTS)
def test_mselect_of_other_device_leaves_only_a_select(n: int) -> None:
    after = E.check_pass_keeps_meaning(S.mselect_style(n), n, "main", simplify)
    exps = [op for op in after.walk() if op.name == "math.exp"]
    assert len(exps) == 1  # computed once, the select moved past it (rule 1)


@pytest.mark.parametrize("n", DEVICE_COUNTS)
def test_pads_of_one_device_fold_away(n: int) -> None:
    after = E.check_pass_keeps_meaning(S.multi_pad_roundtrip(n, 7), n, "main", simplify)
    if n == 1:
        assert not any(isinstance(op, tg.PadOp | tg.ShrinkOp) for op in after.walk())

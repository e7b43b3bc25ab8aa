"""multi-to-devidx keeps every program's meaning: the reference interpreter gives the same logical
outputs before and after the pass, for every rule, on 1, 2, 3, 4 and 8 devices, even and uneven."""

from __future__ import annotations

from pathlib import Path

import multi_programs as P  # test/support, on pythonpath
import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from xdsl_multi.dialects import make_context, multi, tg
from xdsl_multi.runtime.interpreter import logical_signature, random_inputs, run_module
from xdsl_multi.transforms.devidx_simplify import DevidxSimplify
from xdsl_multi.transforms.multi_to_devidx import MultiToDevidx
from xdsl_multi.transforms.specialize_devices import SpecializeDevices

ROOT = Path(__file__).resolve().parents[2]
DEVICE_COUNTS = [1, 2, 3, 4, 8]


def parse(text: str) -> ModuleOp:
    module = Parser(make_context(), text).parse_module()
    module.verify()
    return module


def lower(text: str, **options: object) -> ModuleOp:
    module = parse(text)
    MultiToDevidx(**options).apply(make_context(), module)  # type: ignore[arg-type]
    module.verify()
    return module


def check_equivalent(text: str, seed: int = 0, **options: object) -> ModuleOp:
    """The multi-level program, its SPMD form, the simplified SPMD form and the specialized
    device modules give the same logical outputs. Returns the SPMD form."""
    before = parse(text)
    after = lower(text, **options)
    assert not any(op.dialect_name() == "multi" for op in after.walk())
    inputs = random_inputs(logical_signature(before, "main"), seed=seed)
    want = run_module(before, inputs)
    simplified = after.clone()
    DevidxSimplify().apply(make_context(), simplified)
    simplified.verify()
    specialized = simplified.clone()
    SpecializeDevices().apply(make_context(), specialized)
    specialized.verify()
    for level, module in [("spmd", after), ("simplified", simplified), ("specialized", specialized)]:
        got = run_module(module, inputs)
        assert len(got) == len(want), level
        for g, w in zip(got, want, strict=True):
            assert g.shape == w.shape and g.dtype == w.dtype, level
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, err_msg=level)
    return after


@pytest.mark.parametrize("n", DEVICE_COUNTS)
@pytest.mark.parametrize("rows", [8, 7, 4, 1])
def test_multi_becomes_invalid_pad(n: int, rows: int) -> None:
    after = check_equivalent(P.multi_of_buffers(n, rows))
    if n > 1:
        pads = [op for op in after.walk() if isinstance(op, tg.PadOp)]
        assert any(op.is_invalid and op.dyn_bounds for op in pads)


@pytest.mark.parametrize("n", DEVICE_COUNTS)
def test_mselect_and_mstack(n: int) -> None:
    for i in range(n):
        check_equivalent(P.mselect(n, i))
    check_equivalent(P.mstack(n))


@pytest.mark.parametrize("n", DEVICE_COUNTS)
@pytest.mark.parametrize("rows", [8, 7])
def test_every_copy_kind(n: int, rows: int) -> None:
    for name, text in P.copy_cases(n, rows).items():
        try:
            check_equivalent(text)
        except AssertionError as e:  # name the case
            raise AssertionError(f"copy case {name!r}: {e}") from e


@pytest.mark.parametrize("n", DEVICE_COUNTS)
@pytest.mark.parametrize("strategy", ["naive", "ring", "all2all"])
@pytest.mark.parametrize("kind", ["add", "mul", "max"])
def test_allreduce_schedules(n: int, strategy: str, kind: str) -> None:
    for shape in [(4, 4), (5, 3)]:
        check_equivalent(P.allreduce(n, kind, shape), allreduce=strategy)


@pytest.mark.parametrize("n", [2, 3])
def test_allreduce_integers_and_subsets(n: int) -> None:
    check_equivalent(P.allreduce(n, "add", (3, 3), "i32"), allreduce="ring")
    check_equivalent(P.allreduce(n, "max", (3, 3), "i32"))
    check_equivalent(P.allreduce_subset(n))


@pytest.mark.parametrize("n", DEVICE_COUNTS)
@pytest.mark.parametrize("rows", [8, 7, 4])
def test_reduce_over_shard_axis(n: int, rows: int) -> None:
    for kind in ["add", "max"]:
        check_equivalent(P.reduce_over_shard_axis(n, rows, kind), allreduce="ring")


@pytest.mark.parametrize("n", DEVICE_COUNTS)
def test_row_local_ops_and_movement(n: int) -> None:
    check_equivalent(P.row_ops(n, 2 * n + 1))
    check_equivalent(P.movement(n))


@pytest.mark.parametrize(
    "path", sorted((ROOT / "examples").glob("*.mlir")), ids=lambda p: p.name
)
def test_examples(path: Path) -> None:
    check_equivalent(path.read_text())


LIT_INPUTS = [
    p
    for p in sorted((ROOT / "test" / "lit" / "transforms" / "multi-to-devidx").glob("*.mlir"))
    if "not multi-opt" not in p.read_text() and "--verify-diagnostics" not in p.read_text()
]


@pytest.mark.parametrize("path", LIT_INPUTS, ids=lambda p: p.name)
@pytest.mark.parametrize("strategy", ["naive", "ring", "all2all"])
def test_lit_inputs_keep_meaning_at_every_level(path: Path, strategy: str) -> None:
    check_equivalent(path.read_text(), allreduce=strategy)


def test_signature_and_devices_are_recorded() -> None:
    after = lower(P.multi_of_buffers(3, 7))
    assert "multi.signature" in after.attributes
    assert "multi.devices" in after.attributes
    for op in after.walk():
        for t in op.result_types:
            assert multi.placement_of(t) is None


def test_bad_option_is_a_pass_failure() -> None:
    from xdsl.utils.exceptions import PassFailedException

    with pytest.raises(PassFailedException, match="allreduce=bogus"):
        lower(P.allreduce(2, "add", (2, 2)), allreduce="bogus")

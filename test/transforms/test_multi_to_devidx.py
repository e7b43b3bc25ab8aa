"""multi-to-devidx keeps every program's meaning: the reference interpreter gives the same logical
outputs before and after the pass, for every rule, on 1, 2, 3, 4 and 8 devices, even and uneven."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import multi_programs as P  # test/support, on pythonpath
import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr
from xdsl.ir import Operation, SSAValue
from xdsl.parser import Parser
from xdsl.utils.exceptions import PassFailedException

from xdsl_multi.dialects import make_context, multi, tg
from xdsl_multi.runtime.interpreter.interpreter import logical_signature, random_inputs, run_module
from xdsl_multi.transforms.devidx_simplify.devidx_simplify import DevidxSimplify
from xdsl_multi.transforms.multi_to_devidx import multi_to_devidx
from xdsl_multi.transforms.multi_to_devidx.allreduce import AllreduceStrategy
from xdsl_multi.transforms.multi_to_devidx.multi_to_devidx import (
    FunctionLowering,
    MultiRule,
    MultiToDevidx,
    multi_to_devidx_rules,
)
from xdsl_multi.transforms.multi_to_devidx.spmd_builder import SpmdBuilder
from xdsl_multi.transforms.specialize_devices.specialize_devices import SpecializeDevices

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
    # MultiToInvalidPad, ReturnToLocalBuffers
    after = check_equivalent(P.multi_of_buffers(n, rows))
    if n > 1:
        pads = [op for op in after.walk() if isinstance(op, tg.PadOp)]
        assert any(op.is_invalid and op.dyn_bounds for op in pads)


@pytest.mark.parametrize("n", DEVICE_COUNTS)
def test_mselect_and_mstack(n: int) -> None:
    # MselectToSelect, MstackToStackIndex
    for i in range(n):
        check_equivalent(P.mselect(n, i))
    check_equivalent(P.mstack(n))


@pytest.mark.parametrize("n", DEVICE_COUNTS)
@pytest.mark.parametrize("rows", [8, 7])
def test_every_copy_kind(n: int, rows: int) -> None:
    # CopyKeepingSliceCleans, CopyPermutingBuffersFetches, CopyBetweenShardingsIsAllToAll,
    # CopyFromOneDeviceScatters, CopyFetchesLogicalValue
    for name, text in P.copy_cases(n, rows).items():
        try:
            check_equivalent(text)
        except AssertionError as e:  # name the case
            raise AssertionError(f"copy case {name!r}: {e}") from e


@pytest.mark.parametrize("n", DEVICE_COUNTS)
@pytest.mark.parametrize("strategy", ["naive", "ring", "all2all"])
@pytest.mark.parametrize("kind", ["add", "mul", "max"])
def test_allreduce_schedules(n: int, strategy: str, kind: str) -> None:
    # AllreduceToFetchSchedule
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
    # ReduceOverShardAxisToAllreduce
    for kind in ["add", "max"]:
        check_equivalent(P.reduce_over_shard_axis(n, rows, kind), allreduce="ring")


@pytest.mark.parametrize("n", DEVICE_COUNTS)
def test_row_local_ops_and_movement(n: int) -> None:
    # ShardedReduceCleansResult, PlacedOpDropsEncodings, ShrinkOfOneShardFetchesFromOwner
    check_equivalent(P.row_ops(n, 2 * n + 1))
    check_equivalent(P.movement(n))


def returned_reduce(n: int, rows: int, mesh: bool, then_add: bool) -> str:
    """A reduce off the split axis of a shard value (rows over n devices, or over mesh dim 0 of
    a 2 x (n/2) mesh), returned at once (BENCH W7) or after an add."""
    names = ", ".join(f'"CPU:{i}"' for i in range(n))
    enc = (
        f"#multi.shard<[{names}], mesh = [2, {n // 2}], axes = [0, none]>"
        if mesh
        else f"#multi.shard<[{names}], axis = 0>"
    )
    full, out = f"tensor<{rows}x6xf32, {enc}>", f"tensor<{rows}x1xf32, {enc}>"
    tail = f"%r = arith.addf %s, %s : {out}" if then_add else ""
    result = "%r" if then_add else "%s"
    return f"""builtin.module attributes {{multi.devices = [{names}]}} {{
  func.func @main(%x: {full}) -> {out} {{
    %sq = arith.mulf %x, %x : {full}
    %s = tg.reduce add %sq [1] : {full} -> {out}
    {tail}
    func.return {result} : {out}
  }}
}}
"""


@pytest.mark.parametrize(("n", "rows"), [(3, 10), (3, 7), (4, 9), (8, 5), (2, 1)])
@pytest.mark.parametrize("then_add", [False, True])
def test_return_of_cleaned_value_is_its_local_buffer(n: int, rows: int, then_add: bool) -> None:
    # ShardedReduceCleansResult then ReturnToLocalBuffers: local(clean(y)) is local(y), so the
    # returned buffer is the one clean made, with no local -> global -> local round trip
    after = check_equivalent(returned_reduce(n, rows, False, then_add))
    DevidxSimplify().apply(make_context(), after)  # (dead code out)
    pads = sum(isinstance(op, tg.PadOp) for op in after.walk())
    shrinks = sum(isinstance(op, tg.ShrinkOp) for op in after.walk())
    # the argument's global view, clean's local buffer; clean's global view only when the
    # add reads it (then the return takes local of the add's result)
    assert (pads, shrinks) == ((4, 4) if then_add else (2, 2)), (pads, shrinks)


@pytest.mark.parametrize(("n", "rows"), [(4, 7), (8, 9)])
def test_return_of_cleaned_mesh_value_keeps_meaning(n: int, rows: int) -> None:
    check_equivalent(returned_reduce(n, rows, True, False))
    check_equivalent(returned_reduce(n, rows, True, True))


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


# ---- rule -> test: every rule of the table has a lit chunk tagged `// Rule: <name>` -----------

LIT_DIR = ROOT / "test" / "lit" / "transforms" / "multi-to-devidx"
RULE_NAMES = [type(r).__name__ for r in multi_to_devidx_rules()]
DIAGNOSTIC_RULES = {"PlacedOpWithRegionsIsRejected"}  # its lit test checks the diagnostic


def test_docstring_table_lists_every_rule_in_table_order() -> None:
    doc = multi_to_devidx.__doc__
    assert doc is not None
    assert re.findall(r"^\|.*\| `(\w+)` \|$", doc, re.MULTILINE) == RULE_NAMES


def tagged_chunks(rule: str) -> list[tuple[Path, str]]:
    """The lit chunks (split at `// -----`) tagged `// Rule: <rule>`."""
    return [
        (path, chunk)
        for path in sorted(LIT_DIR.glob("*.mlir"))
        for chunk in path.read_text().split("\n// -----\n")
        if re.search(rf"^// Rule: {rule}$", chunk, re.MULTILINE)
    ]


class _Recording(MultiRule[Any]):
    """A rule of the table that notes its name when it lowers an op."""

    def __init__(self, rule: MultiRule[Any], fired: list[str]):
        self.rule, self.fired, self.op_type = rule, fired, rule.op_type

    def applies(self, low: FunctionLowering, op: Operation) -> bool:
        return self.rule.applies(low, op)

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: Operation, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        self.fired.append(type(self.rule).__name__)
        return self.rule.lower(low, b, op, operands)


def fired_rules(text: str) -> list[str]:
    """The rules that lower the ops of @main, in op order."""
    module = parse(text)
    fired: list[str] = []
    rules = [_Recording(r, fired) for r in multi_to_devidx_rules()]
    devices = module.attributes["multi.devices"]  # every tagged chunk lists its devices
    assert isinstance(devices, ArrayAttr)
    names = [a.data for a in devices.data if isinstance(a, StringAttr)]
    strategy = AllreduceStrategy(as_ops="collectives=ops" in text)  # (from its RUN line)
    lowering = FunctionLowering(names, strategy, rules)
    (main,) = [f for f in module.walk() if isinstance(f, func.FuncOp) and f.sym_name.data == "main"]
    try:
        lowering.lower_function(main)
    except PassFailedException:
        assert fired[-1] in DIAGNOSTIC_RULES
    return fired


@pytest.mark.parametrize("rule", RULE_NAMES)
def test_every_rule_has_a_lit_chunk_that_fires_it(rule: str) -> None:
    chunks = tagged_chunks(rule)
    assert chunks, f"no lit chunk in {LIT_DIR} is tagged // Rule: {rule}"
    for path, chunk in chunks:
        assert rule in fired_rules(chunk), f"{path.name} is tagged {rule} but does not fire it"
        if rule not in DIAGNOSTIC_RULES:  # numeric: test_lit_inputs_keep_meaning_at_every_level
            assert path in LIT_INPUTS, path.name


@pytest.mark.parametrize("n", DEVICE_COUNTS)
@pytest.mark.parametrize(("rows", "axis"), [(8, 0), (7, 0), (4, 1)])
def test_local_gives_local_buffers(n: int, rows: int, axis: int) -> None:
    # LocalToLocalBuffer: even and uneven shards, empty ones (4 columns over 8 devices)
    check_equivalent(P.local_of_shard(n, rows, cols=4, axis=axis))

"""The dialects' enums (reduce kinds, cmp predicates, allreduce modes) and their op syntax:
declarative where the format can express it, otherwise a reason in docs/decisions.md."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import numpy as np
import pytest
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser
from xdsl.printer import Printer

from xdsl_multi.dialects import make_context
from xdsl_multi.dialects.devidx import Devidx
from xdsl_multi.dialects.multi import Multi, ReduceKind
from xdsl_multi.dialects.parsing import parse_mlir, shaped_type_end
from xdsl_multi.dialects.tg import TG, CmpPredicate
from xdsl_multi.runtime.interpreter import numerics as nx
from xdsl_multi.transforms.multi_to_devidx.allreduce import AllreduceMode, AllreduceStrategy

DECISIONS = Path(__file__).parents[1] / "docs" / "decisions.md"
SECTION = "## Enums and declarative assembly formats in the dialects"

ON2 = 'tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>'
TEXT = f"""builtin.module {{
  %x, %c, %s, %i = "test.op"() : () -> ({ON2}, tensor<4xi1>, tensor<2x4xf32>, index)
  %r = multi.allreduce mul %x {{tag}} : {ON2} -> {ON2}
  %m = tg.reduce max %x [0] : {ON2} -> tensor<1xf32, #multi.on<["CPU:0", "CPU:1"]>>
  %p = tg.cmp ge %x, %x : {ON2} -> tensor<4xi1, #multi.on<["CPU:0", "CPU:1"]>>
  %ix = devidx.index %s[%i] {{a = 1 : i64}} : tensor<2x4xf32> -> tensor<4xf32>
  %w = tg.where %c, %ix, %ix {{b}} : tensor<4xi1>, tensor<4xf32>
}}"""


def _round_trip(text: str) -> tuple[list, str]:
    module = Parser(make_context(allow_unregistered=True), text).parse_module()
    module.verify()
    out = StringIO()
    Printer(stream=out).print_op(module)
    return list(module.body.block.ops), out.getvalue()


def test_kinds_and_predicates_read_as_enum_members_and_print_unchanged() -> None:
    ops, printed = _round_trip(TEXT)
    assert printed == TEXT
    _, allreduce, reduce, cmp, _, _ = ops
    assert allreduce.reduce_kind is ReduceKind.MUL
    assert reduce.reduce_kind is ReduceKind.MAX
    assert cmp.cmp_predicate is CmpPredicate.GE


@pytest.mark.parametrize(
    ("kind", "want"),
    [(ReduceKind.ADD, np.add), (ReduceKind.MUL, np.multiply), (ReduceKind.MAX, np.maximum)],
)
def test_numerics_take_reduce_kinds(kind: ReduceKind, want: np.ufunc) -> None:
    data = np.array([[1.5, -2.0, 3.0], [4.0, 0.5, -1.0]], np.float32)
    got = nx.reduce_axes(data, (1,), kind)
    np.testing.assert_array_equal(got, want.reduce(data, axis=1, keepdims=True))
    np.testing.assert_array_equal(nx.combine(kind, data[0], data[1]), want(data[0], data[1]))


def test_allreduce_strategy_chooses_a_mode() -> None:
    auto = AllreduceStrategy(AllreduceMode.AUTO, ring_threshold=10)
    assert auto.choose(4, 100, all_devices=True) is AllreduceMode.RING
    assert auto.choose(2, 100, all_devices=True) is AllreduceMode.NAIVE
    assert AllreduceStrategy(AllreduceMode.ALL2ALL).choose(4, 1, True) is AllreduceMode.ALL2ALL
    assert AllreduceStrategy(AllreduceMode.RING).choose(4, 1, False) is AllreduceMode.NAIVE


def test_every_op_is_declarative_or_says_why_not() -> None:
    text = DECISIONS.read_text()
    assert SECTION in text
    section = text[text.index(SECTION) :]
    declarative: set[str] = set()
    for dialect in (Multi, TG, Devidx):
        for op in dialect.operations:
            assert issubclass(op, IRDLOperation)
            if op.assembly_format is not None:
                declarative.add(op.name)
            else:
                assert f"`{op.name}`" in section, f"{op.name}: no reason for its hand-written syntax"
    assert {"devidx.device_num", "devidx.invalid", "devidx.index", "tg.where"} <= declarative


SHAPED = """#s = #multi.shard<["CPU:0", "dev>1"], axis = 0>
builtin.module {
  %x, %m = "test.op"() : () -> (tensor<4x2xf32, #s>, memref<4xf32>)
  %a = arith.addf %x, %x : tensor<4x2xf32, #s>
  %b = arith.mulf %a, %x : tensor<4x2xf32,   #s>
  %v = "test.op"(%m) : (memref<4xf32>) -> vector<4xf32>
  %w = "test.op"() : () -> tensor<4x2xf32, #multi.shard<["CPU:0", "dev>1"], axis = 0>>
}"""


def test_a_repeated_shaped_type_text_is_parsed_once_into_the_same_type() -> None:
    text = 'tensor<2x#a<"x>y", <[1]>>> tail'
    assert shaped_type_end(text, len("tensor")) == text.index(" tail")
    assert shaped_type_end("tensor<2x\nf32>", len("tensor")) is None
    assert shaped_type_end("tensor 2", len("tensor")) is None
    module = parse_mlir(make_context(allow_unregistered=True), SHAPED)
    x, m = module.body.block.first_op.results  # type: ignore[union-attr]
    a, b, v, w = (op.results[0] for op in list(module.body.block.ops)[1:])
    assert a.type is x.type  # the same text: one parse
    assert b.type == x.type and w.type == x.type  # other texts: parsed again, equal
    assert str(v.type) == "vector<4xf32>" and str(m.type) == "memref<4xf32>"
    reference = Parser(make_context(allow_unregistered=True), SHAPED).parse_module()
    assert str(module) == str(reference)

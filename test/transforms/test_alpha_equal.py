"""scalar_graph.alpha_equal: two builds of one element are the same scalar but for the loop
variables their reductions bind (form-kernels{spmd}: a device version that is another's twin
is not emitted again, kernel_codegen._same_element), and anything else tells them apart."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import TensorType, f32
from xdsl.utils.test_value import create_ssa_value

from xdsl_multi.dialects.multi import ReduceKind
from xdsl_multi.transforms.form_kernels import index_maps as im
from xdsl_multi.transforms.form_kernels.index_maps import Var
from xdsl_multi.transforms.form_kernels.scalar_graph import (
    Graph,
    ReduceInfo,
    SNode,
    alpha_equal,
    reduce_combine,
)

X = create_ssa_value(TensorType(f32, [8, 16]))
ORIGIN = arith.ConstantOp.from_int_and_width(0, 32)  # stands for the tg.reduce the sum is of


def row_sum(g: Graph, i: Var, cols: int = 16, scale: float = 2.0, kind=ReduceKind.ADD) -> SNode:
    """sum over j of x[i, j] * scale, its reduction binding a fresh variable j."""
    j = g.new_var(0, cols - 1, "j")
    element = g.op(arith.MulfOp, [g.load(X, (im.var(i), im.var(j))), g.const(scale, f32)], f32)
    combine, identity = reduce_combine(kind, f32)
    return g.reduce(ReduceInfo(kind, (j,), combine, identity, ORIGIN), f32, element, True)


def test_two_builds_of_one_sum_are_alpha_equal_though_not_the_same_node() -> None:
    g = Graph()
    i = g.new_var(0, 7, "i")
    a, b = row_sum(g, i), row_sum(g, i)
    assert a is not b
    assert alpha_equal(a, b)
    total = g.op(arith.AddfOp, [a, g.const(1.0, f32)], f32)
    assert alpha_equal(total, g.op(arith.AddfOp, [b, g.const(1.0, f32)], f32))


def test_a_different_constant_range_kind_or_free_variable_is_not_alpha_equal() -> None:
    g = Graph()
    i, k = g.new_var(0, 7, "i"), g.new_var(0, 7, "k")
    a = row_sum(g, i)
    assert not alpha_equal(a, row_sum(g, i, scale=3.0))
    assert not alpha_equal(a, row_sum(g, i, cols=15))
    assert not alpha_equal(a, row_sum(g, i, kind=ReduceKind.MAX))
    assert not alpha_equal(a, row_sum(g, k))  # a free variable is never renamed


def test_validity_compares_decided_values_by_value() -> None:
    g = Graph()
    i = g.new_var(0, 7, "i")
    assert alpha_equal(True, True) and not alpha_equal(True, False)
    check = g.cmpi("slt", g.var(i), g.index(5))
    assert not alpha_equal(True, check) and alpha_equal(check, check)

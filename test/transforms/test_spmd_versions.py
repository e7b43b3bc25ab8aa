"""SPMD form-kernels' per-device versions (kernel_codegen.emit_plain): versions that are the
same code share one branch on d, and versions that are the same loops but for their bounds are
one loop nest whose bounds are chosen on d (`merge_by_bounds`; issue 14, BENCH W7's cold first
call). Each program is run by
the reference interpreter before (multi level) and after (kernel level) and compiled on
threads, all against numpy.
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

from xdsl_multi.dialects import make_context
from xdsl_multi.dialects.parsing import parse_mlir
from xdsl_multi.passes import get_all_passes
from xdsl_multi.pipeline import lower_for_runtime
from xdsl_multi.runtime.interpreter.interpreter import run_module
from xdsl_multi.runtime.program import Program
from xdsl_multi.transforms.form_kernels.kernel_codegen import KERNEL_ATTR

SPMD = "multi-to-devidx,devidx-simplify,form-kernels{spmd=true}"


def devices(n: int) -> str:
    return ", ".join(f'"CPU:{i}"' for i in range(n))


def row_program(n: int, rows: int, cols: int, reduce: bool) -> str:
    """W7's shape, scaled: x (rows, cols) sharded on axis 0 over n devices, then
    (x * x).sum(axis=1) (`reduce`) or x * x + x, the result sharded the same way."""
    enc = f"#multi.shard<[{devices(n)}], axis = 0>"
    full = f"tensor<{rows}x{cols}xf32, {enc}>"
    if reduce:
        out = f"tensor<{rows}x1xf32, {enc}>"
        body = f"%sq = arith.mulf %x, %x : {full}\n    %r = tg.reduce add %sq [1] : {full} -> {out}"
    else:
        out = full
        body = f"%sq = arith.mulf %x, %x : {full}\n    %r = arith.addf %sq, %x : {full}"
    return f"""builtin.module attributes {{multi.devices = [{devices(n)}]}} {{
  func.func @main(%x: {full}) -> {out} {{
    {body}
    func.return %r : {out}
  }}
}}
"""


def gather_program(n: int, rows: int, cols: int) -> str:
    """An uneven shard gathered to device 0 (each piece lands where d says), doubled."""
    shard = f"tensor<{rows}x{cols}xf32, #multi.shard<[{devices(n)}], axis = 0>>"
    one = f'tensor<{rows}x{cols}xf32, #multi.on<["CPU:0"]>>'
    return f"""builtin.module attributes {{multi.devices = [{devices(n)}]}} {{
  func.func @main(%x: {shard}) -> {one} {{
    %c = multi.copy %x : {shard} -> {one}
    %d = arith.addf %c, %c : {one}
    func.return %d : {one}
  }}
}}
"""


def kernel_branches(module: ModuleOp) -> list[int]:
    """Per kernel, the scf.if ops directly in its body (one per distinct version)."""
    return [
        sum(isinstance(op, scf.IfOp) for op in k.body.block.ops)
        for k in module.walk()
        if isinstance(k, func.FuncOp) and KERNEL_ATTR in k.attributes and k.body.blocks
    ]


def kernel_loops(module: ModuleOp) -> list[int]:
    """Per kernel, the scf.for ops directly in its body."""
    return [
        sum(isinstance(op, scf.ForOp) for op in k.body.block.ops)
        for k in module.walk()
        if isinstance(k, func.FuncOp) and KERNEL_ATTR in k.attributes and k.body.blocks
    ]


def distinct_lengths(n: int, rows: int) -> int:
    """How many different local row counts the devices own (SPEC §1 bounds)."""
    s = -(-rows // n)
    return len({min((k + 1) * s, rows) - min(k * s, rows) for k in range(n)})


CASES = [  # (devices, rows, cols): full devices and one short; N = 8 with a short and an empty one
    (3, 10, 7),
    (8, 31, 5),
    (8, 26, 3),
]


@pytest.mark.parametrize("reduce", [True, False], ids=["sum", "elementwise"])
@pytest.mark.parametrize(("n", "rows", "cols"), CASES)
def test_uneven_rows_branch_once_per_distinct_version(
    n: int, rows: int, cols: int, reduce: bool
) -> None:
    """W7-like: the devices own different row counts (and the short ones pad), yet the kernel
    has no branch on d. Elementwise: one loop over the rows the device owns and one over its
    padding rows, with bounds chosen on d (empty where a device has no padding), the padding
    rows stored as 0. Row sums: one loop over every local row, each sum selected or 0 by the
    check that moves with d (kernel_analysis.checks_per_reduction). Interpreter before/after
    and threads equal numpy."""
    text = row_program(n, rows, cols, reduce)
    x = np.random.default_rng(n * rows).standard_normal((rows, cols)).astype(np.float32)
    want = (x * x).sum(axis=1, keepdims=True) if reduce else x * x + x
    kernels = parse_mlir(make_context(), text)
    PassPipeline.parse_spec(get_all_passes(), SPMD).apply(make_context(), kernels)
    kernels.verify()
    assert distinct_lengths(n, rows) > 1  # (the versions do differ)
    assert kernel_branches(kernels) == [0]
    assert kernel_loops(kernels) == ([1] if reduce else [2])
    before = run_module(parse_mlir(make_context(), text), [x])
    after = run_module(kernels, [x])
    compiled = parse_mlir(make_context(), text)
    lower_for_runtime(compiled, spmd=True)
    with Program(compiled) as program:
        (threads,) = program([x])
    for got in (before[0], after[0], threads):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("n", "rows", "cols"), [(3, 14, 4), (8, 39, 3)])
def test_uneven_gather_lands_where_d_says(n: int, rows: int, cols: int) -> None:
    """A gather of an uneven shard: the pieces land at offsets that depend on d, so each
    device keeps a version of its own (no two are the same code), and the values hold."""
    text = gather_program(n, rows, cols)
    x = np.random.default_rng(rows).standard_normal((rows, cols)).astype(np.float32)
    kernels = parse_mlir(make_context(), text)
    PassPipeline.parse_spec(get_all_passes(), SPMD).apply(make_context(), kernels)
    kernels.verify()
    assert max(kernel_branches(kernels)) == n
    (after,) = run_module(kernels, [x])
    compiled = parse_mlir(make_context(), text)
    lower_for_runtime(compiled, spmd=True)
    with Program(compiled) as program:
        (threads,) = program([x])
    for got in (after, threads):
        np.testing.assert_array_equal(got, x + x)


def row_reduction_program(n: int, rows: int, cols: int, kind: str, dtype: str) -> str:
    """x (rows, cols) of `dtype` sharded on axis 0 over n devices, reduced over axis 1 with
    `kind` after an elementwise step: x * x for floats, x // 3 for i32 (an integer division:
    on padding rows it would divide whatever they hold)."""
    enc = f"#multi.shard<[{devices(n)}], axis = 0>"
    full, out = f"tensor<{rows}x{cols}x{dtype}, {enc}>", f"tensor<{rows}x1x{dtype}, {enc}>"
    if dtype == "i32":
        step = f"%c = arith.constant dense<3> : {full}\n    %e = arith.floordivsi %x, %c : {full}"
    else:
        step = f"%e = arith.mulf %x, %x : {full}"
    return f"""builtin.module attributes {{multi.devices = [{devices(n)}]}} {{
  func.func @main(%x: {full}) -> {out} {{
    {step}
    %r = tg.reduce {kind} %e [1] : {full} -> {out}
    func.return %r : {out}
  }}
}}
"""


@pytest.mark.parametrize(
    "n, rows, cols, kind, dtype, one_nest",
    [
        (3, 10, 7, "add", "f32", True),  # the check stays: one select per row
        (4, 9, 33, "max", "f32", True),
        (8, 26, 5, "add", "f32", True),  # a device with no rows
        (3, 10, 7, "add", "i32", False),  # an integer division: versions, padding not computed
        (5, 12, 4, "max", "i32", False),  # (and a device with no rows: a branch of its own)
    ],
)
def test_uneven_row_reductions_keep_the_moving_check_unless_it_could_trap(
    n: int, rows: int, cols: int, kind: str, dtype: str, one_nest: bool
) -> None:
    """kernel_analysis.checks_per_reduction: a row reduction over uneven rows is one loop
    nest whose sums are selected or 0 by the check that moves with d; with an op that traps
    on what padding rows hold (an integer division) it keeps a version per distinct device
    (merged by bounds into a loop over the rows and one over the padding rows, or a branch
    on d). Both modes, compiled, equal the interpreter and numpy."""
    text = row_reduction_program(n, rows, cols, kind, dtype)
    rng = np.random.default_rng(n * rows + cols)
    if dtype == "i32":
        x = rng.integers(-50, 50, (rows, cols)).astype(np.int32)
        e = x // 3
    else:
        x = rng.standard_normal((rows, cols)).astype(np.float32)
        e = x * x
    want = e.sum(axis=1, keepdims=True) if kind == "add" else e.max(axis=1, keepdims=True)
    kernels = parse_mlir(make_context(), text)
    PassPipeline.parse_spec(get_all_passes(), SPMD).apply(make_context(), kernels)
    assert ((kernel_branches(kernels), kernel_loops(kernels)) == ([0], [1])) == one_nest
    (interpreted,) = run_module(parse_mlir(make_context(), text), [x])
    np.testing.assert_allclose(interpreted, want, rtol=1e-5, atol=1e-5)
    for spmd in (True, False):
        compiled = parse_mlir(make_context(), text)
        lower_for_runtime(compiled, spmd=spmd)
        with Program(compiled) as program:
            (got,) = program([x])
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)

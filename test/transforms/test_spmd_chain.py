"""form-kernels{spmd=true} on a chain of row reductions stays linear in the chain's length
(docs/compile-time-log.md round 10: it was exponential).

The chain is `x = x * 1.25 - expand(max(x * 1.25) * 0.5)` repeated, x's rows sharded unevenly
over a subset of the devices in a permuted order: the SPMD level cleans every reduction's
result through a pad and a shrink by the same d-dependent bound, and reads each step's input
at the same rows. What is counted: the rounds of `analyze`'s fixed point, the kernels, the
nodes of the kernel's elements, and the code comparisons of loop rolling; what is checked: the
program before and after the passes in the reference interpreter, and compiled on threads.
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func, memref, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.passes import PassPipeline

import xdsl_multi as xm
from xdsl_multi.dialects import make_context
from xdsl_multi.passes import get_all_passes
from xdsl_multi.runtime.interpreter.interpreter import run_module
from xdsl_multi.transforms.form_kernels import index_maps as im
from xdsl_multi.transforms.form_kernels import loop_rolling
from xdsl_multi.transforms.form_kernels.kernel_analysis import Fusion, TilePolicy, analyze
from xdsl_multi.transforms.form_kernels.scalar_graph import Graph, walk

LONG = 24
"""Steps of the regression: minutes of form-kernels with the blowup, well under a second
without it."""


def chain_program(
    steps: int, devices: int = 4, owners: tuple[int, ...] = (3, 0), rows: int = 9
) -> str:
    """The chain on x (rows x 8), its rows sharded over `owners` of `devices` devices."""

    def listed(ks: range | tuple[int, ...]) -> str:
        return ", ".join(f'"CPU:{k}"' for k in ks)

    enc = f"#multi.shard<[{listed(owners)}], axis = 0>"
    full, row = f"tensor<{rows}x8xf32, {enc}>", f"tensor<{rows}x1xf32, {enc}>"
    names = listed(range(devices))
    lines = [
        f"builtin.module attributes {{multi.devices = [{names}]}} {{",
        f"  func.func @main(%x0: {full}) -> {full} {{",
        f"    %c = arith.constant dense<1.25> : {full}",
        f"    %h = arith.constant dense<0.5> : {row}",
    ]
    for i in range(steps):
        lines += [
            f"    %e{i} = arith.mulf %x{i}, %c : {full}",
            f"    %r{i} = tg.reduce max %e{i} [1] : {full} -> {row}",
            f"    %n{i} = arith.mulf %r{i}, %h : {row}",
            f"    %b{i} = tg.expand %n{i} : {row} -> {full}",
            f"    %x{i + 1} = arith.subf %e{i}, %b{i} : {full}",
        ]
    lines += [f"    func.return %x{steps} : {full}", "  }", "}", ""]
    return "\n".join(lines)


def parse(text: str) -> ModuleOp:
    module = Parser(make_context(), text).parse_module()
    module.verify()
    return module


def run_passes(module: ModuleOp, pipeline: str) -> ModuleOp:
    PassPipeline.parse_spec(get_all_passes(), pipeline).apply(make_context(), module)
    module.verify()
    return module


def lowered(text: str) -> ModuleOp:
    return run_passes(parse(text), "multi-to-devidx,devidx-simplify,form-kernels{spmd=true}")


def spmd_fusion(steps: int, devices: int = 4) -> Fusion:
    """`analyze` on the chain's SPMD @main (what form-kernels{spmd=true} plans)."""
    module = run_passes(parse(chain_program(steps, devices)), "multi-to-devidx,devidx-simplify")
    main = next(op for op in module.body.block.ops if isinstance(op, func.FuncOp))
    return analyze(main.body.block, TilePolicy(), devices=devices)


def test_the_chain_is_one_kernel_planned_in_one_round() -> None:
    """With the blowup every step's reduction was overcomputed and materialized one layer a
    round: LONG / 2 + 1 rounds over ever-growing elements, LONG kernels."""
    fusion = spmd_fusion(LONG)
    assert fusion.rounds == 1
    (plan,) = fusion.plans
    assert len(plan.versions) == 4  # one per device number: each version's loops split apart
    assert any(n.kind == "fill" for n in walk([plan.value]))  # scratch rows, d symbolic


def test_the_kernel_grows_linearly_in_the_steps() -> None:
    """The kernel's nodes (its d-symbolic element and the four versions) grow by the same
    number with every step: the same count from 12 to 24 steps as from 24 to 36."""
    sizes = [len(spmd_fusion(steps).plans[0].graph) for steps in (12, LONG, 36)]
    assert sizes[2] - sizes[1] == sizes[1] - sizes[0], sizes
    assert sizes[1] - sizes[0] <= 60 * 12, sizes  # ~48 per step today


@pytest.mark.parametrize(
    ("devices", "owners", "rows"),
    [(4, (3, 0), 9), (10, (7, 2, 5), 10)],
    ids=["versions", "no-versions"],
)
def test_a_long_chain_matches_the_interpreter(
    devices: int, owners: tuple[int, ...], rows: int, tmp_path, monkeypatch
) -> None:
    """LONG steps through form-kernels{spmd=true}: the same values as the program as written,
    in the interpreter and compiled. With 10 devices the kernel has no versions (more than
    MAX_VERSIONS): it reads its scratch rows back with their validity, d symbolic."""
    text = chain_program(LONG, devices, owners, rows)
    x = np.random.default_rng(5).uniform(-1, 1, size=(rows, 8)).astype(np.float32)
    want = run_module(parse(text), [x])[0]
    module = lowered(text)
    np.testing.assert_allclose(run_module(module, [x])[0], want, rtol=1e-5, atol=1e-5)
    monkeypatch.setenv("XDSL_MULTI_CACHE_DIR", str(tmp_path))
    with xm.compile(text, spmd=True) as program:
        np.testing.assert_allclose(program(x)[0], want, rtol=1e-4, atol=1e-4)


def test_without_versions_the_kernel_reads_scratch_rows_and_rolls() -> None:
    """With d symbolic in the code (10 devices: no versions) the rows' validity is `row + T(d)
    < 10`, the same along a row: the chain goes through two scratch rows (which were written
    only for values valid everywhere) and their ping-pong rolls into a loop."""
    module = lowered(chain_program(LONG, 10, (7, 2, 5), 10))
    assert not any(isinstance(op, scf.IfOp) for op in module.walk())
    assert sum(isinstance(op, memref.AllocaOp) for op in module.walk()) == 2
    assert sum(isinstance(op, scf.ForOp) for op in module.walk()) < LONG


def test_loop_rolling_compares_no_more_code_in_a_longer_chain(monkeypatch) -> None:
    """The chain's versions read every step's mean in their output loop, so no run of their
    reductions can roll. Finding that out compared every candidate run's code, for every
    start and period (O(n^2) op comparisons per block: 6992 top-level ops at LONG steps); the
    positions of the uses now rule them out first. What is left, at any length: the kernel's
    version branches (`scf.if` on d) compared as a candidate run."""
    compared: list[int] = []
    checked_run = loop_rolling._checked_run

    def counting(ops, i, period, count):  # type: ignore[no-untyped-def]
        compared.append(count * period)
        return checked_run(ops, i, period, count)

    monkeypatch.setattr(loop_rolling, "_checked_run", counting)
    lowered(chain_program(12))
    short = sum(compared)
    compared.clear()
    lowered(chain_program(LONG))
    assert sum(compared) == short <= 30, (short, compared)


def test_a_pad_and_a_shrink_by_one_device_bound_cancel() -> None:
    """`pad [[T(d), ...]]` then `shrink [[T(d), ...]]` read the rows they were given (the pad's
    index is no longer clamped: clamp(i + T - T, ...) + T nested once a step); a load clamps."""
    g = Graph(4)
    i = g.new_var(0, 4, "i")
    t = im.table(im.var(g.device()), (5, 5, 5, 0))
    row = im.add(im.var(i), t)  # a global row, [0, 10)
    src, checks = im.pad_map((row,), (5,), (t,))  # into a local buffer of 5 rows at T(d)
    assert src == (im.var(i),) and checks == []
    src, (check,) = im.pad_map((row,), (9,), (0,))  # into 9 rows: row 9 is padding
    assert src == (row,) and (check.lo, check.hi) == (0, 9)
    assert im.shrink_map(im.pad_map(src, (10,), (t,))[0], (t,)) == (row,)
    buffer = parse(chain_program(1)).body.block.first_op
    assert isinstance(buffer, func.FuncOp)
    load = g.load(buffer.args[0], (row, im.const(0)))
    assert load.payload[1] == (im.clamp(row, 0, 8), im.const(0))

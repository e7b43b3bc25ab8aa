"""Work and traffic of the specialized modules, pinned: what each device computes and what
crosses between devices after multi-to-devidx, devidx-simplify and specialize-devices.

Counts come from the reference interpreter (`InterpStats`): `lanes_computed[d]` is every lane
that computing ops produce on device d (what compiled code would compute), `messages` and
`elements_sent` count send/recv pairs between different devices. Each test also checks the
values against the multi-level program.
"""

from __future__ import annotations

import math

import multi_programs as P  # test/support, on pythonpath
import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from xdsl_multi.dialects import make_context
from xdsl_multi.dialects.multi import shard_bounds
from xdsl_multi.runtime.interpreter.interpreter import (
    InterpStats,
    logical_signature,
    random_inputs,
    run_module,
)
from xdsl_multi.transforms.devidx_simplify.devidx_simplify import DevidxSimplify
from xdsl_multi.transforms.multi_to_devidx.multi_to_devidx import MultiToDevidx
from xdsl_multi.transforms.specialize_devices.specialize_devices import SpecializeDevices


def specialized(text: str, **options: object) -> tuple[ModuleOp, InterpStats]:
    """Lower `text` to device modules, check them against the multi level, return the stats."""
    ctx = make_context()
    before = Parser(ctx, text).parse_module()
    after = Parser(ctx, text).parse_module()
    MultiToDevidx(**options).apply(ctx, after)  # type: ignore[arg-type]
    DevidxSimplify().apply(ctx, after)
    SpecializeDevices().apply(ctx, after)
    after.verify()
    inputs = random_inputs(logical_signature(before, "main"), seed=3)
    stats = InterpStats()
    got = run_module(after, inputs, stats=stats)
    for g, w in zip(got, run_module(before, inputs), strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    return after, stats


def w1(n: int, rows: int, cols: int = 16) -> str:
    """BENCH W1: y = maximum(x * 2 + 1, 0) - x / 3, x and y sharded on axis 0: 5 ops."""
    d = P.devs(n)
    x = P.t((rows, cols), P.shard(d, 0))
    body = "\n".join(
        [
            f"    %two = arith.constant dense<2.0> : {x}",
            f"    %one = arith.constant dense<1.0> : {x}",
            f"    %zero = arith.constant dense<0.0> : {x}",
            f"    %three = arith.constant dense<3.0> : {x}",
            f"    %a = arith.mulf %a0, %two : {x}",
            f"    %b = arith.addf %a, %one : {x}",
            f"    %c = arith.maximumf %b, %zero : {x}",
            f"    %e = arith.divf %a0, %three : {x}",
            f"    %y = arith.subf %c, %e : {x}",
            f"    func.return %y : {x}",
        ]
    )
    return P.module(d, [x], [x], body)


@pytest.mark.parametrize("n", [2, 3, 4, 8])
def test_even_elementwise_computes_one_nth_per_device(n: int) -> None:
    rows, cols = 4 * n, 16
    _, stats = specialized(w1(n, rows, cols))
    for d in range(n):
        assert stats.lanes_computed.get(d, 0) == 5 * rows * cols // n
    assert stats.total_messages == 0


def test_uneven_elementwise_computes_each_share() -> None:
    n, rows, cols = 3, 7, 16
    _, stats = specialized(w1(n, rows, cols))
    for d in range(n):
        lo, hi = shard_bounds(rows, n, d)
        assert stats.lanes_computed.get(d, 0) == 5 * (hi - lo) * cols
    assert stats.total_messages == 0


def test_empty_shard_computes_nothing() -> None:
    _, stats = specialized(w1(3, 4, 8))  # 4 rows over 3 devices: 2, 2, 0
    assert stats.lanes_computed.get(2, 0) == 0
    assert stats.lanes_computed[0] == stats.lanes_computed[1] == 5 * 2 * 8


@pytest.mark.parametrize("n", [2, 3, 4, 8])
def test_naive_allreduce_sends_full_buffers(n: int) -> None:
    numel = 24
    _, stats = specialized(P.allreduce(n, "add", (numel,)), allreduce="naive")
    assert stats.total_messages == n * (n - 1)
    assert set(stats.elements_sent.values()) == {numel}


@pytest.mark.parametrize("n", [2, 3, 4, 8])
@pytest.mark.parametrize("strategy", ["ring", "all2all"])
def test_ring_and_all2all_send_chunks(n: int, strategy: str) -> None:
    numel = 8 * n + 1  # not divisible: chunks of ceil(numel / n)
    _, stats = specialized(P.allreduce(n, "add", (numel,)), allreduce=strategy)
    chunk = math.ceil(numel / n)
    assert stats.total_messages == 2 * n * (n - 1)
    for pair, count in stats.messages.items():
        assert stats.elements_sent[pair] == count * chunk


@pytest.mark.parametrize("n", [2, 3, 4])
def test_gather_moves_each_shard_once(n: int) -> None:
    rows, cols = 7, 4
    _, stats = specialized(P.copy_cases(n, rows)["gather"])
    target = n - 1
    sent = {src: e for (src, dst), e in stats.elements_sent.items() if dst == target}
    assert set(stats.elements_sent) == {(k, target) for k in range(n - 1) if sent.get(k)}
    for k in range(n - 1):
        lo, hi = shard_bounds(rows, n, k)
        assert sent.get(k, 0) == (hi - lo) * cols


@pytest.mark.parametrize("n", [2, 3, 4])
def test_all_gather_brings_the_other_shares(n: int) -> None:
    rows, cols = 4 * n, 4
    _, stats = specialized(P.copy_cases(n, rows)["all-gather"])
    for d in range(n):
        received = sum(e for (src, dst), e in stats.elements_sent.items() if dst == d)
        assert received == (n - 1) * rows * cols // n


@pytest.mark.parametrize("n", [2, 3, 4])
def test_scatter_sends_each_device_its_share(n: int) -> None:
    rows, cols = 7, 4
    _, stats = specialized(P.copy_cases(n, rows)["scatter"])
    assert all(src == 0 for src, _ in stats.elements_sent)
    for d in range(1, n):
        lo, hi = shard_bounds(rows, n, d)
        assert stats.elements_sent.get((0, d), 0) == (hi - lo) * cols


def test_on_to_shard_on_same_devices_moves_nothing() -> None:
    _, stats = specialized(P.copy_cases(3, 6)["keep-slice"])
    assert stats.total_messages == 0


@pytest.mark.parametrize("n", [2, 3, 4])
def test_reshard_is_an_all_to_all_of_blocks(n: int) -> None:
    side = 2 * n
    text = P.copy(
        P.t((side, side), P.shard(P.devs(n), 0)),
        P.t((side, side), P.shard(P.devs(n), 1)),
        P.devs(n),
    )
    _, stats = specialized(text)
    assert stats.total_messages == n * (n - 1)
    assert set(stats.elements_sent.values()) == {side * side // (n * n)}

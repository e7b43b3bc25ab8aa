"""A call with big inputs or outputs places and gathers them on the device threads in parallel
(runtime/program.py `PARALLEL_COPY_BYTES`; issue 14: half of a small program's first call was
these copies, made one after the other on the calling thread). The logical results are the
same as numpy's for even and uneven shards and for values on every device; small calls keep
copying on the calling thread."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

from xdsl_multi.dialects import make_context
from xdsl_multi.dialects.parsing import parse_mlir
from xdsl_multi.pipeline import lower_for_runtime
from xdsl_multi.runtime.backends.threads import ThreadsBackend
from xdsl_multi.runtime.executor import ProgramInfo
from xdsl_multi.runtime.program import PARALLEL_COPY_BYTES, Program


def program(rows: int, n: int) -> str:
    """y = x * 2 + 1 (sharded like x) and s = x.sum(axis=0) on every device."""
    devices = ", ".join(f'"CPU:{k}"' for k in range(n))
    on = f"#multi.on<[{devices}]>"
    shard = f"#multi.shard<[{devices}], axis = 0>"
    x, s = f"tensor<{rows}x1024xf32, {shard}>", f"tensor<1x1024xf32, {on}>"
    return f"""
module attributes {{multi.devices = [{devices}]}} {{
  func.func @main(%x: {x}) -> ({x}, {s}) {{
    %two = arith.constant dense<2.0> : {x}
    %one = arith.constant dense<1.0> : {x}
    %a = arith.mulf %x, %two : {x}
    %y = arith.addf %a, %one : {x}
    %s = tg.reduce add %x [0] : {x} -> {s}
    func.return %y, %s : {x}, {s}
  }}
}}
"""


def compiled(rows: int, n: int) -> Program:
    module = parse_mlir(make_context(), program(rows, n))
    lower_for_runtime(module)
    return Program(module, pin_threads=False)


def parallel_threads() -> bool:
    cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else {0}
    return len(cores) > 1


@pytest.mark.parametrize(("rows", "n"), [(1024, 2), (1100, 3), (2048, 4)])
def test_big_calls_place_and_gather_on_the_device_threads(
    rows: int, n: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    x = np.random.default_rng(rows).standard_normal((rows, 1024)).astype(np.float32)
    assert x.nbytes >= PARALLEL_COPY_BYTES
    placed_on: dict[int, int] = {}
    rounds: list[str] = []
    place_device, each_device = ProgramInfo.place_device, ThreadsBackend.each_device

    def placing(info: ProgramInfo, schedule, logical):  # type: ignore[no-untyped-def]
        placed_on[schedule.device] = threading.get_ident()
        return place_device(info, schedule, logical)

    def handing(backend: ThreadsBackend, work):  # type: ignore[no-untyped-def]
        rounds.append("each_device")
        return each_device(backend, work)

    monkeypatch.setattr(ProgramInfo, "place_device", placing)
    monkeypatch.setattr(ThreadsBackend, "each_device", handing)
    with compiled(rows, n) as p:
        for _ in range(2):  # the first call and one with the device memory kept
            rounds.clear()
            y, s = p([x])
            np.testing.assert_allclose(y, x * 2 + 1, rtol=1e-6)
            assert s.shape == (n, 1, 1024)
            for k in range(n):
                np.testing.assert_allclose(s[k], x.sum(axis=0, keepdims=True), rtol=1e-4, atol=1e-3)
            if parallel_threads():  # (one core: one group, nothing to hand over)
                assert rounds == ["each_device", "each_device"]  # place, then gather
                assert placed_on[0] == threading.get_ident()
                assert placed_on[n - 1] != threading.get_ident()
    # the outputs are the caller's own arrays: a later call does not change them
    with compiled(rows, n) as p:
        y, _ = p([x])
        first = y.copy()
        p([x + 1])
        np.testing.assert_array_equal(y, first)


def test_small_calls_copy_on_the_calling_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    rounds: list[str] = []
    each_device = ThreadsBackend.each_device

    def handing(backend: ThreadsBackend, work):  # type: ignore[no-untyped-def]
        rounds.append("each_device")
        return each_device(backend, work)

    monkeypatch.setattr(ThreadsBackend, "each_device", handing)
    x = np.arange(8 * 1024, dtype=np.float32).reshape(8, 1024)
    with compiled(8, 2) as p:
        y, s = p([x])
    np.testing.assert_allclose(y, x * 2 + 1)
    np.testing.assert_allclose(s[1], x.sum(axis=0, keepdims=True))
    assert rounds == []


def test_a_failing_copy_is_raised_after_every_device_is_done() -> None:
    with compiled(8, 2) as p:
        backend = p._backend
        seen: list[int] = []

        def work(d: int) -> int:
            seen.append(d)
            if d == 1:
                raise ValueError("device 1's copy failed")
            return d

        with pytest.raises(ValueError, match="device 1's copy failed"):
            backend.each_device(work)
        assert sorted(seen) == [0, 1]
        assert backend.each_device(lambda d: d * 10) == [0, 10]

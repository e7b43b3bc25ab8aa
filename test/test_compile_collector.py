"""`xdsl_multi.compile` pauses Python's cyclic garbage collector while it runs (api.py
`collector_paused`, docs/decisions.md "The garbage collector during a compile"): paused
inside, restored afterwards whatever happens (a result, a CompileError, a caller that had
disabled it, two compiles on two threads), and the compile's young garbage collected at the
end. numpy is the oracle for the programs compiled meanwhile."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import xdsl_multi as xm
from xdsl_multi import api

PROGRAM = """\
#s = #multi.shard<["CPU:0", "CPU:1"], axis = 0>
#on = #multi.on<["CPU:0", "CPU:1"]>
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<6x4xf32, #s>) -> tensor<1x4xf32, #on> {
    %y = arith.mulf %x, %x : tensor<6x4xf32, #s>
    %r = tg.reduce add %y [0] : tensor<6x4xf32, #s> -> tensor<1x4xf32, #on>
    func.return %r : tensor<1x4xf32, #on>
  }
}
"""

X = np.random.default_rng(3).standard_normal((6, 4)).astype(np.float32)


def check(prog: xm.Program) -> None:
    (z,) = prog(X)
    want = (X * X).sum(axis=0, keepdims=True)
    np.testing.assert_allclose(z, np.stack([want, want]), rtol=1e-5, atol=1e-6)


@pytest.fixture(autouse=True)
def _collector_back_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A cold cache of the test's own, and the collector on again whatever a test did."""
    monkeypatch.setenv("XDSL_MULTI_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("XDSL_MULTI_PIPELINE_CACHE", raising=False)
    yield
    gc.enable()


def _record_collector_during_lowering(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """gc.isenabled() as each lowering (api._lower: the passes) starts."""
    seen: list[bool] = []
    original = api._lower

    def recording(*args: object, **kw: object) -> None:
        seen.append(gc.isenabled())
        original(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(api, "_lower", recording)
    return seen


@pytest.mark.parametrize("spmd", [False, True])
def test_the_collector_is_paused_during_a_compile_and_on_again_after(
    spmd: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _record_collector_during_lowering(monkeypatch)
    assert gc.isenabled()
    with xm.compile(PROGRAM, spmd=spmd) as prog:
        assert gc.isenabled()
        check(prog)
    assert seen == [False]
    with xm.compile(PROGRAM, spmd=spmd) as prog:  # warm: no lowering, the same state after
        assert prog.cached
        assert gc.isenabled()
        check(prog)


def test_a_compile_error_leaves_the_collector_on(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _record_collector_during_lowering(monkeypatch)
    with pytest.raises(xm.CompileError, match="expected"):
        xm.compile(PROGRAM.replace("tensor<6x4xf32, #s>)", "tensor<6x4xf32, #s>", 1))
    assert gc.isenabled()
    failing = PROGRAM.replace("tg.reduce add", "tg.reduce bogus")  # fails after the pause began
    with pytest.raises(xm.CompileError):
        xm.compile(failing)
    assert gc.isenabled()
    with pytest.raises(xm.CompileError, match="unknown backend"):
        xm.compile(PROGRAM, backend="gpu")  # type: ignore[arg-type]
    assert gc.isenabled()
    assert seen == []


def test_an_internal_error_during_the_passes_leaves_the_collector_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*args: object, **kw: object) -> None:
        assert not gc.isenabled()
        raise RuntimeError("a bug in a pass")

    monkeypatch.setattr(api, "_lower", broken)
    with pytest.raises(xm.CompileError, match="internal error") as info:
        xm.compile(PROGRAM)
    assert "Traceback" not in str(info.value)
    assert gc.isenabled()


def test_a_caller_that_disabled_the_collector_keeps_it_disabled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen = _record_collector_during_lowering(monkeypatch)
    gc.disable()
    with xm.compile(PROGRAM) as prog:
        assert not gc.isenabled()
        check(prog)
    with pytest.raises(xm.CompileError):
        xm.compile(PROGRAM.replace("tg.reduce add", "tg.reduce bogus"))
    assert not gc.isenabled()
    assert seen == [False]


def test_two_compiles_on_two_threads_leave_the_collector_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first compile pauses the collector; the second starts while it is paused and ends
    after the first turned it back on: neither leaves it off."""
    first_inside, first_done = threading.Event(), threading.Event()
    original = api._lower
    results: dict[str, object] = {}

    def lower(*args: object, **kw: object) -> None:
        if threading.current_thread().name == "first":
            first_inside.set()
            assert first_done.wait(60)  # hold the first compile until the second has begun
        original(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(api, "_lower", lower)

    def compile_on_thread(text: str) -> None:
        try:
            results[threading.current_thread().name] = xm.compile(text)
        except BaseException as e:  # noqa: BLE001 - reported by the assertions below
            results[threading.current_thread().name] = e

    first = threading.Thread(target=compile_on_thread, args=(PROGRAM,), name="first")
    # another text: its own keys, so neither compile finds the other's entry
    second_text = PROGRAM.replace("arith.mulf %x, %x", "arith.mulf %x, %x {}")
    second = threading.Thread(target=compile_on_thread, args=(second_text,), name="second")
    first.start()
    assert first_inside.wait(60)
    assert not gc.isenabled()  # paused by the first
    second.start()
    second.join(60)
    first_done.set()
    first.join(60)
    assert gc.isenabled()
    for name in ("first", "second"):
        prog = results[name]
        assert isinstance(prog, xm.Program), prog
        with prog:
            check(prog)


def test_the_compiles_garbage_is_collected_before_it_returns() -> None:
    """After a compile the young generation holds next to nothing: the compile's cycles were
    collected by it, not left for the caller's next allocation to trip over."""
    with xm.compile(PROGRAM) as prog:
        young = gc.get_count()[0]
        check(prog)
    assert young < gc.get_threshold()[0]

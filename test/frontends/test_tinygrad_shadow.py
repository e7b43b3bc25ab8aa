"""The shadow runner (SPEC §8) on a small synthetic test file (shadow_sample.py) instead of
tinygrad's checkout: one sharded float graph and one replicated int graph that match, a graph
sharded on two axes that imports but is unsupported (the compiled path does not lower device
meshes yet), a failing test that stays failing. tinygrad realizes
on its CPU device, which compiles with clang: without tinygrad or clang the runner test is
skipped (the comparison helpers are tested without clang)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("tinygrad")

from tinygrad.dtype import dtypes

from xdsl_multi.frontends.tinygrad.shadow import summarize
from xdsl_multi.frontends.tinygrad.shadow_plugin import (
    GraphRecord,
    ShadowPlugin,
    _movement,
    _Pending,
    compared_dtype,
    graph_facts,
    mismatch,
    nudged,
    tinygrad_value,
)

SAMPLE = Path(__file__).with_name("shadow_sample.py")


@pytest.mark.skipif(shutil.which("clang") is None, reason="tinygrad's CPU device needs clang")
def test_shadow_runner_on_a_sample_checkout(tmp_path: Path) -> None:
    checkout = tmp_path / "tinygrad"
    (checkout / "test").mkdir(parents=True)
    shutil.copy(SAMPLE, checkout / "test" / "test_sample.py")
    report = tmp_path / "shadow.jsonl"
    command = [sys.executable, "-m", "xdsl_multi.frontends.tinygrad.shadow"]
    # relative to the runner's directory (pytest itself runs in the checkout)
    command += ["--report", report.name, str(checkout), "-q", "test/test_sample.py"]
    done = subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False
    )
    summary = done.stdout[done.stdout.index("== xdsl-multi shadow") :].splitlines()
    assert summary[1] == (
        "graphs: 7 multi-device graphs: 7 matched, 0 mismatched, 0 errors, "
        "0 unsupported, 0 not compared"
    ), done.stdout  # the mesh graph matches since meshes are lowered (issue 15)
    assert "tinygrad's outcomes: 1 failed, 4 passed (baseline: 1 failed, 4 passed)" in summary
    assert "outcomes changed against the baseline: 0 of 5 tests" in summary
    assert summary[-1] == "7 passed, 0 failed"
    assert done.returncode == 0
    assert report.read_text().count('"kind": "matched"') == 7


def test_mismatch_is_exact_for_ints_and_uses_the_dtypes_tolerance_for_floats() -> None:
    ints = np.array([1, 2, 3], np.int32)
    assert mismatch(ints, ints.copy(), dtypes.int32) is None
    why = mismatch(ints, np.array([1, 2, 4], np.int32), dtypes.int32)
    assert why == "1 of 3 elements differ; first at (2,): ours 3, tinygrad's 4"
    floats = np.array([1.0, np.nan, -np.inf], np.float32)
    assert mismatch(floats, floats + np.float32(1e-6), dtypes.float32) is None
    assert mismatch(floats, floats + np.float32(1e-3), dtypes.float32) is not None
    assert (
        mismatch(floats.astype(np.float16), floats.astype(np.float16) + 1e-3, dtypes.float16)
        is None
    )
    assert mismatch(ints, ints.reshape(3, 1), dtypes.int32) == "shape (3,) != tinygrad's (3, 1)"
    signless = np.array([-1], np.int32)  # the program's bits of a uint32 0xFFFFFFFF
    assert mismatch(signless, np.array([0xFFFFFFFF], np.uint32), dtypes.uint32) is None


def test_summary_counts_failures_and_changed_outcomes() -> None:
    graphs: list[dict[str, object]] = [
        {"test": "t::a", "index": 0, "kind": "matched", "graph": "g", "reason": "", "detail": ""},
        {"test": "t::a", "index": 1, "kind": "mismatch", "graph": "g", "reason": "values differ", "detail": "1 of 4"},
        {"test": "t::b", "index": 0, "kind": "error", "graph": "g", "reason": "compile or run: X", "detail": "X: y"},
        {"test": "t::b", "index": 1, "kind": "unsupported", "graph": "g", "reason": "UNSHARD: 2 axes", "detail": ""},
    ]  # fmt: skip
    lines, clean = summarize(
        graphs, {"t::a": "passed", "t::b": "call:failed"}, {"t::a": "passed", "t::b": "passed"}
    )
    assert lines[-1] == "1 passed, 2 failed"
    assert "outcomes changed against the baseline: 1 of 2 tests" in lines
    assert "  t::b: baseline passed, shadow call:failed" in lines
    assert "      1  UNSHARD: 2 axes" in lines
    assert not clean


@pytest.mark.skipif(shutil.which("clang") is None, reason="tinygrad's CPU device needs clang")
def test_tinygrad_value_reads_realized_views_of_shards_and_replicas() -> None:
    from tinygrad import Tensor

    devices = ("CPU:1", "CPU:2")
    x = Tensor(np.arange(4, dtype=np.float32)).contiguous().realize().shard(devices, 0)
    view = (x + x).reshape(2, 2).realize()  # RESHAPE(UNSHARD(RESHAPE(BUFFER)))
    np.testing.assert_equal(tinygrad_value(view.uop), [[0, 2], [4, 6]])
    replica = (Tensor(np.arange(3, dtype=np.int32)).shard(devices) * 2).contiguous().realize()
    np.testing.assert_equal(tinygrad_value(replica.uop), [[0, 2, 4], [0, 2, 4]])  # per device


def test_graph_facts_say_what_has_nothing_to_compare() -> None:
    from tinygrad import Tensor

    devices = ("CPU:1", "CPU:2")
    x = Tensor(np.ones(8, np.float32)).shard(devices, 0)
    assert graph_facts(x + 1) == (True, None)
    assert graph_facts(Tensor(np.ones(8, np.float32)) + 1) == (False, None)
    empty = Tensor.empty(8).shard(devices, 0)
    assert graph_facts(empty + 1) == (
        True,
        "reads a buffer with no data yet (Tensor.empty: undefined contents)",
    )
    assert graph_facts(Tensor(np.ones(8, np.float32)).shard(("NULL:1", "NULL:2"), 0))[1] == (
        "NULL device has no data"
    )


def test_a_bitcast_of_floats_is_compared_as_those_floats() -> None:
    from tinygrad import Tensor

    x = Tensor(np.linspace(-1, 1, 8, dtype=np.float32)).shard(("CPU:1", "CPU:2"), 0).exp()
    bits = x.bitcast(dtypes.int32)
    assert compared_dtype(bits.uop) == dtypes.float32
    assert compared_dtype(bits.contiguous().clone("CPU").uop) == dtypes.float32  # .numpy()'s
    assert compared_dtype((bits + 1).uop) == dtypes.int32
    assert compared_dtype(x.uop) == dtypes.float32


def test_a_float_mismatch_that_a_one_ulp_nudge_reproduces_is_not_compared() -> None:
    from tinygrad import Tensor

    t = Tensor(np.ones(4, np.float32))

    def pending() -> _Pending:
        return _Pending([t], [GraphRecord("t", 0, "error", "g")], None, [np.ones(4, np.float32)], 0)

    np.testing.assert_array_equal(nudged([np.ones(2, np.float32)])[0], 1 + 2**-23)
    ours, theirs = (np.full(4, 0.5, np.float32),), [np.full(4, 0.7, np.float32)]
    stable = pending()  # our result does not move: a real mismatch
    ShadowPlugin._compare(stable, ours, theirs, {"nudged": lambda: ours, "interp": lambda: ours})
    assert stable.records[0].kind == "mismatch"

    def moved() -> tuple[np.ndarray, ...]:
        return (np.full(4, 0.6, np.float32),)

    chaotic = pending()  # our result moves by 20% in the interpreter: rounding decides it
    ShadowPlugin._compare(chaotic, ours, theirs, {"nudged": lambda: ours, "interp": moved})
    assert chaotic.records[0].kind == "not-compared"
    assert chaotic.records[0].reason.startswith("ill-conditioned")
    same = pending()
    ShadowPlugin._compare(same, ours, [ours[0].copy()], {"interp": moved})
    assert same.records[0].kind == "matched"


def test_a_shrink_view_reads_start_and_length() -> None:
    from tinygrad import Tensor

    u = Tensor(np.arange(6, dtype=np.int32)).shrink(((2, 4),)).uop  # tinygrad's arg: (2, 2)
    np.testing.assert_array_equal(_movement(u, np.arange(6)), [2, 3])

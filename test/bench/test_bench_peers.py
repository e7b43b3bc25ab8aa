"""The benchmark's peers (bench/peers.py): a peer that cannot be imported or initialized is
skipped quietly and the benchmark runs on; a peer's wrong answer is recorded without a time;
and, where tinygrad or JAX is installed, their versions of small workloads equal numpy's.
Nothing here asserts a time."""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from bench import peers, run
from bench.peers import Jax, PeerUnavailable, Step, Tinygrad, configure_xla_flags, padded
from bench.warm_up import warm_up_ours
from bench.workloads import WORKLOADS, Workload

# Under pytest-xdist (`-n auto --dist loadgroup`) each peer starts once, on one worker.
pytestmark = pytest.mark.xdist_group("bench-peers")

QUICK = {w.id: w for w in WORKLOADS(quick=True)}


def hide(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    """Make `import name` fail with ImportError, as if the package were not installed."""
    for name in names:
        monkeypatch.setitem(sys.modules, name, None)


def test_missing_peers_are_skipped_with_one_line_each(monkeypatch: pytest.MonkeyPatch) -> None:
    hide(monkeypatch, "tinygrad", "jax")
    lines: list[str] = []
    assert peers.load(peers.PEERS, log=lines.append) == []
    assert lines == ["tinygrad: not installed, skipped", "jax: not installed, skipped"]


def test_a_peer_failing_to_initialize_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    """tinygrad imports but its CPU device cannot compile (no clang): skipped, not a crash."""

    class NoDevice:
        def __init__(self, *args: object, **kwargs: object) -> None:
            raise RuntimeError("no usable devices")

    fake = types.ModuleType("tinygrad")
    fake.Device, fake.Tensor, fake.TinyJit = object(), NoDevice, object()  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tinygrad", fake)
    lines: list[str] = []
    assert peers.load(["tinygrad"], log=lines.append) == []
    assert lines == ["tinygrad: failed to initialize (RuntimeError: no usable devices), skipped"]
    with pytest.raises(PeerUnavailable):
        Tinygrad()


def test_the_benchmark_runs_on_without_peers(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    hide(monkeypatch, "tinygrad", "jax")
    report = run.run({"W7"}, quick=True, repeats=1)
    out = capsys.readouterr().out
    assert "tinygrad: not installed, skipped" in out
    assert "jax: not installed, skipped" in out
    assert {r.impl for r in report.results} == {"numpy", run.OURS}
    assert all(r.correct for r in report.results)


class WrongPeer:
    """A peer whose every result is off by one."""

    name, variant, version = "jax", "jit", "0"

    def unsupported(self, w: Workload) -> str | None:
        return None

    def prepare(self, w: Workload, inputs: list[np.ndarray]) -> Step:
        return Step(lambda: w.numpy(*inputs) + 1, np.asarray)


def test_the_warm_up_runs_our_compiler_in_its_own_cache_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Our compiler is imported and initialized before any timed first call, as a peer's load
    does, in a cache folder of its own: the workloads' cold calls stay cold."""
    monkeypatch.setenv("XDSL_MULTI_CACHE_DIR", str(tmp_path))
    warm_up_ours()
    assert os.environ["XDSL_MULTI_CACHE_DIR"] == str(tmp_path)
    assert not any(tmp_path.iterdir())


def test_a_wrong_answer_is_not_a_time() -> None:
    w = QUICK["W7"]
    inputs = w.inputs()
    r = run.peer(WrongPeer(), w, inputs, w.reference(*inputs), repeats=1)
    assert not r.correct
    assert np.isnan(r.min_s) and np.isnan(r.median_s)
    assert "differs from numpy" in r.notes
    assert run.json_row(r)["min_s"] is None


def test_uneven_shards_are_padded_with_zero_rows() -> None:
    w = QUICK["W7"]
    (x,) = w.inputs()
    (p,), changed = padded(w, [x])
    assert changed and p.shape == (1002, 999)
    assert np.array_equal(p[:1000], x) and not p[1000:].any()
    even = QUICK["W1"]
    arrays, changed = padded(even, even.inputs())
    assert not changed and arrays[0].shape == even.shapes[0]


def test_xla_flags_keep_the_users_flags_and_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XLA_FLAGS", "--xla_cpu_use_thunk_runtime=true")
    configure_xla_flags(8)
    assert os.environ["XLA_FLAGS"] == (
        "--xla_cpu_use_thunk_runtime=true --xla_force_host_platform_device_count=8"
    )
    monkeypatch.setenv("XLA_FLAGS", "--xla_force_host_platform_device_count=4")
    configure_xla_flags(8)
    assert os.environ["XLA_FLAGS"] == "--xla_force_host_platform_device_count=4"
    monkeypatch.delenv("XLA_FLAGS")
    configure_xla_flags(8)
    assert os.environ["XLA_FLAGS"] == "--xla_force_host_platform_device_count=8"


# W3: a reduce to a replicated scalar; W5: replicated, axis-1 and axis-0 inputs, replicated
# output; W7: uneven rows, padded by hand.
SMALL = ["W3", "W5", "W7"]


@pytest.fixture(scope="module")
def tinygrad_peer() -> Tinygrad:
    pytest.importorskip("tinygrad")
    try:
        return Tinygrad()
    except PeerUnavailable as e:
        pytest.skip(f"tinygrad: {e}")


@pytest.fixture(scope="module")
def jax_peer() -> Jax:
    configure_xla_flags()  # before jax is imported, even by importorskip
    pytest.importorskip("jax")
    try:
        return Jax()
    except PeerUnavailable as e:
        pytest.skip(f"jax: {e}")


def check_peer(peer: peers.Peer, wid: str) -> None:
    """The peer's values equal numpy's (directly, then through the benchmark's protocol)."""
    w = QUICK[wid]
    inputs = w.inputs()
    want = np.asarray(w.numpy(*inputs))
    if why := peer.unsupported(w):
        pytest.skip(why)
    arrays, pad = padded(w, inputs)
    step = peer.prepare(w, arrays)
    got = step.fetch(step.call())
    if pad:
        got = got[: want.shape[0]]
    np.testing.assert_allclose(got, want, rtol=w.rtol, atol=w.atol)
    r = run.peer(peer, w, inputs, w.reference(*inputs), repeats=1)
    assert r.correct, r.notes
    assert r.impl == peer.name and ("padded by hand" in r.variant) == pad


@pytest.mark.parametrize("wid", SMALL)
def test_tinygrad_equals_numpy(tinygrad_peer: Tinygrad, wid: str) -> None:
    check_peer(tinygrad_peer, wid)


@pytest.mark.parametrize("wid", SMALL)
def test_jax_equals_numpy(jax_peer: Jax, wid: str) -> None:
    check_peer(jax_peer, wid)


def test_jax_on_a_2x2_mesh_equals_numpy(jax_peer: Jax) -> None:
    """W8: A's rows over mesh axis x, B's columns over y, the product replicated (JAX's
    all-gather), on a 2x2 Mesh of host devices; checked against our first output."""
    w = QUICK["W8"]
    assert w.mesh is not None and w.n == 4
    check_peer(jax_peer, "W8")

"""bench/report.py's targets table: issue 14's cold-first-call rows judge our variant of the
best steady state against JAX's first call, with the workload's bound (4x for W4/W5, 2x for
the others the issue names)."""

from __future__ import annotations

import pytest

from bench.report import first_call_limit, targets
from bench.run import OURS, Result
from bench.workloads import WORKLOADS


def result(workload: str, impl: str, variant: str, first: float, best: float) -> Result:
    return Result(workload, 2, impl, variant, first, best, best, None, None, True)


def row(table: str, start: str) -> str:
    return next(line for line in table.splitlines() if line.startswith(start))


def test_first_call_limits_follow_issue_14() -> None:
    assert [first_call_limit(w) for w in ("W1", "W3", "W6/N=8", "W7", "C1")] == [2] * 5
    assert first_call_limit("W4") == first_call_limit("W5") == 4
    assert first_call_limit("W8") is None


def test_first_call_row_judges_the_best_steady_variant() -> None:
    rows = [
        result("W7", OURS, "default", 0.060, 0.0001),  # best steady state: judged
        result("W7", OURS, "spmd", 0.040, 0.0002),  # faster first call: shown beside
        result("W7", "jax", "jit", 0.025, 0.0005),
        result("W4", OURS, "default", 0.099, 0.005),
        result("W4", "jax", "jit", 0.025, 0.006),
    ]
    table = targets(rows, markdown=False)
    w7 = row(table, "W7: cold first call within 2x")
    assert "ours 60.0 ms vs JAX 25.0 ms (2.40x)" in w7
    assert "fastest first call ours (spmd) 40.0 ms" in w7
    assert w7.rstrip().endswith("no")
    w4 = row(table, "W4: cold first call within 4x")
    assert "(3.96x)" in w4 and w4.rstrip().endswith("yes")
    assert "W8" not in table


def test_no_first_call_row_without_jax() -> None:
    table = targets([result("W3", OURS, "default", 0.05, 0.001),
                     result("W3", "tinygrad", "TinyJit", 0.02, 0.002)], markdown=False)
    assert "cold first call" not in table


def test_our_first_call_leaves_out_placement_and_gathering(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As a peer's first call (inputs placed before it, the result fetched after it), ours
    times the compile and the first run only: placing and gathering, made 100 "seconds" long
    on a fake clock here, count in neither the cold nor the warm first call."""
    from bench import run
    from xdsl_multi.runtime.executor import ProgramInfo

    now = [0.0]

    def clock() -> float:  # a millisecond per reading, so no timed span is empty
        now[0] += 1e-3
        return now[0]

    monkeypatch.setattr(run.time, "perf_counter", clock)
    place, gather = ProgramInfo.place_device, ProgramInfo.gather

    def slow_place(self: ProgramInfo, *args: object) -> object:
        now[0] += 100.0
        return place(self, *args)  # type: ignore[arg-type]

    def slow_gather(self: ProgramInfo, *args: object) -> object:
        now[0] += 100.0
        return gather(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(ProgramInfo, "place_device", slow_place)
    monkeypatch.setattr(ProgramInfo, "gather", slow_gather)
    w = next(w for w in WORKLOADS(quick=True) if w.id == "W7")
    inputs = w.inputs()
    r = run.ours(w, w.program(run.PROGRAMS), inputs, w.reference(*inputs), 1, "default", {})
    assert r.correct
    assert r.first_call_s is not None and r.first_call_s < 100
    assert r.first_call_warm_s is not None and r.first_call_warm_s < 100


def test_the_compile_profile_pauses_the_collector_as_compile_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`--profile-compile` times its stages with Python's collector paused, as
    `xdsl_multi.compile` runs them (a collection would land on whichever stage is running),
    and leaves it as it found it."""
    import gc

    from bench.profile import profile_one
    from xdsl_multi import diagnostics

    seen: list[bool] = []
    parse = diagnostics.parse_module

    def parse_and_look(*args: object, **kwargs: object) -> object:
        seen.append(gc.isenabled())
        return parse(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(diagnostics, "parse_module", parse_and_look)
    w = next(w for w in WORKLOADS(quick=True) if w.id == "W7")
    assert gc.isenabled()
    times = profile_one(w, spmd=True)
    assert seen == [False]
    assert gc.isenabled()
    assert {"parse", "verify", "form-kernels", "LLVM opt", "first run"} <= set(times)
    assert all(t >= 0 for t in times.values())

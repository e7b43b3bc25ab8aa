"""Benchmarks of BENCH.md: our compiled runtime against numpy (and tinygrad, JAX when installed),
side by side in one process.

    python -m bench                  # every workload at BENCH.md's sizes
    python -m bench --quick          # reduced sizes, under a minute
    python -m bench --json out.json  # also write the results
    python -m bench --only W1,W3     # a subset
    python -m bench --peers jax      # peers: all (default), none, tinygrad, jax
    python -m bench --markdown t.md  # also write the summary table and BENCH.md's targets
    python -m bench --modes spmd     # our kernels: specialized, spmd or both (default)
    python -m bench --profile-compile  # the cold first call by stage (bench/profile.py)

Each workload is a program of bench/programs/ (sizes substituted for --quick). For each: the
first call (`xdsl_multi.compile`: parse + passes + codegen, then the first run on the inputs,
their placement on the devices and the results' gathering left out as a peer's are) with the
caches cold (an empty folder) and warm (the pipeline cache and the JIT's machine code from the
cold call; "compile warm" is the warm compile alone, no first run), then
steady state on inputs already placed on the devices: one warm-up call and >= 10 timed calls,
min and median. Every result is checked against numpy before it is timed (a wrong answer is not
a time). Ratios are ours / numpy and ours / best peer. GB/s counts compulsory bytes (inputs +
one output), GFLOP/s is reported for the matmul workloads; the machine's limits (a large numpy
copy, a single-thread sgemm) are measured in the same run.

Ours runs in both modes (`--modes`): kernels specialized per device, and SPMD mode (built
once, the device number a kernel argument: variant "spmd"), so the table says which is faster
where, at the first call and in steady state.

Peers (bench/peers.py): tinygrad (`Tensor.shard` + TinyJit) and JAX (NamedSharding + jit) run
the same logical computation on N CPU devices, when installed (`pip install -e '.[peers]'`);
a peer that is missing or fails to initialize is skipped with one line. They follow the same
protocol: inputs placed first, the first call (trace + compile + run) timed, its result checked
against numpy, one warm-up, >= 10 timed calls, and the steady-state result checked again.
`--quick` runs them at the reduced sizes too, and only where N <= 3. The exit status is 1 when
one of our results is wrong; a peer's wrong result is reported, not failed on.

On machines where OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE are set (for old OpenBLAS builds), numpy's
matmul is slowed by them: unset both for the benchmark command only,
`env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python -m bench`.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from bench import peers as peer_impls
from bench.peers import Peer, padded
from bench.report import summary, targets
from bench.warm_up import warm_up_ours
from bench.workloads import WORKLOADS, Workload

PROGRAMS = Path(__file__).resolve().parent / "programs"
OURS = "xdsl-multi"


@dataclass
class Result:
    workload: str
    N: int
    impl: str
    variant: str
    first_call_s: float | None
    min_s: float
    median_s: float
    gbps: float | None
    gflops: float | None
    correct: bool
    first_call_warm_s: float | None = None
    compile_warm_s: float | None = None
    """`xdsl_multi.compile` of the same source again, the caches warm (no first run)."""
    notes: str = ""


@dataclass
class Report:
    machine: dict[str, object] = field(default_factory=dict)
    results: list[Result] = field(default_factory=list)


def timed(fn: Callable[[], object], repeats: int) -> tuple[float, float]:
    """Min and median seconds of `repeats` calls of `fn`, after one warm-up call."""
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), statistics.median(times)


def machine_limits(quick: bool) -> dict[str, object]:
    """Copy bandwidth and single-thread sgemm throughput, measured now."""
    n = (16 if quick else 64) * 2**20 // 4
    src = np.ones(n, np.float32)
    dst = np.empty_like(src)
    best, _ = timed(lambda: np.copyto(dst, src), 5)
    size = 512 if quick else 1024
    a = np.random.default_rng(0).standard_normal((size, size), dtype=np.float32)
    try:
        from threadpoolctl import threadpool_limits  # type: ignore[import-not-found]

        with threadpool_limits(1):
            mm, _ = timed(lambda: a @ a, 3)
    except ImportError:
        mm, _ = timed(lambda: a @ a, 3)
    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "cpus": os.cpu_count(),
        "copy_gbps": 2 * src.nbytes / best / 1e9,
        "sgemm_gflops": 2 * size**3 / mm / 1e9,
    }


def ours(w: Workload, text: str, inputs: Sequence[np.ndarray], want: Sequence[np.ndarray],
         repeats: int, variant: str, options: dict[str, object]) -> Result:
    import xdsl_multi as xm
    from xdsl_multi.pipeline import MultiToLLVM
    from xdsl_multi.runtime.program import Program

    def first_call(cache_dir: str) -> tuple[float, float, Program, list[np.ndarray]]:
        """As `xdsl_multi.compile` does it (parse, verify, the passes, the JIT; a warm cache
        skips all but the JIT's loading of machine code), then the first run. Returns the
        whole time and the compile's. Timed as `peer` times a peer's first call: the inputs'
        placement on the devices and the results' gathering to the host are left out (a peer
        places its inputs before its first call, `Peer.prepare`, and fetches after it); here
        they can only happen after the compile, so they run between and after the timed
        parts."""
        os.environ["XDSL_MULTI_CACHE_DIR"] = cache_dir
        t0 = time.perf_counter()
        lowering = MultiToLLVM(**options)  # type: ignore[arg-type]
        compiled = xm.compile(text, spmd=lowering.spmd, options=lowering.options())
        compile_s = time.perf_counter() - t0
        program = compiled.runtime
        assert isinstance(program, Program)
        placed = program.place(inputs)
        t1 = time.perf_counter()
        local = program.run_placed(placed)
        run_s = time.perf_counter() - t1
        return compile_s + run_s, compile_s, program, program.gather(local)

    with tempfile.TemporaryDirectory() as cache:
        cold, _, program, out = first_call(cache)
        program.close()
        warm, compile_warm, program, out = first_call(cache)
    correct = all(
        np.allclose(g, x, rtol=w.rtol, atol=w.atol) for g, x in zip(out, want, strict=True)
    )
    if not correct:  # a wrong answer is not a time
        program.close()
        return Result(w.id, w.n, OURS, variant, cold, float("nan"), float("nan"), None,
                      None, False, first_call_warm_s=warm, compile_warm_s=compile_warm,
                      notes="result differs from numpy")
    placed = program.place(inputs)
    best, median = timed(lambda: program.run_placed(placed), repeats)
    program.close()
    return Result(
        w.id, w.n, OURS, variant, cold, best, median,
        w.bytes / best / 1e9, (w.flops / best / 1e9) if w.flops else None, correct,
        first_call_warm_s=warm, compile_warm_s=compile_warm,
    )


def mismatch(got: np.ndarray, want: np.ndarray, w: Workload, pad_rows: bool) -> str | None:
    """Why a peer's logical result `got` is not numpy's `want`, or None. With `pad_rows`, the
    rows of `got` beyond `want`'s along the output's shard axis are the padding and dropped."""
    if pad_rows and w.out_axis is not None:
        got = got[(slice(None),) * w.out_axis + (slice(0, want.shape[w.out_axis]),)]
    if got.shape != want.shape:
        return f"result shape {got.shape}, numpy's {want.shape}"
    if not np.allclose(got, want, rtol=w.rtol, atol=w.atol):
        return f"result differs from numpy (max abs error {np.nanmax(np.abs(got - want)):.3g})"
    return None


def peer(p: Peer, w: Workload, inputs: Sequence[np.ndarray], want: Sequence[np.ndarray],
         repeats: int) -> Result:
    """A peer on workload `w`: inputs placed, the first call (compile + run) timed and checked,
    then the steady state (one warm-up, `repeats` timed calls) and its result checked too."""
    arrays, pad = padded(w, inputs)
    variant = p.variant + (", padded by hand" if pad else "")
    # replicated: one device's copy; on a mesh: our first output, the logical value
    expect = want[0][0] if w.out_axis is None and w.mesh is None else want[0]

    def wrong(first: float | None, why: str) -> Result:
        return Result(w.id, w.n, p.name, variant, first, float("nan"), float("nan"), None, None,
                      False, notes=why)

    step = p.prepare(w, arrays)
    t0 = time.perf_counter()
    out = step.call()
    first = time.perf_counter() - t0
    if why := mismatch(step.fetch(out), expect, w, pad):
        return wrong(first, why)
    best, median = timed(step.call, repeats)
    if why := mismatch(step.fetch(step.call()), expect, w, pad):
        return wrong(first, "steady state: " + why)
    return Result(
        w.id, w.n, p.name, variant, first, best, median,
        w.bytes / best / 1e9, (w.flops / best / 1e9) if w.flops else None, True,
        notes="result's padding rows dropped outside the timed call" if pad else "",
    )


def numpy_baseline(w: Workload, inputs: Sequence[np.ndarray], repeats: int) -> Result:
    best, median = timed(lambda: w.numpy(*inputs), repeats)
    return Result(
        w.id, w.n, "numpy", "1 device", None, best, median,
        w.bytes / best / 1e9, (w.flops / best / 1e9) if w.flops else None, True,
    )


MODES = ("specialized", "spmd")
"""How our kernels are built: per device (specialize-devices), or once for every device with
the device number as an argument (SPMD mode, form-kernels{spmd=true}); variant "... spmd"."""


QUICK_PEER_DEVICES = 3
"""--quick runs the peers only on workloads of at most this many devices: tinygrad compiles
for each device it opens, so W6 at N = 4 and 8 would cost it seconds of a one-minute run."""


def run(only: set[str] | None, quick: bool, repeats: int,
        peer_names: Sequence[str] = peer_impls.PEERS, modes: Sequence[str] = MODES) -> Report:
    report = Report(machine=machine_limits(quick))
    active = peer_impls.load(peer_names)
    warm_up_ours()
    for p in active:
        report.machine[p.name] = p.version
    if active and quick:
        print(f"peers run at --quick's reduced sizes, on workloads of at most "
              f"{QUICK_PEER_DEVICES} devices", flush=True)
    for w in WORKLOADS(quick):
        if only and w.id.split("/")[0] not in only:
            continue
        text = w.program(PROGRAMS)
        inputs = w.inputs()
        want = w.reference(*inputs)
        report.results.append(numpy_baseline(w, inputs, repeats))
        for (variant, options), mode in [(v, m) for v in w.variants.items() for m in modes]:
            if mode == "spmd":
                variant, options = f"{variant} spmd".replace("default ", ""), {
                    **options, "spmd": True
                }
            try:
                r = ours(w, text, inputs, want, repeats, variant, options)
            except Exception as e:  # noqa: BLE001 - a failing workload is reported, not fatal
                r = Result(w.id, w.n, OURS, variant, None, float("nan"),
                           float("nan"), None, None, False, notes=f"{type(e).__name__}: {e}")
            report.results.append(r)
        for p in active if not quick or w.n <= QUICK_PEER_DEVICES else ():
            if why := p.unsupported(w):
                print(f"{p.name}: {w.id} skipped ({why})", flush=True)
                continue
            try:
                r = peer(p, w, inputs, want, repeats)
            except Exception as e:  # noqa: BLE001 - a failing peer is reported, not fatal
                r = Result(w.id, w.n, p.name, p.variant, None, float("nan"), float("nan"),
                           None, None, False, notes=f"{type(e).__name__}: {e}")
            report.results.append(r)
            gc.collect()  # drop the peer's device buffers before the next workload
        print_rows(report, w.id)
    return report


def best_peer(report: Report, workload: str) -> Result | None:
    """The fastest correct peer row of `workload`, if any."""
    rows = [r for r in report.results if r.workload == workload and r.impl in peer_impls.PEERS
            and r.correct]
    return min(rows, key=lambda r: r.min_s, default=None)


def print_rows(report: Report, workload: str) -> None:
    """One line per result of `workload`: times, ratios to numpy (and for ours, to the best
    peer), GB/s, GFLOP/s and first calls."""
    rows = [r for r in report.results if r.workload == workload]
    base = next((r.min_s for r in rows if r.impl == "numpy"), None)
    top = best_peer(report, workload)
    for r in rows:
        ratio = f"{r.min_s / base:6.2f}x vs numpy" if base and r.correct else "   -   "
        if r.impl == OURS and top and r.correct:
            ratio += f" {r.min_s / top.min_s:6.2f}x vs {top.impl}"
        extra = f" {r.gbps:6.1f} GB/s" if r.gbps else ""
        extra += f" {r.gflops:6.1f} GFLOP/s" if r.gflops else ""
        first = f" first {r.first_call_s:.2f}s" if r.first_call_s else ""
        first += f"/{r.first_call_warm_s:.2f}s" if r.first_call_warm_s else ""
        first += f" compile warm {r.compile_warm_s * 1e3:.0f} ms" if r.compile_warm_s else ""
        ok = "" if r.correct else "  WRONG " + r.notes
        print(
            f"{r.workload:10} N={r.N} {r.impl:11} {r.variant:22} min {r.min_s * 1e3:9.3f} ms"
            f" median {r.median_s * 1e3:9.3f} ms  {ratio}{extra}{first}{ok}",
            flush=True,
        )


def json_row(r: Result) -> dict[str, object]:
    """`r` as a JSON object; no time (NaN: wrong or failed) is null."""
    return {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in asdict(r).items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="reduced sizes, under a minute")
    parser.add_argument("--json", metavar="FILE", help="write the results as JSON")
    parser.add_argument("--only", help="comma-separated workload ids (W1,...,C1)")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--peers", choices=("all", "none", *peer_impls.PEERS), default="all",
                        help="peers run side by side when installed (default: all)")
    parser.add_argument("--modes", default=",".join(MODES),
                        help="our kernels: specialized per device, spmd (built once), or both "
                        "(default: specialized,spmd)")
    parser.add_argument("--markdown", metavar="FILE",
                        help="write the summary table and BENCH.md's targets as markdown")
    parser.add_argument("--profile-compile", action="store_true",
                        help="the cold first call of each workload by stage (bench/profile.py), "
                        "no steady state")
    args = parser.parse_args(argv)
    only = set(args.only.split(",")) if args.only else None
    names = {"all": peer_impls.PEERS, "none": ()}.get(args.peers, (args.peers,))
    modes = [m for m in args.modes.split(",") if m]
    if not modes or any(m not in MODES for m in modes):
        parser.error(f"--modes takes {', '.join(MODES)} (comma-separated)")
    if args.profile_compile:
        from bench.profile import profile_compile

        print(profile_compile(only, args.quick, spmd=modes == ["spmd"]))
        return 0
    report = run(only, args.quick, max(args.repeats, 1), names, modes)
    machine = "machine: " + ", ".join(f"{k}={v:.1f}" if isinstance(v, float) else f"{k}={v}"
                                      for k, v in report.machine.items())
    print(machine)
    print()
    print(summary(report.results, markdown=False))
    print()
    print(targets(report.results, markdown=False))
    if args.json:
        Path(args.json).write_text(
            json.dumps({"machine": report.machine, "results": [json_row(r) for r in report.results]},
                       indent=1)
        )
    if args.markdown:
        Path(args.markdown).write_text(
            f"{machine}{', --quick sizes' if args.quick else ''}\n\n"
            + summary(report.results, markdown=True) + "\n\n"
            + targets(report.results, markdown=True) + "\n"
        )
    ours_ok = all(r.correct for r in report.results if r.impl in (OURS, "numpy"))
    return 0 if ours_ok else 1


if __name__ == "__main__":
    sys.exit(main())

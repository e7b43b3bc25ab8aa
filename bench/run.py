"""Benchmarks of BENCH.md: our compiled runtime against numpy (and tinygrad, JAX when installed),
side by side in one process.

    python -m bench                  # every workload at BENCH.md's sizes
    python -m bench --quick          # reduced sizes, under a minute
    python -m bench --json out.json  # also write the results
    python -m bench --only W1,W3     # a subset

Each workload is a program of bench/programs/ (sizes substituted for --quick). For each: the
first call (parse + passes + codegen + first run) with the kernel cache cold and warm, then
steady state on inputs already placed on the devices: one warm-up call and >= 10 timed calls,
min and median. Every result is checked against numpy before it is timed (a wrong answer is not
a time). Ratios are ours / numpy (and ours / best peer). GB/s counts compulsory bytes (inputs +
one output), GFLOP/s is reported for the matmul workloads; the machine's limits (a large numpy
copy, a single-thread sgemm) are measured in the same run.

On machines where OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE are set (for old OpenBLAS builds), numpy's
matmul is slowed by them: unset both for the benchmark command only,
`env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python -m bench`.
"""

from __future__ import annotations

import argparse
import json
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

from bench.workloads import WORKLOADS, Workload

PROGRAMS = Path(__file__).resolve().parent / "programs"


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
    notes: str = ""


@dataclass
class Report:
    machine: dict[str, object] = field(default_factory=dict)
    results: list[Result] = field(default_factory=list)


def timed(fn: Callable[[], object], repeats: int) -> tuple[float, float]:
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
    from xdsl.parser import Parser

    from xdsl_multi.dialects import make_context
    from xdsl_multi.lowering.multi_to_llvm import MultiToLLVM
    from xdsl_multi.runtime.executor import Program
    from xdsl_multi.runtime.kernels import JitKernels

    def first_call(cache_dir: str) -> tuple[float, Program, list[np.ndarray]]:
        os.environ["XDSL_MULTI_CACHE_DIR"] = cache_dir
        t0 = time.perf_counter()
        ctx = make_context()
        module = Parser(ctx, text).parse_module()
        MultiToLLVM(**options).apply(ctx, module)  # type: ignore[arg-type]
        program = Program(module, JitKernels(module))
        out = program(inputs)
        return time.perf_counter() - t0, program, out

    with tempfile.TemporaryDirectory() as cache:
        cold, program, out = first_call(cache)
        program.close()
        warm, program, out = first_call(cache)
    correct = all(
        np.allclose(g, x, rtol=w.rtol, atol=w.atol) for g, x in zip(out, want, strict=True)
    )
    placed = program.place(inputs)
    best, median = timed(lambda: program.run_placed(placed), repeats)
    program.close()
    return Result(
        w.id, w.n, "xdsl-multi", variant, cold, best, median,
        w.bytes / best / 1e9, (w.flops / best / 1e9) if w.flops else None, correct,
        first_call_warm_s=warm,
    )


def numpy_baseline(w: Workload, inputs: Sequence[np.ndarray], repeats: int) -> Result:
    best, median = timed(lambda: w.numpy(*inputs), repeats)
    return Result(
        w.id, w.n, "numpy", "1 device", None, best, median,
        w.bytes / best / 1e9, (w.flops / best / 1e9) if w.flops else None, True,
    )


def run(only: set[str] | None, quick: bool, repeats: int) -> Report:
    report = Report(machine=machine_limits(quick))
    for w in WORKLOADS(quick):
        if only and w.id.split("/")[0] not in only:
            continue
        text = w.program(PROGRAMS)
        inputs = w.inputs()
        want = w.reference(*inputs)
        report.results.append(numpy_baseline(w, inputs, repeats))
        for variant, options in w.variants.items():
            try:
                r = ours(w, text, inputs, want, repeats, variant, options)
            except Exception as e:  # noqa: BLE001 - a failing workload is reported, not fatal
                r = Result(w.id, w.n, "xdsl-multi", variant, None, float("nan"),
                           float("nan"), None, None, False, notes=f"{type(e).__name__}: {e}")
            report.results.append(r)
        print_rows(report, w.id)
    return report


def print_rows(report: Report, workload: str) -> None:
    rows = [r for r in report.results if r.workload == workload]
    base = next((r.min_s for r in rows if r.impl == "numpy"), None)
    for r in rows:
        ratio = f"{r.min_s / base:6.2f}x" if base and r.min_s == r.min_s else "   -   "
        extra = f" {r.gbps:6.1f} GB/s" if r.gbps else ""
        extra += f" {r.gflops:6.1f} GFLOP/s" if r.gflops else ""
        first = f" first {r.first_call_s:.2f}s/{r.first_call_warm_s:.2f}s" if r.first_call_s else ""
        ok = "" if r.correct else "  WRONG " + r.notes
        print(
            f"{r.workload:10} N={r.N} {r.impl:11} {r.variant:14} min {r.min_s * 1e3:9.3f} ms"
            f" median {r.median_s * 1e3:9.3f} ms  {ratio} vs numpy{extra}{first}{ok}",
            flush=True,
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="reduced sizes, under a minute")
    parser.add_argument("--json", metavar="FILE", help="write the results as JSON")
    parser.add_argument("--only", help="comma-separated workload ids (W1,...,C1)")
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args(argv)
    only = set(args.only.split(",")) if args.only else None
    report = run(only, args.quick, max(args.repeats, 1))
    print("machine: " + ", ".join(f"{k}={v:.1f}" if isinstance(v, float) else f"{k}={v}"
                                  for k, v in report.machine.items()))
    if args.json:
        Path(args.json).write_text(
            json.dumps({"machine": report.machine, "results": [asdict(r) for r in report.results]},
                       indent=1)
        )
    return 0 if all(r.correct for r in report.results) else 1


if __name__ == "__main__":
    sys.exit(main())

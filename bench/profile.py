"""`python -m bench --profile-compile`: the cold first call of each workload, stage by stage.

The stages are the ones `xdsl_multi.compile` goes through on a cold cache (an empty cache
folder), timed one by one, then the first run:

| stage | what |
|---|---|
| parse | the located parser (diagnostics.py), as `compile` parses text |
| verify | every op's verifier and the module-level placement rules |
| each pass | the pipeline's passes (pipeline.py), by name, for the module's level |
| to LLVM IR | the `llvm` dialect to LLVM IR text (xDSL's translator), the runtime form |
| LLVM parse | llvmlite parsing and verifying each kernel's LLVM IR |
| LLVM opt | LLVM's optimization pipeline (O3) on each kernel |
| LLVM codegen | machine code and linking (MCJIT `finalize_object`) |
| runtime | the rest of building the runtime program: schedules, memory plans, threads (device memory is allocated meanwhile, on a thread of its own) |
| store plan | the program entry (pickled plan) of the pipeline cache |
| first run | the first run on the inputs placed on the devices (placement is not timed, as in bench/run.py's first call) |

Each workload runs in its default variant, kernels specialized per device (`--modes spmd` for
SPMD mode). Times are seconds of wall clock on a machine that may be shared: compare rows of
one run, not runs.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.report import render, seconds
from bench.warm_up import warm_up_ours
from bench.workloads import WORKLOADS, Workload

PROGRAMS = Path(__file__).resolve().parent / "programs"

FIXED_BEFORE = ("parse", "verify")
FIXED_AFTER = ("to LLVM IR", "LLVM parse", "LLVM opt", "LLVM codegen", "runtime",
               "store plan", "first run")


def profile_one(w: Workload, spmd: bool) -> dict[str, float]:
    """Seconds per stage of `w`'s cold first call (see the module docstring), with Python's
    cyclic collector paused as `xdsl_multi.compile` pauses it (`collector_paused`), so that
    no stage is charged for a collection the compile does not make."""
    from xdsl_multi.api import collector_paused

    with collector_paused():
        return _profile_one(w, spmd)


def _profile_one(w: Workload, spmd: bool) -> dict[str, float]:
    from xdsl_multi import pipeline
    from xdsl_multi.api import _CachedProgram
    from xdsl_multi.compile_cache import PipelineCache, to_runtime_form
    from xdsl_multi.diagnostics import parse_module, verify_ops
    from xdsl_multi.dialects import make_context
    from xdsl_multi.lowering.jit import KernelCache
    from xdsl_multi.runtime.interpreter.interpreter import argument_names, logical_signature
    from xdsl_multi.runtime.program import Program

    text = w.program(PROGRAMS)
    inputs = w.inputs()
    times: dict[str, float] = {}

    def timed(stage: str, fn: Callable[[], object]) -> object:
        start = time.perf_counter()
        value = fn()
        times[stage] = times.get(stage, 0.0) + time.perf_counter() - start
        return value

    with tempfile.TemporaryDirectory() as folder:
        os.environ["XDSL_MULTI_CACHE_DIR"] = folder
        cache = PipelineCache(Path(folder))
        module = timed("parse", lambda: parse_module(make_context(), text, f"{w.id}.mlir"))
        timed("verify", lambda: verify_ops(module))  # type: ignore[arg-type]
        signature = logical_signature(module)  # type: ignore[arg-type]
        names = tuple(argument_names(module))  # type: ignore[arg-type]
        pipeline.lower_for_runtime(
            module,  # type: ignore[arg-type]
            lambda name, apply: timed(name.split("{")[0], apply),
            spmd=spmd,
        )
        timed("to LLVM IR", lambda: to_runtime_form(module))  # type: ignore[arg-type]
        kernel_cache = KernelCache(folder)
        start = time.perf_counter()
        program = Program(module, kernel_cache=kernel_cache)  # type: ignore[arg-type]
        built = time.perf_counter() - start
        stats = kernel_cache.stats
        times["LLVM parse"], times["LLVM opt"] = stats.parse_s, stats.optimize_s
        times["LLVM codegen"] = stats.codegen_s
        times["runtime"] = built - stats.parse_s - stats.optimize_s - stats.codegen_s
        plan = program.plan()
        timed("store plan", lambda: cache.store_program(
            "profile", _CachedProgram(signature, names, plan)))  # type: ignore[arg-type]
        placed = program.place(inputs)  # (outside the clock, as bench/run.py's first call)
        timed("first run", lambda: program.run_placed(placed))
        program.close()
    return times


def profile_compile(only: set[str] | None, quick: bool, spmd: bool) -> str:
    """The table of `python -m bench --profile-compile`: one row per workload, one column per
    stage, and the total."""
    warm_up_ours()  # the first row must not count the compiler's imports either
    rows: list[tuple[str, dict[str, float]]] = []
    for w in WORKLOADS(quick):
        if only and w.id.split("/")[0] not in only:
            continue
        if w.id.startswith("W6") and w.n != 2 and not only:
            continue  # W6 at N = 2 stands for the three (--only W6 gives all)
        times = profile_one(w, spmd)
        rows.append((w.id, times))
        print(f"{w.id}: {sum(times.values()):.3f} s", flush=True)
    passes = [s for _, t in rows for s in t if s not in FIXED_BEFORE + FIXED_AFTER]
    stages = [*FIXED_BEFORE, *dict.fromkeys(passes), *FIXED_AFTER]
    header = ["workload", *stages, "total"]
    table = [[wid, *(seconds(t.get(s)) for s in stages), seconds(sum(t.values()))]
             for wid, t in rows]
    return render(header, table, markdown=False)


__all__ = ["profile_compile", "profile_one"]

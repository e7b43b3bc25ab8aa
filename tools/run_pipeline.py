"""multi-run's way from the input module to the compiled runtime's level, timed pass by pass.

```python
timings = Timings()
with Progress("multi-run", "prog.mlir") as progress:
    ran = lower_timed(module, timings, progress)   # in place
```

The pipeline itself is xdsl_multi/pipeline.py (SPEC's passes, started where the input already
is); here each pass is timed for `--time`, announced by the progress line, and its failures
become diagnostics: a pass rejecting its input is a user error (exit 1) at the op, any other
exception in a pass an internal error (exit 2).

The pipeline cache (xdsl_multi/compile_cache.py) is consulted first: on a hit no pass runs,
`--time` says `pipeline cache hit` and lists the passes as skipped; on a miss it says
`pipeline cache miss`, the passes run, and the result is stored (`pipeline cache store`).
`XDSL_MULTI_PIPELINE_CACHE=0` turns it off.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Literal, Self, TextIO

from xdsl.dialects.builtin import ModuleOp

from xdsl_multi import pipeline
from xdsl_multi.compile_cache import PipelineCache, lower_cached
from xdsl_multi.diagnostics import CompileError, run_pass

PROGRESS_AFTER = 2.0
"""Seconds of compiling after which multi-run says on stderr what it is doing."""
PROGRESS_ENV = "XDSL_MULTI_PROGRESS_AFTER"


# ---------------------------------------------------------------------------------------------
# Timings and progress
# ---------------------------------------------------------------------------------------------


class Timings:
    """Named durations in the order they were taken (for `--time`)."""

    def __init__(self) -> None:
        self.entries: list[tuple[str, float]] = []
        self.notes: dict[int, str] = {}
        """Entry index -> a remark printed after the time."""

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.entries.append((name, time.perf_counter() - start))

    def add(self, name: str, seconds: float, note: str = "") -> None:
        if note:
            self.notes[len(self.entries)] = note
        self.entries.append((name, seconds))

    def format(self) -> str:
        return "".join(
            f"time: {name} {seconds:.6f} s"
            + (f" ({self.notes[i]})" if i in self.notes else "")
            + "\n"
            for i, (name, seconds) in enumerate(self.entries)
        )


class Progress:
    """Says on `stream` what is being compiled once compiling has taken `after` seconds, then
    each next stage, and the total at the end; says nothing for a quick compile."""

    def __init__(
        self, tool: str, what: str, after: float | None = None, stream: TextIO | None = None
    ) -> None:
        if after is None:
            after = float(os.environ.get(PROGRESS_ENV, PROGRESS_AFTER))
        self.tool, self.what, self.after = tool, what, after
        self.stream = stream or sys.stderr
        self._stage = "starting"
        self._shown = False
        self._done = False
        self._lock = threading.Lock()
        self._start = time.perf_counter()
        self._timer = threading.Timer(after, self._show)
        self._timer.daemon = True

    def __enter__(self) -> Self:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
        with self._lock:
            self._done = True
            if self._shown and exc[0] is None:
                self._write(f"compiled {self.what} in {self._elapsed():.1f} s")

    def stage(self, name: str) -> None:
        with self._lock:
            self._stage = name
            if self._shown:
                self._line()

    def _elapsed(self) -> float:
        return time.perf_counter() - self._start

    def _show(self) -> None:
        with self._lock:
            if not self._done:
                self._shown = True
                self._line()

    def _line(self) -> None:
        self._write(f"compiling {self.what}: {self._stage} ({self._elapsed():.1f} s)")

    def _write(self, text: str) -> None:
        self.stream.write(f"{self.tool}: {text}\n")
        self.stream.flush()


# ---------------------------------------------------------------------------------------------
# The pipeline
# ---------------------------------------------------------------------------------------------


def lower_timed(
    module: ModuleOp,
    timings: Timings,
    progress: Progress | None = None,
    spmd: bool = False,
    *,
    source: str | None = None,
    cache: PipelineCache | None | Literal["env"] = "env",
) -> tuple[str, ...]:
    """xdsl_multi.pipeline.lower_for_runtime, each pass timed and announced, its failures as
    diagnostics: a pass rejecting its input is exit code 1 at the op, any other exception 2.
    Through the pipeline cache `cache` ("env": `PipelineCache.from_env()`; None: none), keyed
    by `source` when given (the text `module` was parsed from), else by the module. Returns
    the names of the passes (skipped ones included on a cache hit)."""

    def each_pass(name: str, apply: Callable[[], None]) -> None:
        if progress is not None:
            progress.stage(name)
        with timings(name):
            run_pass(name, apply)

    def report(event: str, seconds: float) -> None:
        timings.add(f"pipeline cache {event}", seconds)

    if isinstance(cache, str):
        cache = PipelineCache.from_env()
    names = pipeline.passes_needed(module, spmd)
    if cache is not None and names and progress is not None:
        progress.stage("pipeline cache")
    try:
        hit = lower_cached(
            module, cache, spmd=spmd, source=source, each_pass=each_pass, report=report
        )
    except pipeline.PassUnavailable as e:
        raise CompileError(f"the compiled backends need {e}; use --backend interp") from None
    if hit:
        for name in names:
            timings.add(name, 0.0, "skipped: pipeline cache hit")
    return names

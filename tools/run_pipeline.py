"""multi-run's way from the input module to the compiled runtime's level, timed pass by pass.

```python
timings = Timings()
with Progress("multi-run", "prog.mlir") as progress:
    lowered = lower_for_runtime(module, timings, progress)   # in place
```

The pipeline is SPEC's: `multi-to-devidx, devidx-simplify, specialize-devices, form-kernels,
convert-to-llvm`, started where the input already is (an input at the kernel level only needs
convert-to-llvm; one at the llvm level, nothing). The passes come from the registry
(xdsl_multi/passes.py) by name. Without convert-to-llvm the kernel level still runs, its kernels
interpreted by xDSL (slow); every other missing pass is an error.

A pass rejecting its input is a user error (exit 1) at the op; any other exception in a pass
is an internal error (exit 2).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Self, TextIO

from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import PassFailedException

from xdsl_multi.dialects import make_context
from xdsl_multi.passes import get_all_passes
from xdsl_multi.runtime.interpreter import Level, detect_level, is_kernel_level
from xdsl_multi.tools.diagnostics import (
    CompileError,
    internal_error,
    op_from_traceback,
    op_pos,
)

PIPELINE = (
    "multi-to-devidx",
    "devidx-simplify",
    "specialize-devices",
    "form-kernels",
    "convert-to-llvm",
)
OPTIONAL_PASSES = frozenset({"convert-to-llvm"})
"""Passes the runtime can do without (kernels are then interpreted)."""

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

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.entries.append((name, time.perf_counter() - start))

    def add(self, name: str, seconds: float) -> None:
        self.entries.append((name, seconds))

    def format(self) -> str:
        return "".join(f"time: {name} {seconds:.6f} s\n" for name, seconds in self.entries)


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


def is_llvm_level(module: ModuleOp) -> bool:
    return any(isinstance(op, llvm.FuncOp) and op.body.blocks for op in module.walk())


def passes_needed(module: ModuleOp) -> tuple[str, ...]:
    """The pipeline's passes from where `module` is to the llvm level."""
    if is_llvm_level(module):
        return ()
    if is_kernel_level(module):
        return PIPELINE[4:]
    level = detect_level(module)
    if level is Level.DEVICE:
        return PIPELINE[3:]
    if level is Level.SPMD:
        return PIPELINE[1:]
    return PIPELINE


def missing_passes(names: tuple[str, ...]) -> list[str]:
    """The required passes of `names` that are not written yet."""
    available = get_all_passes()
    return [n for n in names if n not in available and n not in OPTIONAL_PASSES]


def lower_for_runtime(
    module: ModuleOp, timings: Timings, progress: Progress | None = None
) -> tuple[str, ...]:
    """Run the passes the module needs, in place; return the names of those that ran."""
    names = passes_needed(module)
    if missing := missing_passes(names):
        raise CompileError(
            f"the compiled backends need the pass '{missing[0]}', which is not available "
            "yet; use --backend interp"
        )
    available = get_all_passes()
    ctx = make_context()
    ran = []
    for name in names:
        if name not in available:
            continue
        if progress is not None:
            progress.stage(name)
        pass_class = available[name]()
        with timings(name):
            try:
                pass_class().apply(ctx, module)
            except PassFailedException as e:
                raise CompileError(
                    f"pass '{name}' failed: {str(e).strip()}", op_pos(op_from_traceback(e))
                ) from e
            except Exception as e:
                raise internal_error(
                    f"internal error in pass '{name}'", e, op_pos(op_from_traceback(e))
                ) from e
        ran.append(name)
    return tuple(ran)

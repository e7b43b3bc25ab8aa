"""Programs through multi-run's pipeline to the compiled runtime, for the tests that compare
the compiled backends with the reference interpreter: every example and random programs."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from xdsl_multi.dialects import make_context
from xdsl_multi.dialects.parsing import parse_mlir
from xdsl_multi.pipeline import lower_for_runtime
from xdsl_multi.runtime.interpreter.interpreter import run_module
from xdsl_multi.tools.result_check import first_mismatch, result_rtols

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.mlir"))
RANDOM_SEEDS = range(12)
"""Random programs (random_programs.random_program) every compiled backend runs."""
THREADS_RANDOM_SEEDS = range(
    int(os.environ.get("XDSL_MULTI_COMPILED_SEED", str(len(RANDOM_SEEDS)))),
    int(os.environ.get("XDSL_MULTI_COMPILED_SEED", str(len(RANDOM_SEEDS))))
    + int(os.environ.get("XDSL_MULTI_COMPILED_PROGRAMS", "24")),
)
"""More random programs, on the threads backend only (test_compiled_corpus.py): the 24 after
RANDOM_SEEDS by default, so CI runs seeds 0..35 on threads, none hand-picked (the generator's
Invalid probes find issue 9's class in about a third of the programs); for a local soak, e.g.
`XDSL_MULTI_COMPILED_PROGRAMS=1000 XDSL_MULTI_COMPILED_SEED=5000 pytest -k random_program`."""


def parse(text: str) -> ModuleOp:
    return parse_mlir(make_context(), text)


MODES = ("specialized", "spmd")
"""How the kernels are built: per device (specialize-devices), or once (form-kernels{spmd})."""


def lowered(text: str, mode: str = "specialized") -> ModuleOp:
    """The module at the llvm level (SPEC's pipeline, as multi-run runs it; `mode` "spmd" as
    `multi-run --spmd`)."""
    module = parse(text)
    lower_for_runtime(module, spmd=mode == "spmd")
    return module


def device_count(text: str) -> int:
    from xdsl_multi.dialects.multi import program_devices

    return max(len(program_devices(parse(text))), 1)


def corpus() -> list[tuple[str, str, int]]:
    """(name, text, input seed) of every example and of the random programs."""
    from random_programs import random_program

    out = [(p.stem, p.read_text(), 0) for p in EXAMPLES]
    out += [(f"random{seed}", random_program(seed).text, seed) for seed in RANDOM_SEEDS]
    return out


def inputs_for(text: str, seed: int) -> list[np.ndarray]:
    from random_programs import program_inputs

    return program_inputs(parse(text), seed)


def compare_with_interp(
    text: str, inputs: Sequence[np.ndarray], got: Sequence[np.ndarray], backend: str
) -> str | None:
    """None if `got` matches the interpreter's outputs on the multi-level program."""
    module = parse(text)
    return first_mismatch(list(got), run_module(module, inputs), backend, result_rtols(parse(text)))

"""Check that the lowering pipeline keeps a multi-level program's meaning: the reference
interpreter's logical outputs of the program and of the module after each stage
(multi-to-devidx, then devidx-simplify, specialize-devices and form-kernels once their modules
exist) agree; and so does SPMD mode, form-kernels{spmd=true} right after devidx-simplify.

Used by test/transforms/test_random_programs.py and test/regressions/. Floats are compared with
rtol=1e-4, atol=1e-5, integers and booleans exactly; a failure names the stage and holds the
program text, the options, the input seed and the module after the failing stage.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable

import numpy as np
from random_programs import program_inputs
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xdsl_multi.dialects import make_context
from xdsl_multi.dialects.parsing import parse_mlir
from xdsl_multi.runtime.interpreter import run_module
from xdsl_multi.transforms.multi_to_devidx import MultiToDevidx

ALLREDUCE = ("naive", "ring", "all2all", "auto")
RTOL, ATOL = 1e-4, 1e-5


def _optional_pass(module: str, cls: str) -> Callable[[], ModulePass] | None:
    """A later pass of the pipeline, once its module exists."""
    if importlib.util.find_spec(module) is None:
        return None
    return getattr(importlib.import_module(module), cls)


LATER_STAGES: list[tuple[str, Callable[[], ModulePass]]] = [
    (name, factory)
    for name, factory in [
        ("devidx-simplify",
         _optional_pass("xdsl_multi.transforms.devidx_simplify", "DevidxSimplify")),
        ("specialize-devices",
         _optional_pass("xdsl_multi.transforms.specialize_devices", "SpecializeDevices")),
        ("form-kernels", _optional_pass("xdsl_multi.transforms.form_kernels", "FormKernels")),
    ]
    if factory is not None
]


_FORM_KERNELS = _optional_pass("xdsl_multi.transforms.form_kernels", "FormKernels")
SPMD_KERNELS: Callable[[], ModulePass] | None = (
    (lambda: _FORM_KERNELS(spmd=True)) if _FORM_KERNELS is not None else None  # type: ignore[call-arg]
)


def parse(text: str) -> ModuleOp:
    module = parse_mlir(make_context(), text)
    module.verify()
    return module


def compare(got: list[np.ndarray], want: list[np.ndarray]) -> str | None:
    """None when equal, else what differs."""
    if len(got) != len(want):
        return f"{len(got)} results, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        g, w = np.asarray(g), np.asarray(w)
        if g.shape != w.shape or g.dtype != w.dtype:
            return f"result {i}: {g.dtype}{list(g.shape)}, expected {w.dtype}{list(w.shape)}"
        if np.issubdtype(w.dtype, np.floating):
            ok = np.isclose(g, w, rtol=RTOL, atol=ATOL, equal_nan=True)
        else:
            ok = g == w
        if not ok.all():
            bad = np.argwhere(~ok)
            idx = tuple(bad[0])
            return (f"result {i}: {len(bad)} of {w.size} elements differ, first at {list(idx)}: "
                    f"got {g[idx]!r}, expected {w[idx]!r}\n  got:      "
                    f"{np.array2string(g.ravel()[:24], precision=5)}\n  expected: "
                    f"{np.array2string(w.ravel()[:24], precision=5)}")
    return None


def check_program(text: str, allreduce: str, ring_threshold: int, seed: int) -> None:
    """The multi-level program and every stage of the pipeline give the same outputs."""
    where = (f"\n--- options: allreduce={allreduce} ring-threshold={ring_threshold}, "
             f"input seed {seed}\n--- program:\n{text}")
    before = parse(text)
    inputs = program_inputs(before, seed)
    want = run_module(before, inputs)
    module = before.clone()
    stages: list[tuple[str, Callable[[], ModulePass]]] = [
        ("multi-to-devidx",
         lambda: MultiToDevidx(allreduce=allreduce, ring_threshold=ring_threshold)),
        *LATER_STAGES,
    ]
    for name, make in stages:
        _check_stage(name, make, module, inputs, want, where)
        if name == "devidx-simplify" and SPMD_KERNELS is not None:
            # SPMD mode: form-kernels{spmd=true} right after devidx-simplify (no specialization)
            spmd = module.clone()
            _check_stage("form-kernels{spmd=true}", SPMD_KERNELS, spmd, inputs, want, where)


def _check_stage(
    name: str,
    make: Callable[[], ModulePass],
    module: ModuleOp,
    inputs: list[np.ndarray],
    want: list[np.ndarray],
    where: str,
) -> None:
    """Apply the stage's pass to `module` in place; its outputs must be `want`."""
    try:
        make().apply(make_context(), module)
        module.verify()
        got = run_module(module, inputs)
    except Exception as e:
        raise AssertionError(
            f"{name} failed: {type(e).__name__}: {e}{where}\n--- module after {name}:\n"
            f"{_head(module)}"
        ) from e
    diff = compare(got, want)
    if diff is not None:
        raise AssertionError(
            f"outputs after {name} differ from the multi-level program: {diff}{where}\n"
            f"--- module after {name}:\n{_head(module)}"
        )


def _head(module: ModuleOp, lines: int = 150) -> str:
    text = str(module).splitlines()
    return "\n".join(text[:lines] + ([f"... ({len(text) - lines} more lines)"]
                                     if len(text) > lines else []))

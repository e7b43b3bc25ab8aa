"""Check that the lowering pipeline keeps a multi-level program's meaning: the reference
interpreter's logical outputs of the program and of the module after each stage
(multi-to-devidx, then devidx-simplify, specialize-devices and form-kernels once their modules
exist) agree; and so does SPMD mode, form-kernels{spmd=true} right after devidx-simplify.

Used by test/transforms/test_random_programs.py and test/regressions/. Floats are compared with
rtol=1e-4, atol=1e-5, integers and booleans exactly; a failure names the stage and holds the
program text, the options, the input seed and the module after the failing stage.
"""

from __future__ import annotations

import numpy as np
from random_programs import program_inputs
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.arg_spec import ArgSpec

from xdsl_multi.dialects import make_context
from xdsl_multi.dialects.parsing import parse_mlir
from xdsl_multi.levels import Level
from xdsl_multi.pipeline import build_pipeline, pipeline_specs
from xdsl_multi.runtime.interpreter.interpreter import run_module

ALLREDUCE = ("naive", "ring", "all2all", "auto")
RTOL, ATOL = 1e-4, 1e-5


def stages(allreduce: str, ring_threshold: int, spmd: bool = False) -> list[ArgSpec]:
    """The pipeline's passes (xdsl_multi/pipeline.py) from the multi level to the kernel level
    (the interpreter runs every level up to there), multi-to-devidx with these options."""
    options = {"multi-to-devidx": f"allreduce={allreduce} ring-threshold={ring_threshold}"}
    return list(pipeline_specs(Level.MULTI, Level.KERNEL, spmd=spmd, options=options))


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
    check_program_on(text, allreduce, ring_threshold, program_inputs(parse(text), seed), where)


def check_program_on(
    text: str,
    allreduce: str,
    ring_threshold: int,
    inputs: list[np.ndarray],
    where: str = "",
    want: list[np.ndarray] | None = None,
) -> None:
    """`check_program` on given inputs; with `want` (e.g. numpy's values), the multi-level
    program must give it too."""
    before = parse(text)
    got = run_module(before, inputs)
    if want is not None and (diff := compare(got, want)) is not None:
        raise AssertionError(f"the multi-level program differs from the expected: {diff}{where}")
    want = got
    module = before.clone()
    spmd_kernels = [
        s for s in stages(allreduce, ring_threshold, spmd=True) if s.name == "form-kernels"
    ]
    for spec in stages(allreduce, ring_threshold):
        _check_stage(spec, module, inputs, want, where)
        if spec.name == "devidx-simplify":
            # SPMD mode: form-kernels{spmd=true} right after devidx-simplify (no specialization)
            spmd = module.clone()
            for kernels in spmd_kernels:
                _check_stage(kernels, spmd, inputs, want, where)


def _check_stage(
    spec: ArgSpec,
    module: ModuleOp,
    inputs: list[np.ndarray],
    want: list[np.ndarray],
    where: str,
) -> None:
    """Apply the stage's pass to `module` in place; its outputs must be `want`."""
    name = str(spec)
    try:
        build_pipeline((spec,)).apply(make_context(), module)
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

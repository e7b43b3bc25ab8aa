"""SPEC's pipeline from any level to what the compiled runtime runs, in one place (multi-run,
the tests and the benchmarks use it).

```python
from xdsl_multi.pipeline import lower_for_runtime
ran = lower_for_runtime(module)        # in place; the names of the passes that ran
program = Program(module)              # runtime/executor.py
```

`multi-to-devidx, devidx-simplify, specialize-devices, form-kernels, convert-to-llvm`, started
where the module already is: a kernel-level module (form-kernels' output) only needs
convert-to-llvm, an llvm-level one nothing. The passes come from the registry (passes.py) by
name, with their default options.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp

RUNTIME_PIPELINE = (
    "multi-to-devidx",
    "devidx-simplify",
    "specialize-devices",
    "form-kernels",
    "convert-to-llvm",
)


class PassUnavailable(Exception):
    """A pass the pipeline needs is not in the registry (its module does not exist)."""


def is_llvm_level(module: ModuleOp) -> bool:
    return any(isinstance(op, llvm.FuncOp) and op.body.blocks for op in module.walk())


SPMD_FORM_KERNELS = "form-kernels{spmd=true}"
"""SPMD mode's form-kernels: the kernels built once with the device number as an argument."""


def passes_needed(module: ModuleOp, spmd: bool = False) -> tuple[str, ...]:
    """The pipeline's passes from where `module` is to the llvm level. `spmd`: SPMD mode,
    no specialize-devices; form-kernels builds the kernels once (a module already
    specialized per device goes on as usual)."""
    from xdsl_multi.runtime.interpreter import Level, detect_level, is_kernel_level

    if is_llvm_level(module):
        return ()
    if is_kernel_level(module):
        return RUNTIME_PIPELINE[4:]
    level = detect_level(module)
    if level is Level.DEVICE:
        return RUNTIME_PIPELINE[3:]
    tail = RUNTIME_PIPELINE[1:]
    if spmd:
        tail = (RUNTIME_PIPELINE[1], SPMD_FORM_KERNELS, RUNTIME_PIPELINE[4])
    if level is Level.SPMD:
        return tail
    return (RUNTIME_PIPELINE[0], *tail)


def _run(name: str, apply: Callable[[], None]) -> None:
    apply()


def lower_for_runtime(
    module: ModuleOp,
    each_pass: Callable[[str, Callable[[], None]], None] = _run,
    spmd: bool = False,
) -> tuple[str, ...]:
    """Run the passes `module` needs, in place, and return their names. `each_pass(name,
    apply)` runs each one (to time it, or to report its errors); by default it just calls
    `apply()`. Raises PassUnavailable before running anything if a pass is missing.
    `spmd`: SPMD mode (kernels compiled once with the device number as an argument)."""
    from xdsl_multi.dialects import make_context
    from xdsl_multi.passes import get_all_passes

    names = passes_needed(module, spmd)
    available = get_all_passes()
    for name in names:
        if name.partition("{")[0] not in available:
            raise PassUnavailable(f"the pass '{name}' is not available")
    ctx = make_context()
    for name in names:
        base = name.partition("{")[0]
        module_pass = available[base]()(spmd=True) if name == SPMD_FORM_KERNELS else (
            available[base]()()
        )
        each_pass(name, lambda p=module_pass: p.apply(ctx, module))
    return names

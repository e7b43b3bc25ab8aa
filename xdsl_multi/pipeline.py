"""SPEC §5's pipeline, defined once: which passes leave each level (levels.py), with their
options. multi-run, `multi-to-llvm`, the compile cache, the benchmarks and the tests all take
their passes from here.

```python
from xdsl_multi.pipeline import lower_for_runtime, passes_needed
passes_needed(module)                  # ('multi-to-devidx', ..., 'convert-to-llvm')
ran = lower_for_runtime(module, options={"multi-to-devidx": "allreduce=ring"})  # in place
program = Program(module)              # runtime/program.py
```

| level | leaves it | to |
|---|---|---|
| multi | `multi-to-devidx` | spmd |
| multi (SPMD mode) | `multi-to-devidx{collectives=ops}` | spmd |
| spmd | `devidx-simplify,specialize-devices` | device |
| spmd (SPMD mode) | `devidx-simplify,form-kernels{spmd=true}` | kernel |
| device | `form-kernels` | kernel |
| kernel | `convert-to-llvm` | llvm |

A module is lowered from the level it is at (`levels.detect_level`): a kernel-level module
only needs convert-to-llvm, an llvm-level one nothing. SPMD mode builds the kernels once with
the device number as an argument (no specialize-devices); a module already specialized per
device goes on as usual. In the default mode, a program whose devices differ only in their
shard windows takes SPMD mode's route from the SPMD level (`lower_for_runtime`): the same
kernels as specialize-devices would give, built once. Options are given by pass name, in the
pipeline syntax (`{"multi-to-devidx": "allreduce=ring ring-threshold=0"}`), and override the
table's. The passes come from the registry (passes.py) by name; `multi-to-llvm` (below) is
the whole pipeline as one pass.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.arg_spec import ArgSpec, parse_pipeline
from xdsl.utils.exceptions import ArgSpecParseError

from xdsl_multi.dialects import make_context
from xdsl_multi.levels import Level, detect_level
from xdsl_multi.passes import get_all_passes
from xdsl_multi.transforms.form_kernels.window_programs import (
    SMALL_ALLREDUCE,
    small_allreduces_only,
    windows_only,
)

PIPELINE: dict[Level, tuple[str, Level]] = {
    Level.MULTI: ("multi-to-devidx", Level.SPMD),
    Level.SPMD: ("devidx-simplify,specialize-devices", Level.DEVICE),
    Level.DEVICE: ("form-kernels", Level.KERNEL),
    Level.KERNEL: ("convert-to-llvm", Level.LLVM),
}
"""Level -> (the passes that leave it, the level they reach)."""

SPMD_MODE: dict[Level, tuple[str, Level]] = {
    **PIPELINE,
    Level.MULTI: ("multi-to-devidx{collectives=ops}", Level.SPMD),
    Level.SPMD: ("devidx-simplify,form-kernels{spmd=true}", Level.KERNEL),
}
"""The pipeline in SPMD mode: allreduces stay ops, the kernels and the one host schedule of
every device are built once, from the SPMD level (docs/spmd-form.md)."""

SPECIALIZE = "specialize-devices"
SIMPLIFY = "devidx-simplify"

Options = Mapping[str, str]
"""Pass name -> its options in the pipeline syntax (`"allreduce=ring ring-threshold=0"`)."""


class PassUnavailable(Exception):
    """A pass the pipeline needs is not in the registry (its module does not exist)."""


def pipeline_specs(
    start: Level,
    stop: Level = Level.LLVM,
    *,
    spmd: bool = False,
    options: Options | None = None,
) -> tuple[ArgSpec, ...]:
    """The passes from `start` to `stop` (default: the llvm level), each with its options
    (the table's, then `options`' for a pass of that name). Raises ValueError for malformed
    options."""
    table = SPMD_MODE if spmd else PIPELINE
    overrides = {name: _options_of(name, text) for name, text in (options or {}).items()}
    specs: list[ArgSpec] = []
    level = start
    while level != stop and level in table:
        text, level = table[level]
        for spec in parse_pipeline(text):
            extra = overrides.get(spec.name)
            if extra is not None:
                spec = ArgSpec(spec.name, {**spec.parameters, **extra.parameters})
            specs.append(spec)
    return tuple(specs)


def _options_of(name: str, text: str) -> ArgSpec:
    try:
        specs = list(parse_pipeline(f"{name}{{{text}}}" if text.strip() else name))
    except ArgSpecParseError as e:  # a BaseException: turned into an ordinary error
        raise ValueError(f"the options of '{name}': {e}") from None
    if len(specs) != 1 or specs[0].name != name:
        raise ValueError(f"the options of '{name}' must be one option list, found {text!r}")
    return specs[0]


def passes_needed(
    module: ModuleOp, spmd: bool = False, options: Options | None = None
) -> tuple[str, ...]:
    """The pipeline's passes (as pipeline text, options included) from where `module` is to
    the llvm level."""
    return tuple(str(s) for s in pipeline_specs(detect_level(module), spmd=spmd, options=options))


def build_pipeline(specs: tuple[ArgSpec, ...]) -> PassPipeline:
    """The passes of `specs` from the registry. Raises PassUnavailable when one is missing."""
    available = get_all_passes()
    for spec in specs:
        if spec.name not in available:
            raise PassUnavailable(f"the pass '{spec}' is not available")
    return PassPipeline(tuple(_make_pass(available[s.name](), s) for s in specs))


def _make_pass(cls: type[ModulePass], spec: ArgSpec) -> ModulePass:
    """The pass of `spec`: `from_pass_spec` checks and converts options (it reads the class's
    type hints, ~0.2 ms a pass); a spec without options is the pass's defaults."""
    return cls.from_pass_spec(spec) if spec.parameters else cls()


def _run(name: str, apply: Callable[[], None]) -> None:
    apply()


def lower_for_runtime(
    module: ModuleOp,
    each_pass: Callable[[str, Callable[[], None]], None] = _run,
    spmd: bool = False,
    options: Options | None = None,
) -> tuple[str, ...]:
    """Run the passes `module` needs, in place, and return their names (passes_needed's,
    but for the route below). `each_pass(name, apply)` runs each one (to time it, or to
    report its errors); by default it just calls `apply()`. Raises PassUnavailable before
    running anything if a pass is missing. `spmd`: SPMD mode; `options`: by pass name (the
    module docstring).

    The default mode's route for a program whose devices differ only in their shard windows
    (transforms/form_kernels/window_programs.py `windows_only`, decided at the SPMD level,
    before specialize-devices): form-kernels{spmd=true} builds the kernels specialize-devices
    would give, once instead of once per device, so the rest is SPMD mode's. A program that
    is such a program but for allreduces of a few elements (BENCH W3's sum) takes SPMD mode's
    passes from the multi level (`_small_allreduces_route`). The `multi-to-llvm` pass keeps
    the table's passes (SPEC §5: a module per device)."""
    level = detect_level(module)
    ctx = make_context()
    if (
        not spmd
        and level == Level.MULTI
        and _naive_allreduces(options)
        and small_allreduces_only(module)
    ):
        routed = _small_allreduces_route(module, ctx, each_pass, options)
        if routed is not None:
            return routed
    specs = list(pipeline_specs(level, spmd=spmd, options=options))
    passes = list(build_pipeline(tuple(specs)).passes)
    k = 0
    while k < len(specs):
        if specs[k].name == SPECIALIZE and windows_only(module):
            specs[k:] = _windows_route(options)
            passes[k:] = build_pipeline(tuple(specs[k:])).passes
        each_pass(str(specs[k]), lambda p=passes[k]: p.apply(ctx, module))
        k += 1
    return tuple(str(s) for s in specs)


def _small_allreduces_route(
    module: ModuleOp,
    ctx: Context,
    each_pass: Callable[[str, Callable[[], None]], None],
    options: Options | None,
) -> tuple[str, ...] | None:
    """The default mode's route for a program whose devices differ only in their shard windows
    but for allreduces of a few elements (window_programs.py, `small_allreduces_only` at the
    multi level): SPMD mode's passes, each allreduce one `devidx.allreduce` the runtime
    moves, when the program lowered so is `windows_only` with SMALL_ALLREDUCE. Returns the
    passes run, or None, with `module` as it was, when the program is not such a program
    (or SPMD mode's lowering of it fails: the table's route then says why)."""
    specs = list(pipeline_specs(Level.MULTI, spmd=True, options=options))
    passes = build_pipeline(tuple(specs)).passes
    at_spmd = [s.name for s in specs].index(SIMPLIFY) + 1
    backup = module.clone()
    try:
        for spec, p in zip(specs[:at_spmd], passes[:at_spmd]):
            each_pass(str(spec), lambda p=p: p.apply(ctx, module))
        routed = windows_only(module, SMALL_ALLREDUCE)
    except Exception:  # noqa: BLE001 (the table's route runs next, and reports the error)
        routed = False
    if not routed:
        replace_contents(module, backup)
        return None
    for spec, p in zip(specs[at_spmd:], passes[at_spmd:]):
        each_pass(str(spec), lambda p=p: p.apply(ctx, module))
    return tuple(str(s) for s in specs)


def _naive_allreduces(options: Options | None) -> bool:
    """Whether multi-to-devidx's options leave a small allreduce naive (the `allreduce`
    option absent, `auto` or `naive`): another schedule asked for by name is specialized."""
    text = (options or {}).get("multi-to-devidx")
    if text is None:
        return True
    asked = _options_of("multi-to-devidx", text).parameters.get("allreduce", ("auto",))
    return tuple(asked) in (("auto",), ("naive",))


def replace_contents(module: ModuleOp, other: ModuleOp) -> None:
    """Make `module` hold what `other` holds (ops, attributes, properties); `other` is left
    empty. (`_small_allreduces_route` puts a refused program back; the pipeline cache
    (compile_cache.py) puts a cached lowering in.)"""
    for op in list(module.body.block.ops):
        op.detach()
    for op in list(other.body.block.ops):
        op.detach()
        module.body.block.add_op(op)
    module.attributes.clear()
    module.attributes.update(other.attributes)
    module.properties.clear()
    module.properties.update(other.properties)


def _windows_route(options: Options | None) -> list[ArgSpec]:
    """What follows devidx-simplify in SPMD mode (form-kernels{spmd=true}, convert-to-llvm):
    `lower_for_runtime`'s route, instead of specialize-devices, for a program whose devices
    differ only in their shard windows: the kernels specialize-devices would give, built once
    (transforms/form_kernels/window_programs.py)."""
    return [s for s in pipeline_specs(Level.SPMD, spmd=True, options=options) if s.name != SIMPLIFY]


@dataclass(frozen=True)
class MultiToLLVM(ModulePass):
    """Pass `multi-to-llvm` (SPEC §5): the whole pipeline from the multi level, as one pass.
    The result keeps each device's host schedule as MLIR (for the runtime) and its kernels in
    the `llvm` dialect; `multi-opt -p multi-to-llvm -t llvm` prints every device's kernels as
    one LLVM module. `allreduce` and `ring-threshold` are multi-to-devidx's options; `spmd`
    is SPMD mode."""

    name = "multi-to-llvm"

    allreduce: str = "auto"
    ring_threshold: int = 256000
    spmd: bool = False
    """SPMD mode: no specialize-devices; form-kernels{spmd=true} builds the kernels once."""

    def options(self) -> dict[str, str]:
        """The options by pass name that this pass gives the pipeline."""
        return {
            "multi-to-devidx": f'allreduce="{self.allreduce}" ring-threshold={self.ring_threshold}'
        }

    def passes(self) -> tuple[ModulePass, ...]:
        specs = pipeline_specs(Level.MULTI, spmd=self.spmd, options=self.options())
        return build_pipeline(specs).passes

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PassPipeline(self.passes()).apply(ctx, op)


__all__ = [
    "PIPELINE",
    "SPMD_MODE",
    "MultiToLLVM",
    "Options",
    "PassUnavailable",
    "build_pipeline",
    "lower_for_runtime",
    "passes_needed",
    "pipeline_specs",
    "replace_contents",
]

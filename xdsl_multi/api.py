"""The Python API (SPEC §7): compile a module once, call it many times with numpy arrays.

```python
import numpy as np, xdsl_multi as xm
prog = xm.compile("examples/layernorm.mlir")           # a path, MLIR text or a ModuleOp
out = prog(np.ones((8, 16), np.float32))                # logical arrays in, a tuple out
prog = xm.compile(module, entry="forward", backend="interp")
```

`compile` does what `multi-opt` and `multi-run` do, in one call: parse with the located parser
(diagnostics.py), verify op by op and the module-level placement rules, lower through the one
pipeline (pipeline.py, through the pipeline cache of compile_cache.py) and build the runtime
program. It works on a clone: the caller's ModuleOp is never modified. Every bad input raises
`CompileError`, whose `str()` is the diagnostic multi-opt prints. docs/python-api.md documents
every argument, the backends and the errors.
"""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol, Self

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, SymbolRefAttr
from xdsl.ir import Attribute, Operation
from xdsl.utils.arg_spec import parse_pipeline
from xdsl.utils.exceptions import ArgSpecParseError

from xdsl_multi import diagnostics, pipeline
from xdsl_multi.compile_cache import PipelineCache, lower_cached, module_key
from xdsl_multi.diagnostics import (
    SourceFile,
    internal_error,
    parse_module,
    render,
    run_pass,
    verify_ops,
)
from xdsl_multi.dialects import make_context
from xdsl_multi.dialects.multi import program_devices
from xdsl_multi.levels import Level, LevelError, detect_level
from xdsl_multi.passes import get_all_passes
from xdsl_multi.runtime.interpreter.interpreter import (
    InterpreterError,
    argument_names,
    logical_signature,
    not_interpretable,
    run_module,
)
from xdsl_multi.runtime.placement import prepare_input
from xdsl_multi.runtime.schedule import ScheduleError

if TYPE_CHECKING:
    from xdsl_multi.runtime.backends.mpi import MpiProgram
    from xdsl_multi.runtime.program import Program as ThreadsProgram
    from xdsl_multi.runtime.program import ProgramPlan

Backend = Literal["threads", "mpi", "interp"]
BACKENDS: tuple[str, ...] = ("threads", "mpi", "interp")
TOOL_NAME = "multi-opt"
"""The diagnostics are multi-opt's, word for word (a message without a place starts with it)."""
ENTRY = "main"
"""The name the pipeline and the runtime know the entry function by (SPEC §5)."""
TEXT_NAME = "<string>"
"""The file name in the diagnostics of a source given as MLIR text."""


class CompileError(Exception):
    """A source, an option or an argument of `compile` is wrong. `str()` is the diagnostic
    multi-opt prints for it (`file:line:col: error: ...`, the source line and a caret), ending
    in a newline; `message` is its first line's message, `line` and `column` where it is (None
    when it has no place in a text)."""

    def __init__(
        self,
        diagnostic: str,
        message: str,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        super().__init__(diagnostic)
        self.diagnostic = diagnostic
        self.message = message
        self.file, self.line, self.column = file, line, column

    def __str__(self) -> str:
        return self.diagnostic


def _public(error: diagnostics.CompileError, source: SourceFile | None) -> CompileError:
    """The public error of a diagnostic (its traceback, for an internal error, is dropped: a
    note says it is a bug)."""
    if error.python_traceback:
        error.python_traceback = None
        error.notes.append("this is a bug in xdsl-multi")
    text = render(error, TOOL_NAME, source)
    if error.pos is None and error.op is not None:
        head, _, rest = text.partition("\n")
        text = f"{head}\n  {_first_line(error.op)}\n{rest}"
    pos = error.pos
    if pos is None:
        return CompileError(text, error.message)
    return CompileError(text, error.message, pos.file, pos.line, pos.col)


def _first_line(op: Operation) -> str:
    try:
        return str(op).splitlines()[0]
    except Exception:  # noqa: BLE001 - an op that does not print is named instead
        return op.name


# ---------------------------------------------------------------------------------------------
# compile
# ---------------------------------------------------------------------------------------------


def compile(
    source: str | Path | ModuleOp,
    *,
    entry: str = ENTRY,
    backend: Backend = "threads",
    spmd: bool = False,
    devices: int | None = None,
    options: Mapping[str, str] | None = None,
) -> Program:
    """Parse, verify, lower and compile `source` once (docs/python-api.md).

    `source`: a `pathlib.Path`, a str naming an existing file, MLIR text, or a ModuleOp
    (cloned, never modified). `entry`: the function to run (other functions are left alone).
    `backend`: "threads" (compiled, one thread per device), "mpi" (compiled, one MPI rank per
    device under `mpiexec -n N`) or "interp" (the reference interpreter on the module as
    given). `spmd`: SPMD mode (kernels built once, the device number an argument). `devices`:
    the device count the program must have. `options`: pass name -> its options in the
    pipeline syntax (`{"multi-to-devidx": "allreduce=ring"}`). Raises CompileError.

    Python's cyclic garbage collector is paused while it runs (`collector_paused`)."""
    with collector_paused():
        return _compile(source, entry, backend, spmd, devices, options)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Run the body with Python's cyclic garbage collector paused, then collect the young
    generation (docs/decisions.md "The garbage collector during a compile").

    A compile allocates its IR in reference cycles (BENCH C1: tens of thousands of objects
    alive at once); with the collector on, those allocations trigger collections during the
    compile, and now and then a full one, which traverses the caller's whole heap (~65 ms
    with only this package loaded, ~90 ms with jax imported). Paused, the compile's garbage
    is collected once at the end, from the young generation only.

    The caller's state is restored: only a call that found the collector enabled disables it
    and enables it again, so a caller that disabled it keeps it disabled, and of two
    compiles on two threads the one that paused it turns it back on (the other, finding it
    paused, leaves it alone). The young generation is collected only by that call."""
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()
            gc.collect(0)


def _compile(
    source: str | Path | ModuleOp,
    entry: str,
    backend: Backend,
    spmd: bool,
    devices: int | None,
    options: Mapping[str, str] | None,
) -> Program:
    """`compile`, with the collector as the caller left it."""
    text: SourceFile | None = None
    try:
        if backend not in BACKENDS:
            raise diagnostics.CompileError(
                f"unknown backend {backend!r}; expected one of {', '.join(BACKENDS)}"
            )
        if devices is not None and (
            isinstance(devices, bool) or not isinstance(devices, int) or devices < 1
        ):
            raise diagnostics.CompileError(f"devices must be a positive integer, found {devices!r}")
        text = _source_text(source)
        cache = PipelineCache.from_env() if backend == "threads" else None
        key = _program_key(cache, source, text, entry, spmd, options)
        if cache is not None and key is not None:
            cached = _cached_program(cache, key, devices)
            if cached is not None:
                return cached
        if isinstance(source, ModuleOp):
            module = source.clone()
        else:
            assert text is not None
            module = parse_module(make_context(), text.text, text.name)
        verify_ops(module)
        renamed = _make_entry_main(module, entry)
        try:
            level = detect_level(module)
            signature = logical_signature(module)
            names = tuple(argument_names(module))
        except (InterpreterError, LevelError) as e:
            raise diagnostics.CompileError(str(e)) from None
        _check_pipeline(level, spmd, options)
        runner: _Runner
        if backend == "interp":
            if (why := not_interpretable(module)) is not None:
                raise diagnostics.CompileError(f"backend 'interp': {why}")
            count = len(program_devices(module))
            _check_devices(max(count, 1), devices)
            runner = _InterpRunner(module)
        else:
            key_text = text.text if text is not None and not renamed else None
            # the program entry stored below is what a warm compile reads: the pipeline's
            # own entry (the module's MLIR, printed) would only cost this cold call time
            _lower(module, spmd, options, key_text, cache, store=key is None)
            runner = _compiled(module, backend)
            try:
                _check_devices(runner.num_devices, devices)
            except diagnostics.CompileError:
                runner.close()
                raise
            if cache is not None and key is not None and isinstance(runner, _ThreadsRunner):
                plan = runner.program.plan()
                if plan is not None:
                    cache.store_program(key, _CachedProgram(signature, names, plan))
    except diagnostics.CompileError as e:
        raise _public(e, text) from None
    except RecursionError:
        error = diagnostics.CompileError("input nests too deeply: ran out of stack")
        raise _public(error, text) from None
    except Exception as e:  # noqa: BLE001 - a bug of this package: a diagnostic, no traceback
        raise _public(internal_error("internal error in xdsl_multi.compile", e), text) from None
    return Program(runner, signature, names, backend)


@dataclass(frozen=True)
class _CachedProgram:
    """A program entry of the pipeline cache: what `Program` needs, without the module."""

    signature: FunctionType
    argument_names: tuple[str, ...]
    plan: ProgramPlan


def _program_key(
    cache: PipelineCache | None,
    source: object,
    text: SourceFile | None,
    entry: object,
    spmd: object,
    options: object,
) -> str | None:
    """The program key of this compile (None: no cache, or arguments that are not plain
    enough to key on; those go the long way, which reports what is wrong with them)."""
    if cache is None or not isinstance(entry, str) or not isinstance(spmd, bool):
        return None
    if options is not None and not (
        isinstance(options, Mapping)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in options.items())
    ):
        return None
    listed = sorted((options or {}).items())
    settings = f"entry={entry!r} backend='threads' spmd={spmd} options={listed!r}"
    if isinstance(source, ModuleOp):
        return cache.program_key("module " + module_key(source), settings)
    assert text is not None
    return cache.program_key("text " + text.text, settings)


def _cached_program(cache: PipelineCache, key: str, devices: int | None) -> Program | None:
    """The program stored under `key` (no parse, no passes), or None."""
    entry = cache.load_program(key)
    if not isinstance(entry, _CachedProgram):
        return None
    _check_devices(entry.plan.num_devices, devices)
    from xdsl_multi.runtime.program import Program as ThreadsProgram  # deferred: llvmlite

    runner = _ThreadsRunner(ThreadsProgram.from_plan(entry.plan))
    return Program(runner, entry.signature, entry.argument_names, "threads", cached=True)


def _source_text(source: object) -> SourceFile | None:
    """The text to parse (None for a ModuleOp)."""
    if isinstance(source, ModuleOp):
        return None
    if isinstance(source, Path) or (isinstance(source, str) and _names_a_file(source)):
        path = str(source)
        try:
            data = Path(path).read_bytes()
        except OSError as e:
            raise diagnostics.CompileError(
                f"cannot read input file '{path}': {e.strerror or e}"
            ) from None
        text = SourceFile.from_bytes(path, data)
    elif isinstance(source, str):
        text = SourceFile(TEXT_NAME, source)
    else:
        raise diagnostics.CompileError(
            "source must be a path, MLIR text or a ModuleOp, found "
            f"{type(source).__name__}"
        )
    return text


def _names_a_file(text: str) -> bool:
    """A str is a path when it names an existing file, or when it is one line ending in
    `.mlir` (so a misspelt path is `cannot read input file`, not a parse error)."""
    if "\n" in text or "{" in text or len(text) > 4096:
        return False
    return os.path.isfile(text) or text.strip().endswith(".mlir")


def _make_entry_main(module: ModuleOp, entry: str) -> bool:
    """Make @entry the module's @main (SPEC §5's entry), renaming a different @main out of the
    way; symbol references follow. Returns whether anything was renamed."""
    functions = {
        op.sym_name.data: op for op in module.body.block.ops if isinstance(op, func.FuncOp)
    }
    if entry not in functions:
        found = ", ".join(f"@{name}" for name in functions) or "none"
        raise diagnostics.CompileError(
            f"the entry function @{entry} is not in the module (its functions: {found})"
        )
    if entry == ENTRY:
        return False
    if ENTRY in functions:
        spare = next(
            f"{ENTRY}_{i}" for i in range(len(functions) + 1) if f"{ENTRY}_{i}" not in functions
        )
        _rename_symbol(module, functions[ENTRY], spare)
    _rename_symbol(module, functions[entry], ENTRY)
    return True


def _rename_symbol(module: ModuleOp, f: func.FuncOp, new: str) -> None:
    old = f.sym_name.data
    f.sym_name = type(f.sym_name)(new)
    for op in module.walk():
        for table in (op.properties, op.attributes):
            for key, value in table.items():
                if isinstance(value, SymbolRefAttr) and value.root_reference.data == old:
                    table[key] = SymbolRefAttr(new, value.nested_references)


def _check_pipeline(level: Level, spmd: bool, options: Mapping[str, str] | None) -> None:
    """Build the pipeline's passes with `options` once, so that a bad option is a diagnostic
    before anything runs (without options there is nothing to check: the passes are built
    once, when they run)."""
    if options is not None and not isinstance(options, Mapping):
        raise diagnostics.CompileError(
            f"options must map a pass name to its options, found {type(options).__name__}"
        )
    known = get_all_passes()
    for name, text in (options or {}).items():
        if name not in known:
            raise diagnostics.CompileError(f"options: unknown pass '{name}'")
        if not isinstance(text, str):
            raise diagnostics.CompileError(
                f"options of pass '{name}' must be a str, found {type(text).__name__}"
            )
        try:
            (spec,) = parse_pipeline(f"{name}{{{text}}}" if text.strip() else name)
            known[name]().from_pass_spec(spec)
        except (Exception, ArgSpecParseError) as e:  # noqa: BLE001 - a bad option name or value
            message = " ".join(str(e).split())
            raise diagnostics.CompileError(
                f"bad options for pass '{name}' ({text!r}): {message}"
            ) from None
    if not options:
        return  # the table's own passes: a missing one is reported when `_lower` builds them
    try:
        pipeline.build_pipeline(pipeline.pipeline_specs(level, spmd=spmd, options=options))
    except pipeline.PassUnavailable as e:
        raise _unavailable(e) from None


def _lower(
    module: ModuleOp,
    spmd: bool,
    options: Mapping[str, str] | None,
    source: str | None,
    cache: PipelineCache | None,
    store: bool = True,
) -> None:
    """The pipeline from the module's level to the llvm level, in place, through the pipeline
    cache (`cache`: the threads backend's, else the default; `XDSL_MULTI_PIPELINE_CACHE=0`
    turns it off), storing its entry unless `store` is False."""
    try:
        lower_cached(
            module,
            cache if cache is not None else PipelineCache.from_env(),
            spmd=spmd,
            options=options,
            source=source,
            each_pass=run_pass,
            store=store,
        )
    except pipeline.PassUnavailable as e:  # raised before any pass runs
        raise _unavailable(e) from None


def _unavailable(e: pipeline.PassUnavailable) -> diagnostics.CompileError:
    """The diagnostic of a pass missing from the registry (a broken install)."""
    return diagnostics.CompileError(f"the compiled backends need {e}")


def _check_devices(found: int, asked: int | None) -> None:
    if asked is not None and asked != found:
        raise diagnostics.CompileError(
            f"the program runs on {found} devices, but {asked} were asked for"
        )


# ---------------------------------------------------------------------------------------------
# The backends behind a Program
# ---------------------------------------------------------------------------------------------


class _Runner(Protocol):
    num_devices: int
    rank: int

    def run(self, inputs: list[np.ndarray]) -> list[np.ndarray]: ...

    def close(self) -> None: ...


class _InterpRunner:
    """The reference interpreter on the verified module (at the level it was given)."""

    def __init__(self, module: ModuleOp) -> None:
        self.module = module
        self.num_devices = max(len(program_devices(module)), 1)
        self.rank = 0

    def run(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        return run_module(self.module, inputs)

    def close(self) -> None:
        pass


class _ThreadsRunner:
    def __init__(self, program: ThreadsProgram) -> None:
        self.program = program
        self.num_devices = program.num_devices
        self.rank = 0

    def run(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        return self.program(inputs)

    def close(self) -> None:
        self.program.close()


class _MpiRunner:
    """This rank's device of the program. Every rank calls with the same inputs (rank 0's
    are the ones used) and every rank gets the results (broadcast from rank 0)."""

    def __init__(self, program: MpiProgram) -> None:
        self.program = program
        self.num_devices = program.num_devices
        self.rank = program.rank

    def run(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        rank = self.program.rank
        outputs = self.program(inputs if rank == 0 else None)
        return self.program.comm.bcast(outputs, root=0)

    def close(self) -> None:
        self.program.close()


def _compiled(module: ModuleOp, backend: str) -> _Runner:
    """The runtime program of an llvm-level module (deferred imports: they load llvmlite, and
    mpi4py for "mpi", which `import xdsl_multi` must not)."""
    try:
        if backend == "threads":
            from xdsl_multi.runtime.program import Program as ThreadsProgram

            return _ThreadsRunner(ThreadsProgram(module))
        from xdsl_multi.runtime.backends.mpi import MpiProgram, RankCountError, mpi_module

        try:
            comm = mpi_module().COMM_WORLD
            return _MpiRunner(MpiProgram(module, comm=comm, error_prefix="xdsl-multi"))
        except (ImportError, RankCountError) as e:
            raise diagnostics.CompileError(f"backend 'mpi': {e}") from None
    except ScheduleError as e:
        raise diagnostics.CompileError(str(e)) from None


# ---------------------------------------------------------------------------------------------
# Program
# ---------------------------------------------------------------------------------------------


class Program:
    """A compiled program (from `compile`): call it with logical arrays, get a tuple of numpy
    arrays. `signature` is the entry's logical function type; `argument_names` its
    arguments' SSA names (argK where the text gave none); `close()` (or `with`) releases its
    threads."""

    def __init__(
        self,
        runner: _Runner,
        signature: FunctionType,
        argument_names: tuple[str, ...],
        backend: str,
        *,
        cached: bool = False,
    ) -> None:
        self._runner = runner
        self.signature = signature
        self.argument_names = argument_names
        self.backend = backend
        self.cached = cached
        """Whether `compile` found the whole program in the pipeline cache (a warm compile:
        no parsing, verifying or passes)."""

    @property
    def runtime(self) -> object:
        """The backend's own program: runtime/program.py's `Program` for "threads" (with
        `place`, `run_placed` for timing on placed inputs), backends/mpi.py's `MpiProgram`
        for "mpi", the module for "interp"."""
        runner = self._runner
        if isinstance(runner, _ThreadsRunner | _MpiRunner):
            return runner.program
        assert isinstance(runner, _InterpRunner)
        return runner.module

    @property
    def num_devices(self) -> int:
        return self._runner.num_devices

    @property
    def rank(self) -> int:
        """This process's MPI rank (backend "mpi"), else 0."""
        return self._runner.rank

    def __call__(self, *arrays: object, **named: object) -> tuple[np.ndarray, ...]:
        """Run once. Inputs by position, then by name (SSA name without `%`, or argK); each a
        logical array (SPEC §6). Raises ValueError naming the argument for a missing, extra,
        unknown, misshapen or mistyped one."""
        inputs = self._bind(arrays, named)
        return tuple(self._runner.run(inputs))

    def _bind(self, arrays: Sequence[object], named: Mapping[str, object]) -> list[np.ndarray]:
        types: Sequence[Attribute] = self.signature.inputs.data
        names = self.argument_names
        if len(arrays) > len(types):
            raise ValueError(
                f"the program takes {len(types)} arguments ({', '.join(names) or 'none'}), "
                f"got {len(arrays)} positional ones"
            )
        given: dict[int, object] = dict(enumerate(arrays))
        for name, value in named.items():
            index = self._index_of(name)
            if index in given:
                raise ValueError(f"argument '{names[index]}' is given twice")
            given[index] = value
        missing = [names[i] for i in range(len(types)) if i not in given]
        if missing:
            listed = ", ".join(f"'{n}'" for n in missing)
            raise ValueError(f"missing argument{'s' if len(missing) > 1 else ''} {listed}")
        try:
            return [
                # checked here for the messages; the runner makes the private copies
                prepare_input(t, given[i], f"argument '{names[i]}'", copy=False)
                for i, t in enumerate(types)
            ]
        except InterpreterError as e:
            raise ValueError(str(e)) from None

    def _index_of(self, name: str) -> int:
        names = self.argument_names
        if name in names:
            return names.index(name)
        if name.startswith("arg") and name[3:].isdigit() and int(name[3:]) < len(names):
            return int(name[3:])
        known = ", ".join(names) or "none"
        raise ValueError(f"unknown argument '{name}' (the arguments: {known}; or argK)")

    def close(self) -> None:
        """Stop the device threads (threads), free the communicators (mpi)."""
        self._runner.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["BACKENDS", "Backend", "CompileError", "Program", "compile"]

"""JIT for kernels: LLVM IR -> machine code for this CPU (llvmlite MCJIT, O3 without LLVM's
loop unroller, `LOOP_UNROLLING`; O2 for a kernel that chains many loops, `opt_level`) ->
ctypes calls.

    cache = KernelCache()                                   # one per runtime / process
    kernels = cache.compile_kernels(module_after_convert_to_llvm)   # or LLVM IR text
    kernels["device0_w1"](x, y)                             # numpy arrays, scalars
    kernels["device0_w1"].address                           # the raw function address

Identical kernels compile once: each kernel is keyed by its own LLVM IR with its name taken out
(plus the declarations it may call), so `device0_k` and `device1_k` with the same body share one
machine-code function. Compiled code is kept in memory by the `KernelCache` (which keeps the
execution engines alive: a function may be called while its cache lives) and, optionally, on
disk as object code (`XDSL_MULTI_CACHE_DIR`, default `~/.cache/xdsl-multi`), written to a
temporary file and renamed, so concurrent writers never leave a partial file. The new kernels
of one call are compiled in one LLVM module (per optimization setting), since LLVM's cost per
module is a few ms: one kernel's object is `KEY.o`; several share `GROUP.o`, and each member's
`KEY.ref` names that object, so a later call (or process) that needs any of them loads it.

Calls go through ctypes, which releases the GIL, so several threads run kernels in parallel.
A call checks its arguments: with the kernel-level signature (`multi.kernel_type`, present when
compiling an xDSL module) each array must have the memref's dtype and shape; always, arrays must
be C-contiguous and 64-byte aligned (the runtime's buffers are).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import re
import tempfile
import threading
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import llvmlite
import llvmlite.binding as llvm
import llvmlite.ir as llvm_ir
import numpy as np
from xdsl.dialects import llvm as llvm_dialect
from xdsl.dialects.builtin import (
    FunctionType,
    MemRefType,
    ModuleOp,
)
from xdsl.ir import Attribute

from xdsl_multi.dialects.multi import KERNEL_TYPE_ATTR, LLVM_IR_ATTR
from xdsl_multi.lowering.llvm_target import kernels_llvm_ir, llvm_ops
from xdsl_multi.lowering.llvm_types import LLVM_CTYPES, storage_dtype

ALIGNMENT = 64
"""Bytes: the alignment every array argument must have."""

CACHE_DIR_ENV = "XDSL_MULTI_CACHE_DIR"


class KernelArgumentError(TypeError):
    """A kernel was called with arguments that do not match its signature."""


def default_cache_dir() -> Path:
    """`$XDSL_MULTI_CACHE_DIR`, else `$XDG_CACHE_HOME/xdsl-multi`, else `~/.cache/xdsl-multi`."""
    if value := os.environ.get(CACHE_DIR_ENV):
        return Path(value)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "xdsl-multi"


# ---------------------------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ArgSpec:
    """One parameter: its LLVM type and, when known, the kernel-level type."""

    llvm_type: str
    kernel_type: Attribute | None = None

    def convert(self, kernel: str, position: int, value: Any) -> Any:
        """The ctypes-ready value of `value` for this parameter, or KernelArgumentError."""
        where = f"kernel {kernel}: argument {position}"
        if self.llvm_type == "ptr":
            if not isinstance(value, np.ndarray):
                raise KernelArgumentError(f"{where}: expected a numpy array, got {type(value)}")
            t = self.kernel_type
            if isinstance(t, MemRefType):
                dtype, shape = storage_dtype(t.element_type), tuple(t.get_shape())
                if value.dtype != dtype:
                    raise KernelArgumentError(
                        f"{where}: expected dtype {dtype} for {t}, got {value.dtype}"
                    )
                if value.shape != shape and value.size != int(np.prod(shape, dtype=np.int64)):
                    raise KernelArgumentError(
                        f"{where}: expected shape {shape} for {t}, got {value.shape}"
                    )
            if not value.flags.c_contiguous:
                raise KernelArgumentError(f"{where}: the array must be C-contiguous")
            if value.ctypes.data % ALIGNMENT:
                raise KernelArgumentError(
                    f"{where}: the array must be {ALIGNMENT}-byte aligned "
                    f"(its data is at {value.ctypes.data:#x})"
                )
            return value.ctypes.data
        if isinstance(value, np.ndarray):
            raise KernelArgumentError(f"{where}: expected a scalar ({self.llvm_type})")
        if self.llvm_type in ("float", "double"):
            return float(value)
        if isinstance(value, float) or not isinstance(value, int | np.integer | bool | np.bool_):
            raise KernelArgumentError(f"{where}: expected an integer, got {value!r}")
        return int(value)


@dataclass
class CompiledKernel:
    """A kernel in machine code; call it with numpy arrays and scalars."""

    name: str
    address: int
    args: tuple[ArgSpec, ...]
    key: str
    """The cache key: kernels with the same key share one machine-code function."""
    _engine: object = field(repr=False)
    _cfunc: Any = field(init=False, repr=False)

    def __post_init__(self) -> None:
        prototype = ctypes.CFUNCTYPE(None, *(LLVM_CTYPES[a.llvm_type] for a in self.args))
        self._cfunc = prototype(self.address)

    def __call__(self, *values: Any) -> None:
        if len(values) != len(self.args):
            raise KernelArgumentError(
                f"kernel {self.name}: expected {len(self.args)} arguments, got {len(values)}"
            )
        self._cfunc(
            *(a.convert(self.name, i, v) for i, (a, v) in enumerate(zip(self.args, values)))
        )


# ---------------------------------------------------------------------------------------------
# Splitting LLVM IR into kernels
# ---------------------------------------------------------------------------------------------

_DEFINE = re.compile(r'^define\b[^@\n]*@(?:"([^"]+)"|([\w.$-]+))\s*\(', re.MULTILINE)


@dataclass(frozen=True)
class _KernelText:
    name: str
    definition: str
    """The function's text with its name replaced by `@"{KERNEL}"`."""


_PLACEHOLDER = "__xdsl_multi_kernel"


def split_kernels(text: str) -> tuple[str, list[_KernelText]]:
    """The module-level text (declarations, globals, attributes: everything but function
    definitions) and each defined function, with its name taken out."""
    kernels: list[_KernelText] = []
    common: list[str] = []
    position = 0
    for match in _DEFINE.finditer(text):
        if match.start() < position:
            continue
        end = text.find("\n}", match.end())
        end = len(text) if end < 0 else end + 2
        common.append(text[position : match.start()])
        name = match.group(1) or match.group(2)
        start_name, end_name = match.span(1) if match.group(1) else match.span(2)
        if match.group(1):
            start_name, end_name = start_name - 1, end_name + 1  # the quotes
        definition = text[match.start() : start_name] + f'"{_PLACEHOLDER}"' + text[end_name:end]
        kernels.append(_KernelText(name, definition))
        position = end
    common.append(text[position:])
    return "".join(common), kernels


# ---------------------------------------------------------------------------------------------
# The cache
# ---------------------------------------------------------------------------------------------


@dataclass
class _Compiled:
    engine: Any
    address: int
    arg_types: list[str]
    """The LLVM types of the parameters: ptr, i64, float, ..."""


@dataclass
class CacheStats:
    compiled: int = 0
    memory_hits: int = 0
    disk_hits: int = 0
    parse_s: float = 0.0
    """Seconds spent parsing and verifying LLVM IR text (`python -m bench --profile-compile`)."""
    optimize_s: float = 0.0
    """Seconds in LLVM's optimization pipeline."""
    codegen_s: float = 0.0
    """Seconds in `finalize_object`: machine code (or loading it from disk) and linking."""


MANY_LOOPS = 48
"""Kernels whose IR has more `phi`s than this (a loop has one or more) compile without loop
interleaving (KernelCache._optimize)."""


def many_loops(text: str) -> bool:
    """Whether LLVM IR text looks like a kernel of many loops (counted by its `phi`s: cheap,
    on the text, before parsing)."""
    return text.count(" = phi ") > MANY_LOOPS


CHAIN_OF_LOOPS = 16
"""Kernels with more loops than this (a fused chain, BENCH C1: 100) are optimized at O2, the
others at O3. On C1, O2 runs as fast as O3 (O1 is a quarter slower), makes a third of the
machine code and takes LLVM a fifth less time; a matmul (3 loops) or a reduction keeps O3."""

_LOOP_HEADER = re.compile(r'^"?[\w.$-]+"?:[^\n]*\n\s+%[^\n]* = phi ', re.MULTILINE)


def opt_level(text: str) -> int:
    """The LLVM optimization level of a kernel's IR text: 2 for a chain of more than
    CHAIN_OF_LOOPS loops (counted as blocks that begin with a `phi`, on the text), else 3."""
    return 2 if len(_LOOP_HEADER.findall(text)) > CHAIN_OF_LOOPS else 3


LOOP_UNROLLING = False
"""LLVM's loop unroller does not run. The loop vectorizer already interleaves several vectors
per iteration (several accumulators for a sum); the unroller then repeated that body or fully
unrolled the constant-trip inner loops (BENCH W2's 1024 columns: 16 iterations, 3 loops;
W7's 999), which tripled the machine code and doubled LLVM's time (W2 40 -> 20 ms, W7 45 ->
25 ms) and measured no faster in steady state (W2, W7; the matmul nests of W4 and W5 the
same: their register tiles are unrolled by form-kernels). On a chain at O2 (BENCH C1, 100
loops of 256 columns) it was 45% of LLVM's optimization time and 65% of its code generation
time (C1's kernel: opt 1030 -> 560 ms, codegen 440 -> 160 ms, 52 -> 13 KB of object code)
for the same steady state. Round 12 turned it off for kernels of one loop too (a long sum,
BENCH W3 and W6): 2 of W3's ~7 ms of LLVM, the same steady state (W3 1.40 / 1.39 ms, W6 at
N = 2 1.77 / 1.78 ms, unrolled / not, best of 8 x 30 interleaved), since a sum over memory
is bound by memory and the unrolled body kept the vectorizer's 4 accumulators."""


_PARAMETERS = re.compile(r"^define\b[^(\n]*\(([^)\n]*)\)")


def full_width_vectors(features: str) -> str:
    """`features` with the widest vector registers preferred: LLVM tunes recent AVX-512 CPUs
    (Skylake-X on) to 256-bit vectors, and then a matmul's 8 x 32 register tile needs 32
    accumulators, every register there is, and spills (BENCH W4 ran at a quarter of the
    machine's sgemm). With 512-bit vectors the tile is 16 registers and the loop has no
    spill. On CPUs without AVX-512 the tuning flag does not exist and nothing changes."""
    if "+avx512f" not in features.split(","):
        return features
    return f"{features},-prefer-256-bit"


def parameter_types(definition: str) -> list[str] | None:
    """The LLVM types of a kernel definition's parameters, read off its `define` line (`ptr
    noalias %".1", i64 %".2"` -> ptr, i64), or None when one is not a type the runtime passes
    (LLVM_CTYPES)."""
    match = _PARAMETERS.match(definition)
    if match is None:
        return None
    listed = match.group(1).strip()
    types = [p.split()[0] for p in listed.split(",")] if listed else []
    return types if all(t in LLVM_CTYPES for t in types) else None


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temporary file in the same folder and a rename, so that
    concurrent readers and writers never see a partial file; raises OSError."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


@dataclass(frozen=True)
class _DiskObject:
    group: str
    """The object's key: a kernel's key, or a group's (`_group_key`)."""
    members: frozenset[str]
    """The keys of the kernels it holds."""
    data: bytes


def _group_key(kernels: Mapping[str, object]) -> str:
    """The module and object key of kernels compiled together: the kernel's own key for one,
    else a hash of the members' keys."""
    if len(kernels) == 1:
        return next(iter(kernels))
    return hashlib.sha256("\n".join(["group", *sorted(kernels)]).encode()).hexdigest()


class KernelCache:
    """Compiles LLVM IR kernels for this CPU and keeps them; see the module docstring.

    `cache_dir`: where object code is kept between processes; `None` means
    `default_cache_dir()`; `disk=False` turns the on-disk cache off."""

    def __init__(self, cache_dir: str | os.PathLike[str] | None = None, *, disk: bool = True):
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        target = llvm.Target.from_default_triple()
        self.cpu = llvm.get_host_cpu_name()
        self.features = full_width_vectors(llvm.get_host_cpu_features().flatten())
        self.target_machine = target.create_target_machine(
            cpu=self.cpu, features=self.features, opt=3, codemodel="jitdefault", jit=True
        )
        self.triple = self.target_machine.triple
        self.data_layout = str(self.target_machine.target_data)
        self.disk_dir = (
            (Path(cache_dir) if cache_dir is not None else default_cache_dir()) if disk else None
        )
        self.stats = CacheStats()
        self._compiled: dict[str, _Compiled] = {}
        self._lock = threading.Lock()
        # One MCJIT engine holds every module (it owns the target machine, so there can be
        # only one per target machine). Object code found on disk is handed to it through
        # the object cache, keyed by the module's name (the kernel's key). It is made with
        # the first module to compile (`_add`): an engine made with an empty module compiled
        # that too, at its first `finalize_object` (docs/compile-time-log.md, round 6).
        self._engine: Any = None
        self._objects_from_disk: dict[str, bytes] = {}
        self._to_store: dict[str, frozenset[str]] = {}
        """Modules compiled here whose object code goes to disk: module name -> kernel keys."""
        self._in_engine: set[str] = set()
        """Keys of the kernels whose machine code the engine holds (compiled or loaded here,
        also those that came in a group's object without being asked for)."""
        self._salt = "\n".join(
            ["xdsl-multi jit 2", llvmlite.__version__, ".".join(map(str, llvm.llvm_version_info)),
             self.triple, self.cpu, self.features]
        )  # fmt: skip

    # -- public --------------------------------------------------------------------------

    def compile_kernels(
        self,
        source: str | ModuleOp | llvm_ir.Module,
        *,
        only: Collection[str] | None = None,
        signatures: Mapping[str, FunctionType] | None = None,
    ) -> dict[str, CompiledKernel]:
        """Every function defined in `source` (LLVM IR text, an llvmlite module, or an xDSL
        module after convert-to-llvm), by name, in machine code; only those named in `only`
        when given. `signatures`: kernel-level types by name, for the argument checks (an
        xDSL module gives its own)."""
        wanted = None if only is None else frozenset(only)
        if isinstance(source, ModuleOp):
            source, signatures, wanted = self.kernels_of(source)
        text = str(source)
        signatures = signatures or {}
        common, kernels = split_kernels(text)
        result: dict[str, CompiledKernel] = {}
        with self._lock:
            keyed: list[tuple[str, _KernelText]] = []
            pending: dict[str, _KernelText] = {}
            for kernel in kernels:
                if wanted is not None and kernel.name not in wanted:
                    continue
                level = opt_level(kernel.definition)
                material = f"{self._salt}\nO{level}\n{common}\n{kernel.definition}"
                key = hashlib.sha256(material.encode()).hexdigest()
                keyed.append((key, kernel))
                if key in self._compiled or key in pending:  # (a twin: compiled once)
                    self.stats.memory_hits += 1
                else:
                    pending[key] = kernel
            self._compiled.update(self._compile_all(common, pending))
            for key, kernel in keyed:
                compiled = self._compiled[key]
                args = self._arg_specs(compiled, signatures.get(kernel.name))
                result[kernel.name] = CompiledKernel(
                    kernel.name, compiled.address, args, key, compiled.engine
                )
        return result

    def kernels_of(
        self, module: ModuleOp
    ) -> tuple[str, dict[str, FunctionType], frozenset[str] | None]:
        """The LLVM IR text of an xDSL module's kernels (for this cache's target), their
        kernel-level types by name, and the names to compile (None: every function of the
        text; the defined `llvm.func`s when the module carries its text, which may hold
        kernels of devices left out)."""
        signatures: dict[str, FunctionType] = {}
        defined: set[str] = set()
        for op in llvm_ops(module):
            t = op.attributes.get(KERNEL_TYPE_ATTR)
            if isinstance(op, llvm_dialect.FuncOp) and isinstance(t, FunctionType):
                signatures[op.sym_name.data] = t
            if isinstance(op, llvm_dialect.FuncOp) and op.body.blocks:
                defined.add(op.sym_name.data)
        wanted = frozenset(defined) if LLVM_IR_ATTR in module.attributes else None
        return kernels_llvm_ir(module, triple=self.triple), signatures, wanted

    def optimized_ir(self, text: str) -> str:
        """`text` after the pipeline this cache uses (`opt_level`: O3, O2 for a chain of many
        loops), for tests and inspection."""
        module = self._parse(text)
        self._optimize(module, not many_loops(text), opt_level(text))
        return str(module)

    def assembly(self, text: str) -> str:
        """The machine code of `text` (optimized as `optimized_ir`) as assembly."""
        module = self._parse(text)
        self._optimize(module, not many_loops(text), opt_level(text))
        return self.target_machine.emit_assembly(module)

    # -- compiling -----------------------------------------------------------------------

    def _parse(self, text: str) -> Any:
        module = llvm.parse_assembly(text)
        module.triple = self.triple
        module.data_layout = self.data_layout
        module.verify()
        return module

    def _optimize(self, module: Any, interleave: bool = True, level: int = 3) -> None:
        tuning = llvm.create_pipeline_tuning_options(speed_level=level)
        tuning.loop_vectorization = True
        tuning.slp_vectorization = True
        tuning.loop_unrolling = LOOP_UNROLLING
        # `interleave` False for a kernel of many loops (BENCH C1: 100): LLVM then spends a
        # fifth less time on it and, on C1, makes code of the same size; small kernels keep
        # interleaving (a sum's interleaved accumulators hide the add latency).
        tuning.loop_interleaving = interleave
        builder = llvm.create_pass_builder(self.target_machine, tuning)
        builder.getModulePassManager().run(module, builder)

    def _disk_path(self, key: str, suffix: str = ".o") -> Path | None:
        return None if self.disk_dir is None else self.disk_dir / f"{key}{suffix}"

    def _compile_all(self, common: str, kernels: Mapping[str, _KernelText]) -> dict[str, _Compiled]:
        """Machine code for each kernel by key. A kernel whose symbol the engine already has
        (it came in an object with others) is looked up; one found on disk comes with its
        object (once per object); the others are compiled in ONE LLVM module per
        optimization setting (LLVM's per-module cost is paid once per call, not per
        kernel). Every module is added to the engine first, then one `finalize_object` for
        all (it links and maps memory: once per call, not per kernel)."""
        symbols = {key: f"k_{key[:32]}" for key in kernels}
        arg_types: dict[str, list[str]] = {}
        to_compile: dict[tuple[bool, int], dict[str, _KernelText]] = {}
        loaded: set[str] = set()
        """The objects loaded from disk in this call, and the kernels they hold."""
        loaded_now: set[str] = set()
        added = False
        for key, kernel in kernels.items():
            start = time.perf_counter()
            types = parameter_types(kernel.definition)
            if key in self._in_engine:  # it came in a group's object, unasked for
                if types is None:
                    definition = kernel.definition.replace(
                        f'"{_PLACEHOLDER}"', f'"{symbols[key]}"', 1
                    )
                    function = self._parse(f"{common}\n{definition}").get_function(symbols[key])
                    types = [str(a.type) for a in function.arguments]
                arg_types[key] = types
                if key in loaded_now:
                    self.stats.disk_hits += 1
                else:
                    self.stats.memory_hits += 1
                self.stats.parse_s += time.perf_counter() - start
                continue
            found = self._read_disk(key) if types is not None else None
            if found is not None and (found.group in loaded or not found.members & self._in_engine):
                if found.group not in loaded:
                    # MCJIT takes the object code from the cache and never looks at the IR:
                    # an empty module named by the object's key stands for it (no LLVM parse
                    # on a warm call)
                    module = self._parse("")
                    module.name = found.group
                    self._objects_from_disk[found.group] = found.data
                    self._add(module)
                    self._in_engine |= found.members
                    loaded_now |= found.members
                    loaded.add(found.group)
                    added = True
                assert types is not None
                arg_types[key] = types
                self.stats.disk_hits += 1
                self.stats.parse_s += time.perf_counter() - start
                continue
            setting = (
                not many_loops(kernel.definition),
                opt_level(kernel.definition),
            )
            to_compile.setdefault(setting, {})[key] = kernel
        for (interleave, level), group in to_compile.items():
            start = time.perf_counter()
            text = "\n".join(
                [common]
                + [
                    k.definition.replace(f'"{_PLACEHOLDER}"', f'"{symbols[key]}"', 1)
                    for key, k in group.items()
                ]
            )
            module = self._parse(text)
            for key in group:
                arg_types[key] = [str(a.type) for a in module.get_function(symbols[key]).arguments]
            module.name = _group_key(group)
            self.stats.parse_s += time.perf_counter() - start
            start = time.perf_counter()
            self._optimize(module, interleave, level)
            self.stats.optimize_s += time.perf_counter() - start
            self._to_store[module.name] = frozenset(group)
            self.stats.compiled += len(group)
            self._add(module)
            self._in_engine |= group.keys()
            added = True
        if added:
            start = time.perf_counter()
            self._engine.finalize_object()
            self.stats.codegen_s += time.perf_counter() - start
        out: dict[str, _Compiled] = {}
        for key, kernel in kernels.items():
            address = self._engine.get_function_address(symbols[key])
            if not address:
                raise RuntimeError(f"JIT: no machine code for kernel {kernel.name}")
            out[key] = _Compiled(self._engine, address, arg_types[key])
        return out

    def _add(self, module: Any) -> None:
        """Hand `module` to the engine (made now, with it, if this is the first)."""
        if self._engine is None:
            self._engine = llvm.create_mcjit_compiler(module, self.target_machine)
            self._engine.set_object_cache(notify_func=self._notify, getbuffer_func=self._getbuffer)
        else:
            self._engine.add_module(module)

    def _read_disk(self, key: str) -> _DiskObject | None:
        """The object code holding kernel `key`: its own `KEY.o`, or the object of the group
        it was compiled in, named by `KEY.ref` (the group's key, then its members' keys)."""
        path, ref = self._disk_path(key), self._disk_path(key, ".ref")
        if path is None or ref is None:
            return None
        try:
            return _DiskObject(key, frozenset([key]), path.read_bytes())
        except OSError:
            pass
        try:
            group, *members = ref.read_text().split()
            data = self._disk_path(group).read_bytes()  # type: ignore[union-attr]
        except (OSError, ValueError):
            return None
        return _DiskObject(group, frozenset(members), data) if key in members else None

    def _getbuffer(self, module: Any) -> bytes | None:
        return self._objects_from_disk.pop(module.name, None)

    def _notify(self, module: Any, data: bytes) -> None:
        """MCJIT made the object code of a module we compiled: keep it on disk, under its own
        key for one kernel, under the group's key with a `.ref` per member for several."""
        members = self._to_store.pop(module.name, None)
        if members is None:
            return
        self._store(self._disk_path(module.name), data)
        if len(members) > 1:
            listing = "\n".join([module.name, *sorted(members)]).encode()
            for key in members:
                self._store(self._disk_path(key, ".ref"), listing)

    @staticmethod
    def _store(path: Path | None, data: bytes) -> None:
        """Write object code to the disk cache (atomically)."""
        if path is None:
            return
        try:
            write_atomically(path, data)
        except OSError:
            pass  # the disk cache is an optimization: a read-only or full disk is not an error

    @staticmethod
    def _arg_specs(compiled: _Compiled, signature: FunctionType | None) -> tuple[ArgSpec, ...]:
        fn_types = compiled.arg_types
        kernel_types: Sequence[Attribute | None] = (
            signature.inputs.data if signature is not None else [None] * len(fn_types)
        )
        return tuple(ArgSpec(t, k) for t, k in zip(fn_types, kernel_types))


def compile_kernels(
    source: str | ModuleOp | llvm_ir.Module, cache: KernelCache | None = None
) -> dict[str, CompiledKernel]:
    """`KernelCache.compile_kernels` on `cache`, or on a new cache with the default disk
    cache (the compiled kernels keep their engines alive by themselves)."""
    return (cache if cache is not None else KernelCache()).compile_kernels(source)

"""The pipeline cache: what the compiled runtime needs of a program, kept on disk between
processes, so that a warm first call skips the passes.

```python
cache = PipelineCache()                  # $XDSL_MULTI_CACHE_DIR/pipeline (next to the JIT's)
hit = lower_cached(module, cache, source=text)   # in place, like pipeline.lower_for_runtime
program = Program(module)                # runtime/program.py, kernels from the JIT
# with pass options (the benchmarks' variants), by pass name as in pipeline.py:
hit = lower_cached(module, cache, options={"multi-to-devidx": "allreduce=ring"}, source=text)
```

(multi-run goes through tools/run_pipeline.py, which times each step for `--time`.)

`lower` looks the program up by a key made of
- the input: the source text it was parsed from, or else a digest of the module as printed
  (dense constants by the hash of their bytes, a splat by its element);
- the passes that will run, with their options;
- the package's own source (every `.py` file of xdsl_multi's subpackages), and the versions of
  Python, xDSL, llvmlite and LLVM, and the host's target triple.

On a hit the module's contents are replaced by the stored runtime form; on a miss the passes
run, the module is turned into its runtime form in place and stored. Either way the caller
gets the same module, so a cache hit and a miss run the same program.

The runtime form (`to_runtime_form`) of an llvm-level module:
- the top module carries `multi.llvm_ir`, the LLVM IR text of every kernel as
  `translate_kernels` writes it. The JIT compiles that text (lowering/llvm_target.py
  `kernels_llvm_ir`), and finds the machine code in its own disk cache when it is warm;
- each kernel's `llvm.func` keeps its name, signature and attributes, and gains
  `multi.writes`, the arguments it writes (lowering/kernel_facts.py; the runtime reads it to
  decide when a send must copy its buffer); its body only returns. It is never translated;
- host schedules, declarations and the module attributes are kept as they are (a program
  without kernels, only messages and copies, is its host schedules).

An entry is one file `<key>.pipeline`: a header with the format, the key and a SHA-256 of the
payload, then the module's MLIR text (without `multi.llvm_ir`, which would print slowly) and
the LLVM IR text. It is written to a temporary file and renamed, so concurrent writers never
leave a partial entry. An entry that does not read back (truncated, edited, from another
version of the format) is ignored and rebuilt. Errors are never cached: a pass that fails
raises as without the cache.

`XDSL_MULTI_PIPELINE_CACHE=0` turns the cache off for multi-run (`PipelineCache.from_env`).

Compiled programs (`xdsl_multi.compile`, threads backend) have entries of their own, looked up
BEFORE parsing, so that a warm compile neither parses nor verifies nor reads MLIR:

```python
key = cache.program_key(source_text, "entry=main backend=threads ...")  # or module_key(m)
plan = cache.load_program(key)           # what the caller stored, or None
cache.store_program(key, plan)           # any picklable value (api.py: a ProgramPlan + the signature)
```

A program entry `<key>.program` is a header (format, key, SHA-256 of the payload) and a
pickle of plain data: the runtime's schedules, memory plans and signature, and the kernels'
LLVM IR text (runtime/program.py `ProgramPlan`). Its key is made like the pipeline's (format,
package digest, versions) with the source text or `module_key`'s structural digest of a
ModuleOp instead of the passes (which depend on the parsed module). The pickle is read only
from this cache's own folder, which already holds the object code the JIT runs.
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import os
import pickle
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.printer import Printer

from xdsl_multi import pipeline
from xdsl_multi.dialects.splat import splat_value
from xdsl_multi.lowering.kernel_facts import with_writes

FORMAT = "xdsl-multi pipeline cache 1"
"""The first line of an entry, and part of every key: change it when the format changes."""

PROGRAM_FORMAT = "xdsl-multi program cache 1"
"""The first line of a program entry, and part of its key."""

ENABLE_ENV = "XDSL_MULTI_PIPELINE_CACHE"
"""`0` (or `off`, `no`, `false`) turns the pipeline cache off for multi-run."""

SUBDIR = "pipeline"
"""Entries live in this folder of the JIT's cache folder (lowering/jit.py)."""

_PACKAGES = (
    "xdsl_multi",
    "xdsl_multi.dialects",
    "xdsl_multi.transforms",
    "xdsl_multi.lowering",
    "xdsl_multi.runtime",
    "xdsl_multi.runtime.backends",
    "xdsl_multi.tools",
)
"""Whose `.py` files make the package digest of the key."""

_DIGEST_ABOVE = 256
"""Dense constants with more bytes than this enter a module digest by a hash of their bytes."""


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0
    stores: int = 0
    bad_entries: int = 0
    """Entries found but ignored (unreadable, corrupt, another format)."""
    program_hits: int = 0
    program_stores: int = 0


@dataclass
class PipelineCache:
    """Runtime forms of programs on disk, by key (see the module docstring). `cache_dir` is the
    JIT's cache folder (default `jit.default_cache_dir()`); entries go to its `pipeline`
    folder."""

    cache_dir: Path | None = None
    stats: CacheStats = field(default_factory=CacheStats)
    _package_digest: str | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        from xdsl_multi.lowering.jit import default_cache_dir

        folder = self.cache_dir if self.cache_dir is not None else default_cache_dir()
        self.cache_dir = Path(folder)

    @staticmethod
    def from_env() -> PipelineCache | None:
        """The default cache, or None when `XDSL_MULTI_PIPELINE_CACHE` turns it off."""
        if os.environ.get(ENABLE_ENV, "1").strip().lower() in ("0", "off", "no", "false"):
            return None
        return PipelineCache()

    @property
    def folder(self) -> Path:
        assert self.cache_dir is not None
        return self.cache_dir / SUBDIR

    # -- the one call -----------------------------------------------------------------------

    def lower(
        self,
        module: ModuleOp,
        passes: Sequence[str],
        run_passes: Callable[[], object],
        *,
        source: str | None = None,
        report: Callable[[str, float], None] | None = None,
        store: bool = True,
    ) -> bool:
        """Bring `module` (in place) to the runtime form of its llvm level: from the cache, or
        by `run_passes()` (which must run `passes` on `module`), then stored (unless `store`
        is False: the caller keeps what it needs another way, as `xdsl_multi.compile`'s
        program entry). `source` is the text `module` was parsed from, unchanged since (a
        cheaper key than the module's digest). `report(event, seconds)` hears of "hit" or
        "miss" (the time to look up) and "store" (the time to build the runtime form and
        write it). Returns whether it was a hit."""
        start = time.perf_counter()
        key = self.key(module, passes, source=source)
        cached = self.load(key)
        if cached is not None:
            pipeline.replace_contents(module, cached)
            self.stats.hits += 1
            if report is not None:
                report("hit", time.perf_counter() - start)
            return True
        self.stats.misses += 1
        if report is not None:
            report("miss", time.perf_counter() - start)
        run_passes()
        start = time.perf_counter()
        to_runtime_form(module)
        if store:
            self.store(key, module)
        if report is not None:
            report("store", time.perf_counter() - start)
        return False

    # -- keys -------------------------------------------------------------------------------

    def key(self, module: ModuleOp, passes: Sequence[str], *, source: str | None = None) -> str:
        """The key of lowering `module` (or the text `source` it was parsed from) with
        `passes`, with this package and these tools."""
        h = hashlib.sha256()
        for part in (FORMAT, self.package_digest(), environment(), "\n".join(passes)):
            h.update(part.encode())
            h.update(b"\0")
        if source is not None:
            h.update(b"source\0" + source.encode())
        else:
            h.update(b"module\0" + module_digest(module).encode())
        return h.hexdigest()

    def package_digest(self) -> str:
        """A hash of every `.py` file of the package (read once per cache object)."""
        if self._package_digest is None:
            self._package_digest = package_digest()
        return self._package_digest

    def program_key(self, source: str, settings: str) -> str:
        """The key of a compiled program: `source` (MLIR text, or `module_key` of a ModuleOp)
        compiled with `settings` (the caller's text for entry, backend, mode and options),
        by this package with these tools."""
        h = hashlib.sha256()
        for part in (PROGRAM_FORMAT, self.package_digest(), environment(), settings, source):
            h.update(part.encode())
            h.update(b"\0")
        return h.hexdigest()

    def load_program(self, key: str) -> object | None:
        """The value stored under program key `key`, or None when there is none or it does
        not read back (counted in `stats.bad_entries`)."""
        try:
            data = (self.folder / f"{key}.program").read_bytes()
        except OSError:
            return None
        try:
            value = pickle.loads(_payload(data, PROGRAM_FORMAT, key))
        except Exception:  # noqa: BLE001 - any damage (or a class that changed) means: rebuild
            self.stats.bad_entries += 1
            return None
        self.stats.program_hits += 1
        return value

    def store_program(self, key: str, value: object) -> None:
        """Write `value` (plain data: it is pickled) under program key `key`; a read-only or
        full disk is not an error."""
        from xdsl_multi.lowering.jit import write_atomically

        payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        digest = hashlib.sha256(payload).hexdigest()
        header = f"{PROGRAM_FORMAT}\nkey {key}\nsha256 {digest}\nbytes {len(payload)}\n"
        try:
            write_atomically(self.folder / f"{key}.program", header.encode() + payload)
        except OSError:
            return
        self.stats.program_stores += 1

    # -- entries ----------------------------------------------------------------------------

    def path(self, key: str) -> Path:
        return self.folder / f"{key}.pipeline"

    def load(self, key: str) -> ModuleOp | None:
        """The runtime form stored under `key`, or None when there is none or it does not
        read back (then it is counted in `stats.bad_entries` and will be overwritten)."""
        try:
            data = self.path(key).read_bytes()
        except OSError:
            return None
        try:
            return decode_entry(data, key)
        except Exception:  # noqa: BLE001 - any damage means: rebuild
            self.stats.bad_entries += 1
            return None

    def store(self, key: str, module: ModuleOp) -> None:
        """Write `module` (in runtime form) under `key`; a read-only or full disk is not an
        error (the cache is an optimization)."""
        from xdsl_multi.lowering.jit import write_atomically

        data = encode_entry(module, key)
        try:
            write_atomically(self.path(key), data)
        except OSError:
            return
        self.stats.stores += 1


def lower_cached(
    module: ModuleOp,
    cache: PipelineCache | None,
    *,
    spmd: bool = False,
    options: pipeline.Options | None = None,
    source: str | None = None,
    each_pass: Callable[[str, Callable[[], None]], None] | None = None,
    report: Callable[[str, float], None] | None = None,
    store: bool = True,
) -> bool:
    """`pipeline.lower_for_runtime(module, each_pass, spmd, options)` through `cache` (None:
    no cache); `source`, `report` and `store` as in `PipelineCache.lower`. Returns whether
    it was a cache hit."""
    names = pipeline.passes_needed(module, spmd, options)

    def run() -> None:
        if each_pass is None:
            pipeline.lower_for_runtime(module, spmd=spmd, options=options)
        else:
            pipeline.lower_for_runtime(module, each_pass, spmd=spmd, options=options)

    if cache is None or not names:
        run()
        return False
    return cache.lower(module, names, run, source=source, report=report, store=store)


# ---------------------------------------------------------------------------------------------
# Keys
# ---------------------------------------------------------------------------------------------


def package_files() -> list[tuple[str, str]]:
    """(name, path) of every `.py` file of the package, nested folders included (a pass's
    folder such as transforms/form_kernels/), in a fixed order. Plain strings: every compile
    takes the digest, and pathlib's objects made 80% of its time."""
    out: list[tuple[str, str]] = []
    for name in _PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            continue
        for folder in spec.submodule_search_locations:
            found: list[str] = []
            for here, dirs, files in os.walk(folder):
                dirs[:] = [d for d in dirs if d != "__pycache__"]
                found += (os.path.join(here, f) for f in files if f.endswith(".py"))
            start = len(os.path.join(folder, ""))
            for path in sorted(found):
                out.append((f"{name}/{path[start:].replace(os.sep, '/')}", path))
    return out


def package_digest() -> str:
    """SHA-256 of the names, sizes and modification times of every `.py` file of the package:
    an edit changes the digest, and reading the stats is a fraction of reading every file (a
    warm `compile` takes this digest each time; docs/decisions.md). A new checkout of the
    same code gets new times, hence a cold cache, never a wrong hit."""
    h = hashlib.sha256()
    for name, path in package_files():
        st = os.stat(path)
        h.update(f"{name}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return h.hexdigest()


def environment() -> str:
    """The versions and the target that the stored text depends on."""
    import llvmlite
    import llvmlite.binding as llvm_binding
    import xdsl

    return "\n".join(
        [
            f"python {sys.version_info.major}.{sys.version_info.minor}",
            f"xdsl {_installed_files(xdsl.__file__, _XDSL_FILES)}",
            f"llvmlite {llvmlite.__version__}",
            "llvm " + ".".join(map(str, llvm_binding.llvm_version_info)),
            f"triple {llvm_binding.get_default_triple()}",
        ]
    )


_XDSL_FILES = (
    "__init__.py",
    "ir/core.py",
    "parser/core.py",
    "printer.py",
    "pattern_rewriter.py",
    "dialects/builtin.py",
    "dialects/llvm.py",
    "backend/llvm/convert_op.py",
)
"""Files whose path, size and modification time stand for the installed xDSL (its version
comes from the package metadata, which takes ~30 ms to read)."""


def _installed_files(init_file: str | None, names: Sequence[str]) -> str:
    if init_file is None:
        return "?"
    folder = Path(init_file).parent
    parts = [str(folder)]
    for name in names:
        try:
            st = (folder / name).stat()
            parts.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            parts.append(f"{name}:-")
    return " ".join(parts)


@dataclass(eq=False, repr=False)
class _DigestPrinter(Printer):
    """The printer, with large dense constants written as a hash of their bytes (an expanded
    splat as its element): a 64 MiB constant is not turned into text to be hashed. A compact
    splat (dialects/splat.py: the parser's, the passes' and the Builder's) is one element and
    prints as itself, `dense<2.000000e+00> : tensor<...>`, so its value and type are the key."""

    def print_attribute(self, attribute: Attribute) -> None:
        if isinstance(attribute, DenseIntOrFPElementsAttr):
            raw = attribute.data.data
            if len(raw) > _DIGEST_ABOVE:
                splat = splat_value(attribute)
                if splat is not None:
                    digest = f"splat {splat!r} {raw[: len(raw) // len(attribute)].hex()}"
                else:
                    digest = "sha256 " + hashlib.sha256(raw).hexdigest()
                self.print_string(f'dense<"{digest}"> : ')
                self.print_attribute(attribute.type)
                return
        super().print_attribute(attribute)


def module_digest(module: ModuleOp) -> str:
    """SHA-256 of the module as printed (large dense constants by digest)."""
    out = io.StringIO()
    _DigestPrinter(stream=out).print_op(module)
    return hashlib.sha256(out.getvalue().encode()).hexdigest()


def module_key(module: ModuleOp) -> str:
    """A structural digest of `module`, for program keys: every op's name, operands (by
    value number), result types, successors, properties, attributes and regions (blocks
    with their argument types and names) in walk order. Two modules with the same digest
    print alike in the generic form, so they verify alike, and have the same argument
    names. Each distinct attribute object is printed once (large dense constants by the
    hash of their bytes); it costs a fraction of printing the module."""
    h = hashlib.sha256()
    texts: dict[int, str] = {}
    keep: list[Attribute] = []  # the attributes whose id() is a key of `texts`
    numbers: dict[SSAValue, int] = {}
    blocks: dict[Block, int] = {}

    def text(attribute: Attribute) -> str:
        found = texts.get(id(attribute))
        if found is None:
            out = io.StringIO()
            _DigestPrinter(stream=out).print_attribute(attribute)
            found = texts[id(attribute)] = out.getvalue()
            keep.append(attribute)
        return found

    def number(value: SSAValue) -> str:
        return str(numbers.setdefault(value, len(numbers)))

    def table(entries: dict[str, Attribute]) -> str:
        return ",".join(f"{k}={text(v)}" for k, v in sorted(entries.items()))

    def add(op: Operation) -> None:
        parts = [
            op.name,
            " ".join(number(v) for v in op.operands),
            " ".join(f"{number(r)}:{text(r.type)}" for r in op.results),
            table(op.properties),
            table(op.attributes),
            f"{len(op.successors)}:{len(op.regions)}",
        ]
        h.update("\x1f".join(parts).encode())
        h.update(b"\x1e")
        for successor in op.successors:
            h.update(f"succ {blocks[successor]}\x1e".encode())
        for region in op.regions:
            h.update(f"region {len(region.blocks)}\x1e".encode())
            for block in region.blocks:  # numbered first: a branch may jump forward
                blocks.setdefault(block, len(blocks))
            for block in region.blocks:
                args = " ".join(
                    f"{number(a)}:{a.name_hint or ''}:{text(a.type)}" for a in block.args
                )
                h.update(f"block {args}\x1e".encode())
                for inner in block.ops:
                    add(inner)
                h.update(b"end\x1e")

    add(module)
    return h.hexdigest()


def _payload(data: bytes, fmt: str, key: str) -> bytes:
    """The payload of a program entry for `key` in format `fmt`; raises ValueError when it is
    another entry's, another format's, or damaged."""
    lines = data.split(b"\n", 4)
    if len(lines) != 5 or lines[0].decode() != fmt:
        raise ValueError("format")
    fields = dict(line.decode().partition(" ")[::2] for line in lines[1:4])
    payload = lines[4]
    if fields.get("key") != key or int(fields.get("bytes", "-1")) != len(payload):
        raise ValueError("another key, or truncated")
    if hashlib.sha256(payload).hexdigest() != fields.get("sha256"):
        raise ValueError("checksum")
    return payload


# ---------------------------------------------------------------------------------------------
# The runtime form
# ---------------------------------------------------------------------------------------------


def to_runtime_form(module: ModuleOp, triple: str | None = None) -> None:
    """Turn an llvm-level module into its runtime form, in place (see the module docstring)."""
    # deferred, like every llvm_target import here: it loads llvmlite (start-up time)
    from xdsl_multi.lowering.llvm_target import LLVM_IR_ATTR, kernels_llvm_ir, llvm_ops

    if LLVM_IR_ATTR in module.attributes:
        return
    kernels = [op for op in llvm_ops(module) if isinstance(op, llvm.FuncOp) and op.body.blocks]
    if not kernels:
        return  # host schedules only (messages and copies): kept as they are
    text = kernels_llvm_ir(module, triple=triple)
    for kernel in kernels:
        with_writes(kernel)
        block = kernel.parent_block()
        assert block is not None
        block.insert_op_before(_returning_at_once(kernel), kernel)
        kernel.detach()
    module.attributes[LLVM_IR_ATTR] = StringAttr(text)


def _returning_at_once(kernel: llvm.FuncOp) -> llvm.FuncOp:
    """`kernel` (its name, signature and attributes, `multi.writes` included) with a body that
    only returns: the machine code comes from `multi.llvm_ir`, the facts from the attributes."""
    empty = kernel.clone_without_regions()
    entry = kernel.body.blocks[0]
    block = Block(arg_types=[a.type for a in entry.args])
    for new, old in zip(block.args, entry.args, strict=True):
        new.name_hint = old.name_hint
    block.add_op(llvm.ReturnOp())
    empty.body.add_block(block)
    return empty


# ---------------------------------------------------------------------------------------------
# Entries
# ---------------------------------------------------------------------------------------------


def encode_entry(module: ModuleOp, key: str) -> bytes:
    """The bytes of an entry holding `module` (in runtime form)."""
    from xdsl_multi.lowering.llvm_target import LLVM_IR_ATTR  # deferred: loads llvmlite

    llvm_ir = module.attributes.pop(LLVM_IR_ATTR, None)
    try:
        text = str(module).encode()
    finally:
        if llvm_ir is not None:
            module.attributes[LLVM_IR_ATTR] = llvm_ir
    ir_bytes = llvm_ir.data.encode() if isinstance(llvm_ir, StringAttr) else b""
    digest = hashlib.sha256(text + b"\0" + ir_bytes).hexdigest()
    header = f"{FORMAT}\nkey {key}\nsha256 {digest}\nmodule {len(text)}\nllvm {len(ir_bytes)}\n"
    return header.encode() + text + ir_bytes


def decode_entry(data: bytes, key: str) -> ModuleOp:
    """The runtime form stored in `data`; raises ValueError (or a parse error) when the entry
    is not one for `key` in this format, or is damaged."""
    from xdsl_multi.dialects import make_context
    from xdsl_multi.dialects.parsing import parse_mlir
    from xdsl_multi.lowering.llvm_target import LLVM_IR_ATTR  # deferred: loads llvmlite

    view = memoryview(data)
    fields: dict[str, str] = {}
    position = 0
    for expected in ("format", "key", "sha256", "module", "llvm"):
        end = data.index(b"\n", position)
        line = bytes(view[position:end]).decode()
        position = end + 1
        if expected == "format":
            if line != FORMAT:
                raise ValueError(f"format {line!r}")
            continue
        name, _, value = line.partition(" ")
        if name != expected:
            raise ValueError(f"expected {expected}, found {name!r}")
        fields[name] = value
    if fields["key"] != key:
        raise ValueError("another key")
    n_text, n_ir = int(fields["module"]), int(fields["llvm"])
    text = bytes(view[position : position + n_text])
    ir_bytes = bytes(view[position + n_text :])
    if len(text) != n_text or len(ir_bytes) != n_ir:
        raise ValueError("truncated")
    if hashlib.sha256(text + b"\0" + ir_bytes).hexdigest() != fields["sha256"]:
        raise ValueError("checksum")
    module = parse_mlir(make_context(), text.decode())
    module.verify()
    if ir_bytes:
        module.attributes[LLVM_IR_ATTR] = StringAttr(ir_bytes.decode())
    return module


__all__ = [
    "ENABLE_ENV",
    "FORMAT",
    "PROGRAM_FORMAT",
    "CacheStats",
    "PipelineCache",
    "lower_cached",
    "module_digest",
    "module_key",
    "to_runtime_form",
]

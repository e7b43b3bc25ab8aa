"""The pipeline cache (xdsl_multi/compile_cache.py): hits and misses, keys, damaged entries,
the runtime form, and that a program from the cache computes what the pipeline's does (the
interpreter on the input is the oracle). No test times anything."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import llvm
from xdsl.dialects.builtin import DenseArrayBase, ModuleOp, i64
from xdsl.parser import Parser

from xdsl_multi import compile_cache
from xdsl_multi.compile_cache import (
    ENABLE_ENV,
    PipelineCache,
    decode_entry,
    encode_entry,
    lower_cached,
    module_digest,
    package_files,
    to_runtime_form,
)
from xdsl_multi.dialects import make_context
from xdsl_multi.dialects.multi import WRITES_ATTR
from xdsl_multi.lowering.jit import CACHE_DIR_ENV
from xdsl_multi.lowering.kernel_facts import written_arguments
from xdsl_multi.lowering.llvm_target import LLVM_IR_ATTR, llvm_ops
from xdsl_multi.pipeline import lower_for_runtime, passes_needed
from xdsl_multi.runtime.interpreter.interpreter import logical_signature, random_inputs, run_module
from xdsl_multi.runtime.program import Program

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.mlir"))

ROWS = """\
#s = #multi.shard<["CPU:0", "CPU:1"], axis = 0>
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<8x16xf32, #s>) -> tensor<1x16xf32, #multi.on<["CPU:0", "CPU:1"]>> {
    %c = arith.constant dense<SCALE> : tensor<8x16xf32, #s>
    %y = arith.mulf %x, %c : tensor<8x16xf32, #s>
    %r = tg.reduce add %y [0] : tensor<8x16xf32, #s> -> tensor<1x16xf32, #multi.on<["CPU:0", "CPU:1"]>>
    func.return %r : tensor<1x16xf32, #multi.on<["CPU:0", "CPU:1"]>>
  }
}
"""


def rows(scale: str = "2.0") -> str:
    return ROWS.replace("SCALE", scale)


def parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> PipelineCache:
    """A pipeline cache and a JIT disk cache in a fresh folder."""
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "cache"))
    return PipelineCache(tmp_path / "cache")


def run_compiled(module: ModuleOp, inputs: list[np.ndarray]) -> list[np.ndarray]:
    with Program(module) as program:
        return program(inputs)


def entries(cache: PipelineCache) -> list[Path]:
    return sorted(cache.folder.glob("*.pipeline")) if cache.folder.exists() else []


# ---------------------------------------------------------------------------------------------
# Hits and misses
# ---------------------------------------------------------------------------------------------


def test_miss_stores_then_hit_loads(cache: PipelineCache) -> None:
    text = rows()
    first = parse(text)
    assert lower_cached(first, cache, source=text) is False
    assert len(entries(cache)) == 1 and cache.stats.stores == 1
    second = parse(text)
    assert lower_cached(second, cache, source=text) is True
    assert cache.stats.hits == 1
    # the hit gives the very module the miss left behind
    assert str(second) == str(first)
    assert second.attributes[LLVM_IR_ATTR] == first.attributes[LLVM_IR_ATTR]


def test_hit_by_module_digest_without_the_source(cache: PipelineCache) -> None:
    assert lower_cached(parse(rows()), cache) is False
    assert lower_cached(parse(rows()), cache) is True
    # the source text is another key: a miss the first time
    assert lower_cached(parse(rows()), cache, source=rows()) is False


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_results_identical_with_and_without_the_cache(
    path: Path, cache: PipelineCache
) -> None:
    text = path.read_text()
    original = parse(text)
    inputs = random_inputs(logical_signature(original), 3)
    expected = run_module(original, inputs)

    plain = parse(text)
    lower_for_runtime(plain)
    without = run_compiled(plain, inputs)

    missed, hit = parse(text), parse(text)
    assert lower_cached(missed, cache, source=text) is False
    assert lower_cached(hit, cache, source=text) is True
    for module in (missed, hit):
        got = run_compiled(module, inputs)
        assert len(got) == len(expected)
        for g, w, e in zip(got, without, expected, strict=True):
            np.testing.assert_array_equal(g, w)  # the same kernels: the same bits
            np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-4)


def test_spmd_mode_is_another_entry(cache: PipelineCache) -> None:
    text = rows()
    assert lower_cached(parse(text), cache, source=text) is False
    assert lower_cached(parse(text), cache, source=text, spmd=True) is False
    assert len(entries(cache)) == 2
    module = parse(text)
    assert lower_cached(module, cache, source=text, spmd=True) is True
    inputs = random_inputs(logical_signature(parse(text)), 0)
    np.testing.assert_allclose(
        run_compiled(module, inputs)[0], run_module(parse(text), inputs)[0], rtol=1e-5
    )


# ---------------------------------------------------------------------------------------------
# Keys
# ---------------------------------------------------------------------------------------------


def test_key_changes_with_the_input_and_the_passes(cache: PipelineCache) -> None:
    a, b = parse(rows("2.0")), parse(rows("3.0"))
    names = passes_needed(a)
    assert cache.key(a, names) == cache.key(parse(rows("2.0")), names)
    assert cache.key(a, names) != cache.key(b, names)
    assert cache.key(a, names, source=rows("2.0")) != cache.key(a, names, source=rows("3.0"))
    assert cache.key(a, names, source=rows()) != cache.key(a, names)
    assert cache.key(a, names) != cache.key(a, names[1:])
    assert cache.key(a, names) != cache.key(a, (*names[:3], "form-kernels{spmd=true}"))


def test_module_digest_of_large_constants() -> None:
    """Large dense constants enter the digest by their bytes: splats of different values,
    a splat and a constant that is not one, all differ."""
    template = (
        "func.func @main() -> tensor<64x64xf32> {\n"
        "  %c = arith.constant dense<VALUE> : tensor<64x64xf32>\n"
        "  func.return %c : tensor<64x64xf32>\n}\n"
    )
    values = ["1.0", "2.0", "-0.0", "0.0"]
    digests = {module_digest(parse(template.replace("VALUE", v))) for v in values}
    assert len(digests) == len(values)
    ramp = "[" + ", ".join(
        "[" + ", ".join(str(float(i * 64 + j)) for j in range(64)) + "]" for i in range(64)
    ) + "]"
    assert module_digest(parse(template.replace("VALUE", ramp))) not in digests
    assert module_digest(parse(template.replace("VALUE", "1.0"))) == module_digest(
        parse(template.replace("VALUE", "1.0"))
    )


# ---------------------------------------------------------------------------------------------
# Damaged entries
# ---------------------------------------------------------------------------------------------


def _damage_variants(data: bytes) -> dict[str, bytes]:
    header_end = data.index(b"module ")
    return {
        "garbage": b"\x00\xffnot an entry",
        "empty": b"",
        "truncated": data[: len(data) // 2],
        "flipped byte": data[:-10] + bytes([data[-10] ^ 1]) + data[-9:],
        "another format": data.replace(b"pipeline cache 1", b"pipeline cache 0", 1),
        "bad header": data[:header_end] + b"module x\n" + data[header_end:],
    }


@pytest.mark.parametrize(
    "damage", ["garbage", "empty", "truncated", "flipped byte", "another format", "bad header"]
)
def test_a_damaged_entry_is_ignored_and_rebuilt(cache: PipelineCache, damage: str) -> None:
    text = rows()
    good = parse(text)
    lower_cached(good, cache, source=text)
    [entry] = entries(cache)
    entry.write_bytes(_damage_variants(entry.read_bytes())[damage])

    module = parse(text)
    assert lower_cached(module, cache, source=text) is False  # a miss, never a crash
    assert cache.stats.bad_entries == 1
    assert str(module) == str(good)
    # rebuilt: the next lookup hits
    assert lower_cached(parse(text), cache, source=text) is True


def test_an_entry_under_another_key_is_not_used(cache: PipelineCache) -> None:
    text = rows()
    lower_cached(parse(text), cache, source=text)
    [entry] = entries(cache)
    other_key = "0" * 64
    (cache.folder / f"{other_key}.pipeline").write_bytes(entry.read_bytes())
    assert cache.load(other_key) is None
    assert cache.stats.bad_entries == 1


def test_concurrent_writers_leave_a_whole_entry(cache: PipelineCache) -> None:
    text = rows()
    module = parse(text)
    lower_cached(module, cache, source=text)
    [entry] = entries(cache)
    key = entry.name.removesuffix(".pipeline")
    threads = [threading.Thread(target=cache.store, args=(key, module)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert entries(cache) == [entry]
    assert not [p for p in cache.folder.iterdir() if p.name.startswith(".tmp-")]
    assert cache.load(key) is not None


def test_an_unwritable_cache_folder_is_no_error(tmp_path: Path, monkeypatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "jit"))
    cache = PipelineCache(blocker)
    text = rows()
    module = parse(text)
    assert lower_cached(module, cache, source=text) is False
    assert cache.stats.stores == 0
    inputs = random_inputs(logical_signature(parse(text)), 1)
    np.testing.assert_allclose(
        run_compiled(module, inputs)[0], run_module(parse(text), inputs)[0], rtol=1e-5
    )


# ---------------------------------------------------------------------------------------------
# The runtime form
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_stand_ins_write_what_the_kernels_write(path: Path) -> None:
    module = parse(path.read_text())
    lower_for_runtime(module)
    kernels = {
        op.sym_name.data: written_arguments(op)
        for op in llvm_ops(module)
        if isinstance(op, llvm.FuncOp) and op.body.blocks
    }
    to_runtime_form(module)
    stand_ins = {
        op.sym_name.data: op
        for op in llvm_ops(module)
        if isinstance(op, llvm.FuncOp) and op.body.blocks
    }
    assert stand_ins.keys() == kernels.keys()
    for name, op in stand_ins.items():
        assert written_arguments(op) == kernels[name], name
        assert len(op.body.blocks) == 1 and len(op.body.blocks[0].ops) <= 2 + len(kernels[name])
        assert f'@"{name}"' in module.attributes[LLVM_IR_ATTR].data or f"@{name}(" in (
            module.attributes[LLVM_IR_ATTR].data
        )


def test_the_runtime_form_carries_the_writes_as_an_attribute() -> None:
    """The runtime form's kernels only return; which arguments they write is `multi.writes`,
    and the runtime reads it (not the body), also after an entry is read back."""
    module = parse((ROOT / "examples" / "megatron_mlp.mlir").read_text())
    lower_for_runtime(module)
    kernels = [op for op in llvm_ops(module) if isinstance(op, llvm.FuncOp) and op.body.blocks]
    want = {op.sym_name.data: written_arguments(op) for op in kernels}
    assert any(want.values())
    to_runtime_form(module)
    back = decode_entry(encode_entry(module, "k"), "k")
    for op in llvm_ops(back):
        if isinstance(op, llvm.FuncOp) and op.body.blocks:
            assert [type(o) for o in op.body.blocks[0].ops] == [llvm.ReturnOp]
            writes = op.attributes[WRITES_ATTR]
            assert isinstance(writes, DenseArrayBase)
            assert frozenset(writes.get_values()) == want[op.sym_name.data]
            assert written_arguments(op) == want[op.sym_name.data]
    # taken at its word: an attribute that says otherwise than the body wins
    kernel = next(op for op in kernels if want[op.sym_name.data])
    kernel.attributes[WRITES_ATTR] = DenseArrayBase.from_list(i64, [])
    assert written_arguments(kernel) == frozenset()


def test_entries_round_trip() -> None:
    module = parse(rows())
    lower_for_runtime(module)
    to_runtime_form(module)
    back = decode_entry(encode_entry(module, "k"), "k")
    assert str(back) == str(module)
    assert back.attributes[LLVM_IR_ATTR] == module.attributes[LLVM_IR_ATTR]
    with pytest.raises(ValueError):
        decode_entry(encode_entry(module, "k"), "another")


# ---------------------------------------------------------------------------------------------
# multi-run
# ---------------------------------------------------------------------------------------------


def _multi_run(path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xdsl_multi.tools.multi_run", str(path), "--random-inputs",
         "--time", "--runs", "1"],
        check=False, capture_output=True, text=True, env={**os.environ, **env}, timeout=300,
    )  # fmt: skip


def test_multi_run_time_says_miss_then_hit(tmp_path: Path) -> None:
    prog = tmp_path / "rows.mlir"
    prog.write_text(rows())
    env = {CACHE_DIR_ENV: str(tmp_path / "cache")}
    first, second = _multi_run(prog, env), _multi_run(prog, env)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert "time: pipeline cache miss" in first.stderr
    assert "time: pipeline cache store" in first.stderr
    assert "time: devidx-simplify" in first.stderr
    assert "time: pipeline cache hit" in second.stderr
    assert "time: devidx-simplify 0.000000 s (skipped: pipeline cache hit)" in second.stderr
    assert first.stdout == second.stdout
    off = _multi_run(prog, {**env, ENABLE_ENV: "0"})
    assert off.returncode == 0 and "pipeline cache" not in off.stderr
    assert off.stdout == first.stdout


def test_a_program_without_kernels(cache: PipelineCache) -> None:
    """Only host schedules (here a copy of the argument): cached as they are."""
    text = (
        "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  func.return %x : tensor<4xf32>\n}\n"
    )
    first, second = parse(text), parse(text)
    assert lower_cached(first, cache, source=text) is False
    assert not [op for op in llvm_ops(first) if isinstance(op, llvm.FuncOp)]
    assert lower_cached(second, cache, source=text) is True
    assert LLVM_IR_ATTR not in second.attributes
    x = np.arange(4, dtype=np.float32)
    for module in (first, second):
        np.testing.assert_array_equal(run_compiled(module, [x])[0], x)


def test_passes_with_options_are_keyed_by_their_options(cache: PipelineCache) -> None:
    text = rows()
    ring = {"multi-to-devidx": "allreduce=ring ring-threshold=0"}
    naive = {"multi-to-devidx": "allreduce=naive"}
    assert lower_cached(parse(text), cache, options=ring, source=text) is False
    assert lower_cached(parse(text), cache, options=naive, source=text) is False
    hit = parse(text)
    assert lower_cached(hit, cache, options=ring, source=text) is True
    inputs = random_inputs(logical_signature(parse(text)), 2)
    np.testing.assert_allclose(
        run_compiled(hit, inputs)[0], run_module(parse(text), inputs)[0], rtol=1e-5
    )


def test_the_key_covers_the_nested_pass_folders() -> None:
    """Every `.py` file of the package is in the key, those in a pass's folder too: an entry
    stored before a change to multi-to-devidx or form-kernels must not be hit after it (it was,
    while the key read only each package folder's top level)."""
    root = Path(__file__).resolve().parents[1]
    names = {name for name, _ in package_files()}
    for nested in (
        "transforms/multi_to_devidx/multi_to_devidx.py",
        "transforms/form_kernels/tensor_elements.py",
        "runtime/interpreter/interpreter.py",
    ):
        assert (root / nested).is_file(), nested
        top, rest = nested.split("/", 1)
        assert f"xdsl_multi.{top}/{rest}" in names, nested


def test_the_package_digest_changes_with_an_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The digest reads each file's size and modification time (not its bytes): an edit of
    the same size still changes it, and an untouched package gives the same digest."""
    source = tmp_path / "rule.py"
    source.write_text("X = 1\n")
    monkeypatch.setattr(compile_cache, "package_files", lambda: [("xdsl_multi/rule.py", source)])
    before = compile_cache.package_digest()
    assert compile_cache.package_digest() == before
    stat = source.stat()
    source.write_text("X = 2\n")
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert compile_cache.package_digest() != before

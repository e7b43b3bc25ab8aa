"""The JIT (lowering/jit.py): argument checks, LLVM IR text input, the on-disk object cache
(including concurrent writers), the cache directory setting."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from kernel_jit import aligned, aligned_copy, lower

from xdsl_multi.dialects import make_context
from xdsl_multi.dialects.parsing import parse_mlir
from xdsl_multi.lowering.jit import (
    CACHE_DIR_ENV,
    KernelArgumentError,
    KernelCache,
    default_cache_dir,
    full_width_vectors,
    opt_level,
    parameter_types,
    split_kernels,
)
from xdsl_multi.lowering.llvm_target import kernels_llvm_ir, translate_kernels
from xdsl_multi.pipeline import MultiToLLVM

AXPY = """
func.func @axpy(%x: memref<32xf32>, %y: memref<32xf32>, %n: index) attributes {multi.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<32xf32>
    %w = memref.load %y[%i] : memref<32xf32>
    %a = arith.mulf %v, %two : f32
    %r = arith.addf %a, %w : f32
    memref.store %r, %y[%i] : memref<32xf32>
  }
  func.return
}
"""


@pytest.fixture(scope="module")
def axpy():
    cache = KernelCache(disk=False)
    return cache.compile_kernels(lower(AXPY))["axpy"]


def _x() -> np.ndarray:
    return aligned_copy(np.arange(32, dtype=np.float32))


def test_call_with_scalar_argument(axpy) -> None:
    x, y = _x(), aligned(32, np.float32)
    axpy(x, y, 10)
    np.testing.assert_array_equal(y[:10], 2 * x[:10])
    np.testing.assert_array_equal(y[10:], 0)
    assert axpy.address > 0


@pytest.mark.parametrize(
    ("make_args", "message"),
    [
        (lambda: (_x(),), "expected 3 arguments, got 1"),
        (lambda: (_x().astype(np.float64), aligned(32, np.float32), 4), "expected dtype float32"),
        (lambda: (aligned(16, np.float32), aligned(32, np.float32), 4), "expected shape"),
        (lambda: (aligned(64, np.float32)[::2], aligned(32, np.float32), 4), "C-contiguous"),
        (lambda: (aligned(33, np.float32)[1:], aligned(32, np.float32), 4), "64-byte aligned"),
        (lambda: ([0.0] * 32, aligned(32, np.float32), 4), "expected a numpy array"),
        (lambda: (_x(), aligned(32, np.float32), 4.5), "expected an integer"),
        (lambda: (_x(), aligned(32, np.float32), _x()), "expected a scalar"),
    ],
)
def test_bad_arguments_are_refused(axpy, make_args, message: str) -> None:
    with pytest.raises(KernelArgumentError, match=message):
        axpy(*make_args())


def test_llvm_ir_text_input() -> None:
    text = str(translate_kernels(lower(AXPY)))
    common, kernels = split_kernels(text)
    assert [k.name for k in kernels] == ["axpy"] and "define" not in common
    kernel = KernelCache(disk=False).compile_kernels(text)["axpy"]
    x, y = _x(), aligned(32, np.float32)
    kernel(x, y, 32)  # without the kernel-level signature only layout and kinds are checked
    np.testing.assert_array_equal(y, 2 * x)


def test_disk_cache_serves_a_new_process_cache(tmp_path: Path) -> None:
    module = lower(AXPY)
    first = KernelCache(tmp_path)
    first.compile_kernels(module)
    assert first.stats.compiled == 1
    assert len(list(tmp_path.glob("*.o"))) == 1
    second = KernelCache(tmp_path)
    kernel = second.compile_kernels(module)["axpy"]
    assert second.stats.disk_hits == 1 and second.stats.compiled == 0
    x, y = _x(), aligned(32, np.float32)
    kernel(x, y, 32)
    np.testing.assert_array_equal(y, 2 * x)


def test_concurrent_writers_leave_one_whole_file(tmp_path: Path) -> None:
    target = tmp_path / "k.o"
    payloads = [bytes([i]) * 100_000 for i in range(8)]
    threads = [threading.Thread(target=KernelCache._store, args=(target, p)) for p in payloads]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert target.read_bytes() in payloads
    assert [p.name for p in tmp_path.iterdir()] == ["k.o"]


def test_cache_dir_setting(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "here"))
    assert default_cache_dir() == tmp_path / "here"
    monkeypatch.delenv(CACHE_DIR_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_cache_dir() == tmp_path / "xdsl-multi"


def test_llvm_text_is_the_same_in_every_process() -> None:
    """The cache key is the kernel's LLVM IR text: it must not depend on the hash seed."""
    script = (
        "import sys; sys.path[:0] = ['test/support']\n"
        "from kernel_jit import lower\n"
        "from xdsl_multi.lowering.llvm_target import translate_kernels\n"
        "from test_codegen_kernels import ROW_NORM\n"
        "print(translate_kernels(lower(ROW_NORM)))\n"
    )
    root = Path(__file__).resolve().parents[2]
    texts = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        env["PYTHONPATH"] = f"{root / 'test' / 'lowering'}:{env.get('PYTHONPATH', '')}"
        run = subprocess.run(
            [sys.executable, "-c", script],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert run.returncode == 0, run.stderr
        texts.add(run.stdout)
    assert len(texts) == 1


def _chain_of_loops(loops: int, length: int = 16) -> str:
    """A kernel-level kernel of `loops` loops in a row over one array of `length` floats:
    x = x * 2 + 1, each."""
    body = "\n".join(
        f"""  scf.for %i{k} = %c0 to %c16 step %c1 {{
    %v{k} = memref.load %x[%i{k}] : memref<{length}xf32>
    %a{k} = arith.mulf %v{k}, %two : f32
    %r{k} = arith.addf %a{k}, %one : f32
    memref.store %r{k}, %x[%i{k}] : memref<{length}xf32>
  }}"""
        for k in range(loops)
    )
    return f"""
func.func @chain(%x: memref<{length}xf32>) attributes {{multi.kernel}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant {length} : index
  %two = arith.constant 2.0 : f32
  %one = arith.constant 1.0 : f32
{body}
  func.return
}}
"""


@pytest.mark.parametrize(("loops", "level"), [(3, 3), (16, 3), (17, 2)])
def test_a_chain_of_many_loops_is_optimized_at_o2_and_still_right(loops: int, level: int) -> None:
    module = lower(_chain_of_loops(loops))
    (kernel,) = split_kernels(str(translate_kernels(module)))[1]
    assert opt_level(kernel.definition) == level
    chain = KernelCache(disk=False).compile_kernels(module)["chain"]
    x = aligned_copy(np.linspace(-1, 1, 16, dtype=np.float32))
    want = x.astype(np.float64)
    for _ in range(loops):
        want = want * 2 + 1
    chain(x)
    np.testing.assert_allclose(x, want.astype(np.float32), rtol=1e-6)


def test_a_chain_of_many_loops_is_vectorized_but_not_unrolled_and_still_right() -> None:
    """A chain at O2 (BENCH C1) runs without LLVM's unroller (jit.LOOP_UNROLLING): each of
    its loops over 1024 floats stays a loop (of 4 interleaved vector loads: 17 phis here, so
    jit.many_loops keeps interleaving) where the unroller made straight code of 64 loads, for
    LLVM's time and no speed; and the chain still computes x * 2 + 1, 17 times."""
    module = lower(_chain_of_loops(17, 1024))
    text = str(translate_kernels(module))
    (kernel,) = split_kernels(text)[1]
    assert opt_level(kernel.definition) == 2
    cache = KernelCache(disk=False)
    optimized = cache.optimized_ir(text)
    assert optimized.count(" = phi ") >= 17, optimized  # every loop still a loop
    assert 17 <= optimized.count("load <") <= 4 * 17, optimized
    chain = cache.compile_kernels(module)["chain"]
    x = aligned_copy(np.linspace(-1, 1, 1024, dtype=np.float32))
    want = x.astype(np.float64)
    for _ in range(17):
        want = want * 2 + 1
    chain(x)
    np.testing.assert_allclose(x, want.astype(np.float32), rtol=1e-6)


def test_parameter_types_are_read_off_the_define_line() -> None:
    assert parameter_types('define void @"k"(ptr noalias %".1", i64 %".2", float %"3") {') == [
        "ptr",
        "i64",
        "float",
    ]
    assert parameter_types('define void @"k"() nounwind\n{') == []
    assert parameter_types('define void @"k"(<4 x float> %".1") {') is None


def test_object_code_from_disk_needs_no_llvm_ir_and_runs_right(tmp_path: Path) -> None:
    text = str(translate_kernels(lower(AXPY)))
    KernelCache(tmp_path).compile_kernels(text)
    warm = KernelCache(tmp_path)
    axpy = warm.compile_kernels(text)["axpy"]
    assert warm.stats.disk_hits == 1 and warm.stats.compiled == 0
    assert [a.llvm_type for a in axpy.args] == ["ptr", "ptr", "i64"]
    x, y = _x(), aligned(32, np.float32)
    axpy(x, y, 32)
    np.testing.assert_array_equal(y, 2 * x)


def test_full_width_vectors_only_changes_avx512_cpus() -> None:
    assert full_width_vectors("+avx2,+fma,-avx512f") == "+avx2,+fma,-avx512f"
    assert full_width_vectors("+avx2,+avx512f") == "+avx2,+avx512f,-prefer-256-bit"


MATMUL_64 = """
#s = #multi.shard<["CPU:0", "CPU:1"], axis = 0>
#on = #multi.on<["CPU:0", "CPU:1"]>
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%a: tensor<64x64xf32, #s>, %b: tensor<64x64xf32, #on>) -> tensor<64x64xf32, #s> {
    %ar = tg.reshape %a : tensor<64x64xf32, #s> -> tensor<64x1x64xf32, #s>
    %ae = tg.expand %ar : tensor<64x1x64xf32, #s> -> tensor<64x64x64xf32, #s>
    %bt = tg.permute %b [1, 0] : tensor<64x64xf32, #on> -> tensor<64x64xf32, #on>
    %br = tg.reshape %bt : tensor<64x64xf32, #on> -> tensor<1x64x64xf32, #on>
    %be = tg.expand %br : tensor<1x64x64xf32, #on> -> tensor<64x64x64xf32, #on>
    %bs = multi.copy %be : tensor<64x64x64xf32, #on> -> tensor<64x64x64xf32, #s>
    %p = arith.mulf %ae, %bs : tensor<64x64x64xf32, #s>
    %r = tg.reduce add %p [2] : tensor<64x64x64xf32, #s> -> tensor<64x64x1xf32, #s>
    %c = tg.reshape %r : tensor<64x64x1xf32, #s> -> tensor<64x64xf32, #s>
    func.return %c : tensor<64x64xf32, #s>
  }
}
"""


def test_a_matmul_register_tile_is_in_zmm_registers_without_spills() -> None:
    """On an AVX-512 CPU the 8 x 32 register tile of a matmul is 16 zmm accumulators. LLVM's
    default tuning for these CPUs (256-bit vectors) made it 32 ymm accumulators that spilled
    to the stack in the innermost loop: a quarter of the machine's sgemm speed (BENCH W4)."""
    cache = KernelCache(disk=False)
    if "+avx512f" not in cache.features.split(","):
        pytest.skip("the host CPU has no AVX-512")
    module = parse_mlir(make_context(), MATMUL_64)
    MultiToLLVM().apply(make_context(), module)
    common, kernels = split_kernels(kernels_llvm_ir(module, triple=cache.triple))
    assembly = cache.assembly(common + "\n" + kernels[0].definition)
    fmas = [line for line in assembly.splitlines() if "vfmadd231ps" in line]
    assert len(fmas) >= 16 and all("zmm" in line for line in fmas), fmas
    assert not any("(%rsp)" in line for line in assembly.splitlines() if "vmovup" in line)


ROW_SUMS = """
func.func @row_sums(%x: memref<4x1024xf32>, %s: memref<4xf32>) attributes {multi.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  scf.for %r = %c0 to %c4 step %c1 {
    %sum = scf.for %i = %c0 to %c1024 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %x[%r, %i] : memref<4x1024xf32>
      %w = arith.mulf %v, %v fastmath<reassoc,contract> : f32
      %a = arith.addf %acc, %w fastmath<reassoc,contract> : f32
      scf.yield %a : f32
    }
    memref.store %sum, %s[%r] : memref<4xf32>
  }
  func.return
}
"""

SUM = """
func.func @total(%x: memref<4096xf32>, %s: memref<1xf32>) attributes {multi.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %i = %c0 to %c4096 step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %x[%i] : memref<4096xf32>
    %a = arith.addf %acc, %v fastmath<reassoc,contract> : f32
    scf.yield %a : f32
  }
  memref.store %sum, %s[%c0] : memref<1xf32>
  func.return
}
"""


def test_a_loop_nest_is_vectorized_but_not_unrolled_and_still_right() -> None:
    """LLVM's unroller does not run (jit.LOOP_UNROLLING): the vectorized inner loop of
    1024-element row sums stays a loop of a few interleaved vector loads (it was fully
    unrolled, 64 of them: the machine code and LLVM's time of BENCH W2 and W7)."""
    cache = KernelCache(disk=False)
    nest = lower(ROW_SUMS)
    text = str(translate_kernels(nest))
    (kernel,) = split_kernels(text)[1]
    assert opt_level(kernel.definition) == 3
    optimized = cache.optimized_ir(text)
    assert 1 <= optimized.count("load <") <= 8, optimized
    assert " = phi " in optimized  # still a loop
    row_sums = cache.compile_kernels(nest)["row_sums"]
    x = aligned_copy(np.linspace(-1, 1, 4096, dtype=np.float32).reshape(4, 1024))
    s = aligned(4, np.float32)
    row_sums(x, s)
    np.testing.assert_allclose(s, np.sum(x.astype(np.float64) ** 2, axis=1), rtol=1e-5)


def test_a_long_sum_keeps_its_accumulators_without_the_unroller_and_is_right() -> None:
    """A kernel of one loop (a long sum, BENCH W3) is not unrolled either: one loop of the
    vectorizer's interleaved vector loads (each its own accumulator), which sums memory as
    fast as the unrolled loop did (jit.LOOP_UNROLLING), and computes the sum."""
    cache = KernelCache(disk=False)
    module = lower(SUM)
    optimized = cache.optimized_ir(str(translate_kernels(module)))
    assert 2 <= optimized.count("load <") <= 8, optimized  # interleaved, not unrolled
    assert " = phi <" in optimized  # vector accumulators carried by a loop
    total = cache.compile_kernels(module)["total"]
    x = aligned_copy(np.random.default_rng(3).standard_normal(4096).astype(np.float32))
    s = aligned(1, np.float32)
    total(x, s)
    np.testing.assert_allclose(s[0], np.sum(x.astype(np.float64)), rtol=1e-4, atol=1e-3)


def _scaled(name: str, factor: float) -> str:
    """A kernel like AXPY: y = x * factor + y (distinct factors: distinct kernels)."""
    return AXPY.replace("@axpy", f"@{name}").replace("2.0 : f32", f"{factor} : f32")


def _check_scaled(kernels: dict, name: str, factor: float) -> None:
    x, y = _x(), aligned_copy(np.ones(32, dtype=np.float32))
    kernels[name](x, y, 32)
    np.testing.assert_array_equal(y, x * np.float32(factor) + 1)


def test_new_kernels_of_a_call_share_one_object_and_a_new_cache_loads_it(tmp_path: Path) -> None:
    """The kernels a call compiles are one LLVM module (one object, GROUP.o, with a KEY.ref
    per kernel naming it); a new cache (a new process) loads that object for all of them
    without LLVM, and every kernel computes what it did."""
    module = lower(_scaled("k2", 2.0) + _scaled("k3", 3.0) + _scaled("k5", 5.0))
    cold = KernelCache(tmp_path)
    kernels = cold.compile_kernels(module)
    assert cold.stats.compiled == 3 and cold.stats.disk_hits == 0
    assert len(list(tmp_path.glob("*.o"))) == 1 and len(list(tmp_path.glob("*.ref"))) == 3
    assert len({kernels[n].address for n in ("k2", "k3", "k5")}) == 3
    for name, factor in (("k2", 2.0), ("k3", 3.0), ("k5", 5.0)):
        _check_scaled(kernels, name, factor)

    warm = KernelCache(tmp_path)
    kernels = warm.compile_kernels(module)
    assert warm.stats.compiled == 0 and warm.stats.disk_hits == 3
    assert warm.stats.optimize_s == 0.0
    for name, factor in (("k2", 2.0), ("k3", 3.0), ("k5", 5.0)):
        _check_scaled(kernels, name, factor)


def test_a_kernel_of_an_earlier_group_is_shared_by_a_later_call(tmp_path: Path) -> None:
    """A kernel compiled in one call's group serves a later call that needs it with a new
    kernel: from the engine in the same cache, from the group's object in a new one."""
    first = lower(_scaled("k2", 2.0) + _scaled("k3", 3.0))
    second = lower(_scaled("again3", 3.0) + _scaled("k7", 7.0))
    cache = KernelCache(tmp_path)
    cache.compile_kernels(first)
    kernels = cache.compile_kernels(second)
    assert cache.stats.compiled == 3 and cache.stats.memory_hits == 1
    _check_scaled(kernels, "again3", 3.0)
    _check_scaled(kernels, "k7", 7.0)

    fresh = KernelCache(tmp_path)  # k3 from the first group's object, k7 from its own
    kernels = fresh.compile_kernels(second)
    assert fresh.stats.compiled == 0 and fresh.stats.disk_hits == 2
    _check_scaled(kernels, "again3", 3.0)
    _check_scaled(kernels, "k7", 7.0)
    kernels = fresh.compile_kernels(first)  # k2 came with k3's object: no second load
    assert (fresh.stats.compiled, fresh.stats.disk_hits, fresh.stats.memory_hits) == (0, 2, 2)
    _check_scaled(kernels, "k2", 2.0)
    _check_scaled(kernels, "k3", 3.0)


def test_the_engine_is_made_with_the_first_module_whatever_it_is(tmp_path: Path) -> None:
    """The MCJIT engine is made with a cache's first module (no empty module to compile):
    an object from disk first, then new kernels, in one cache; new kernels first, then an
    object from disk, in another; assembly and the optimized IR before and after. Every
    kernel computes what it did."""
    KernelCache(tmp_path).compile_kernels(lower(_scaled("k2", 2.0)))
    from_disk_first = KernelCache(tmp_path)
    assert from_disk_first.assembly(str(translate_kernels(lower(_scaled("k9", 9.0))))).strip()
    kernels = from_disk_first.compile_kernels(lower(_scaled("k2", 2.0)))
    assert from_disk_first.stats.disk_hits == 1 and from_disk_first.stats.compiled == 0
    kernels.update(from_disk_first.compile_kernels(lower(_scaled("k3", 3.0))))
    assert from_disk_first.stats.compiled == 1
    _check_scaled(kernels, "k2", 2.0)
    _check_scaled(kernels, "k3", 3.0)
    assert " = phi " in from_disk_first.optimized_ir(str(translate_kernels(lower(AXPY))))

    compiled_first = KernelCache(tmp_path)
    kernels = compiled_first.compile_kernels(lower(_scaled("k5", 5.0)))
    kernels.update(compiled_first.compile_kernels(lower(_scaled("k3", 3.0))))
    kernels.update(compiled_first.compile_kernels(lower(_scaled("k2", 2.0))))
    assert compiled_first.stats.compiled == 1 and compiled_first.stats.disk_hits == 2
    for name, factor in (("k5", 5.0), ("k3", 3.0), ("k2", 2.0)):
        _check_scaled(kernels, name, factor)
    assert compiled_first.assembly(str(translate_kernels(lower(AXPY)))).strip()

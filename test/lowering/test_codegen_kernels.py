"""convert-to-llvm + JIT on kernel-shaped loop nests (the form-kernels contract), against numpy:
a loop-carried sum (and that LLVM vectorizes it), a row reduction with an epilogue, a 2-D nest
with index arithmetic, scf.if with results, memref.alloca scratch, a 64x64 matmul."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_jit import aligned, aligned_copy, compile_text, lower

from xdsl_multi.lowering.jit import KernelCache
from xdsl_multi.lowering.llvm_target import translate_kernels


@pytest.fixture(scope="module")
def cache() -> KernelCache:
    return KernelCache(disk=False)


def _rand(shape: tuple[int, ...], seed: int = 0, dtype: type = np.float32) -> np.ndarray:
    return aligned_copy(np.random.default_rng(seed).normal(size=shape).astype(dtype))


SUM = """
func.func @sum(%x: memref<4096xf32>, %out: memref<1xf32>) attributes {multi.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 4096 : index
  %zero = arith.constant 0.0 : f32
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %x[%i] : memref<4096xf32>
    %a = arith.addf %acc, %v : f32
    scf.yield %a : f32
  }
  memref.store %s, %out[%c0] : memref<1xf32>
  func.return
}
"""


def test_loop_carried_sum(cache: KernelCache) -> None:
    x = _rand((4096,))
    out = aligned(1, np.float32)
    compile_text(SUM, cache)["sum"](x, out)
    np.testing.assert_allclose(out[0], x.astype(np.float64).sum(), rtol=1e-5, atol=1e-3)


def test_sum_is_vectorized(cache: KernelCache) -> None:
    """The reassoc flag lets LLVM vectorize the reduction: the optimized IR works on float
    vectors and the machine code uses ymm/zmm registers."""
    ir_text = str(translate_kernels(lower(SUM)))
    assert "fadd contract reassoc float" in ir_text
    optimized = cache.optimized_ir(ir_text)
    assert "x float>" in optimized, optimized
    assembly = cache.assembly(ir_text)
    assert "ymm" in assembly or "zmm" in assembly


MAX = """
func.func @max(%x: memref<4096xf32>, %out: memref<1xf32>) attributes {multi.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 4096 : index
  %init = arith.constant 0xFF800000 : f32
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (f32) {
    %v = memref.load %x[%i] : memref<4096xf32>
    %a = arith.maximumf %acc, %v : f32
    scf.yield %a : f32
  }
  memref.store %s, %out[%c0] : memref<1xf32>
  func.return
}
"""


def test_max_reduction_propagates_nan(cache: KernelCache) -> None:
    kernel = compile_text(MAX, cache)["max"]
    x = _rand((4096,), seed=3)
    out = aligned(1, np.float32)
    kernel(x, out)
    assert out[0] == x.max()
    x[1234] = np.nan
    kernel(x, out)
    assert np.isnan(out[0])


ROW_NORM = """
func.func @row_norm(%x: memref<16x256xf32>, %y: memref<16x256xf32>) attributes {multi.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = arith.constant 16 : index
  %cols = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 256.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  scf.for %i = %c0 to %rows step %c1 {
    %s, %q = scf.for %j = %c0 to %cols step %c1 iter_args(%s0 = %zero, %q0 = %zero) -> (f32, f32) {
      %v = memref.load %x[%i, %j] : memref<16x256xf32>
      %s1 = arith.addf %s0, %v : f32
      %v2 = arith.mulf %v, %v : f32
      %q1 = arith.addf %q0, %v2 : f32
      scf.yield %s1, %q1 : f32, f32
    }
    %mean = arith.divf %s, %n : f32
    %msq = arith.divf %q, %n : f32
    %mean2 = arith.mulf %mean, %mean : f32
    %var = arith.subf %msq, %mean2 : f32
    %ve = arith.addf %var, %eps : f32
    %inv = math.rsqrt %ve : f32
    scf.for %j = %c0 to %cols step %c1 {
      %v = memref.load %x[%i, %j] : memref<16x256xf32>
      %d = arith.subf %v, %mean : f32
      %r = arith.mulf %d, %inv : f32
      memref.store %r, %y[%i, %j] : memref<16x256xf32>
    }
  }
  func.return
}
"""


def test_row_reduction_with_epilogue(cache: KernelCache) -> None:
    x = aligned_copy(_rand((16, 256), seed=1) * 3 + 1)
    y = aligned((16, 256), np.float32)
    compile_text(ROW_NORM, cache)["row_norm"](x, y)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    want = (x64 - mean) / np.sqrt(x64.var(axis=1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-4)


INDEX_NEST = """
func.func @transpose_scale(%x: memref<8x12xf32>, %y: memref<12x8xf32>, %base: index)
    attributes {multi.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c12 = arith.constant 12 : index
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c12 step %c1 {
      %v = memref.load %x[%i, %j] : memref<8x12xf32>
      %row = arith.muli %i, %c12 : index
      %lin = arith.addi %row, %j : index
      %k = arith.addi %lin, %base : index
      %k32 = arith.index_cast %k : index to i32
      %kf = arith.sitofp %k32 : i32 to f32
      %r = arith.mulf %v, %kf : f32
      %jr = arith.remsi %j, %c12 : index
      memref.store %r, %y[%jr, %i] : memref<12x8xf32>
    }
  }
  func.return
}
"""


def test_loop_nest_with_index_arithmetic(cache: KernelCache) -> None:
    x = _rand((8, 12), seed=2)
    y = aligned((12, 8), np.float32)
    compile_text(INDEX_NEST, cache)["transpose_scale"](x, y, 100)
    k = (np.arange(96).reshape(8, 12) + 100).astype(np.float32)
    np.testing.assert_allclose(y, (x * k).T, rtol=1e-6)


IF_RESULTS = """
func.func @branchy(%x: memref<64xf32>, %y: memref<64xf32>, %flags: memref<64xi1>)
    attributes {multi.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<64xf32>
    %pos = arith.cmpf ogt, %v, %zero : f32
    %r, %f = scf.if %pos -> (f32, i1) {
      %s = math.sqrt %v : f32
      %t = arith.constant true
      scf.yield %s, %t : f32, i1
    } else {
      %m = arith.negf %v : f32
      %fl = arith.constant false
      scf.yield %m, %fl : f32, i1
    }
    memref.store %r, %y[%i] : memref<64xf32>
    memref.store %f, %flags[%i] : memref<64xi1>
  }
  func.return
}
"""


def test_scf_if_with_results(cache: KernelCache) -> None:
    x = _rand((64,), seed=4)
    y = aligned(64, np.float32)
    flags = aligned(64, np.bool_)
    compile_text(IF_RESULTS, cache)["branchy"](x, y, flags)
    np.testing.assert_allclose(y, np.where(x > 0, np.sqrt(np.abs(x)), -x), rtol=1e-6)
    np.testing.assert_array_equal(flags, x > 0)
    assert set(flags.view(np.uint8)) <= {0, 1}  # stored as numpy bools


ALLOCA = """
func.func @scratch(%x: memref<8x4xf32>, %y: memref<8xf32>) attributes {multi.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    %tmp = memref.alloca() : memref<4xf32>
    scf.for %j = %c0 to %c4 step %c1 {
      %v = memref.load %x[%i, %j] : memref<8x4xf32>
      %e = math.exp %v : f32
      memref.store %e, %tmp[%j] : memref<4xf32>
    }
    %s = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f32) {
      %e = memref.load %tmp[%j] : memref<4xf32>
      %a = arith.addf %acc, %e : f32
      scf.yield %a : f32
    }
    %l = math.log %s : f32
    memref.store %l, %y[%i] : memref<8xf32>
  }
  func.return
}
"""


def test_alloca_scratch(cache: KernelCache) -> None:
    x = _rand((8, 4), seed=5)
    y = aligned(8, np.float32)
    module = lower(ALLOCA)
    ir_text = str(translate_kernels(module))
    assert ir_text.count("alloca") == 1
    compile_text(ALLOCA, cache)["scratch"](x, y)
    np.testing.assert_allclose(y, np.log(np.exp(x.astype(np.float64)).sum(axis=1)), rtol=1e-5)


MATMUL = """
func.func @matmul(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>)
    attributes {multi.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %s = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
        %x = memref.load %a[%i, %k] : memref<64x64xf32>
        %y = memref.load %b[%k, %j] : memref<64x64xf32>
        %p = arith.mulf %x, %y : f32
        %q = arith.addf %acc, %p : f32
        scf.yield %q : f32
      }
      memref.store %s, %c[%i, %j] : memref<64x64xf32>
    }
  }
  func.return
}
"""


def test_matmul_64(cache: KernelCache) -> None:
    a, b = _rand((64, 64), seed=6), _rand((64, 64), seed=7)
    c = aligned((64, 64), np.float32)
    compile_text(MATMUL, cache)["matmul"](a, b, c)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)

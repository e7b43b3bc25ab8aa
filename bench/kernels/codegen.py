"""Codegen micro-benchmark (not a test): compile time of convert-to-llvm + JIT per kernel, and
single-thread GB/s of two memory-bound kernels against a numpy copy of the same size, measured
in the same process.

    python -m bench.kernels.codegen [--quick]

- compile: cold (fresh cache, no disk: convert-to-llvm, LLVM O3, machine code), warm in memory
  (the same cache again), warm on disk (a new cache reading object code a previous one wrote);
- W3-style sum of 2^24 f32 (64 MiB read): GB/s = bytes read / time;
- W1-style y = max(2x+1, 0) - x/3 on 4096x4096 f32: GB/s = (bytes read + written) / time;
- numpy copy (np.copyto) of the same arrays: GB/s = (read + written) / time; numpy's own sum and
  W1 expression for reference. min and median of >= 10 runs after a warm-up.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np

from bench.run import timed
from xdsl_multi.dialects import make_context
from xdsl_multi.dialects.parsing import parse_mlir
from xdsl_multi.lowering.convert_to_llvm import ConvertToLLVM
from xdsl_multi.lowering.jit import ALIGNMENT, KernelCache

SUM = """
func.func @sum(%x: memref<{n}xf32>, %out: memref<1xf32>) attributes {{multi.kernel}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant {n} : index
  %zero = arith.constant 0.0 : f32
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {{
    %v = memref.load %x[%i] : memref<{n}xf32>
    %a = arith.addf %acc, %v : f32
    scf.yield %a : f32
  }}
  memref.store %s, %out[%c0] : memref<1xf32>
  func.return
}}
"""

W1 = """
func.func @w1(%x: memref<{r}x{c}xf32>, %y: memref<{r}x{c}xf32>) attributes {{multi.kernel}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = arith.constant {r} : index
  %cols = arith.constant {c} : index
  %two = arith.constant 2.0 : f32
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %three = arith.constant 3.0 : f32
  scf.for %i = %c0 to %rows step %c1 {{
    scf.for %j = %c0 to %cols step %c1 {{
      %v = memref.load %x[%i, %j] : memref<{r}x{c}xf32>
      %a = arith.mulf %v, %two : f32
      %b = arith.addf %a, %one : f32
      %m = arith.maximumf %b, %zero : f32
      %d = arith.divf %v, %three : f32
      %o = arith.subf %m, %d : f32
      memref.store %o, %y[%i, %j] : memref<{r}x{c}xf32>
    }}
  }}
  func.return
}}
"""


def aligned(shape: tuple[int, ...], dtype: type = np.float32) -> np.ndarray:
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    raw = np.empty(nbytes + ALIGNMENT, np.uint8)
    offset = (-raw.ctypes.data) % ALIGNMENT
    return raw[offset : offset + nbytes].view(dtype).reshape(shape)


def lower(text: str):
    module = parse_mlir(make_context(), text)
    ConvertToLLVM().apply(make_context(), module)
    return module


def compile_times(text: str, name: str) -> dict[str, float]:
    t0 = time.perf_counter()
    module = lower(text)
    t1 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        cache = KernelCache(tmp)
        t2 = time.perf_counter()
        cache.compile_kernels(module)
        t3 = time.perf_counter()
        cache.compile_kernels(module)
        t4 = time.perf_counter()
        fresh = KernelCache(tmp)
        t5 = time.perf_counter()
        fresh.compile_kernels(module)
        t6 = time.perf_counter()
        assert fresh.stats.disk_hits == 1, fresh.stats
    return {
        "parse + convert-to-llvm": t1 - t0,
        "cold (translate + O3 + codegen)": t3 - t2,
        "warm in memory": t4 - t3,
        "warm on disk": t6 - t5,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="smaller arrays, fewer runs")
    args = parser.parse_args()
    repeat = 5 if args.quick else 15
    n = 2**20 if args.quick else 2**24
    r, c = (1024, 1024) if args.quick else (4096, 4096)
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, pid {os.getpid()}")

    for label, text, name in (("sum", SUM.format(n=n), "sum"), ("w1", W1.format(r=r, c=c), "w1")):
        print(f"\ncompile {label}:")
        for what, seconds in compile_times(text, name).items():
            print(f"  {what:34s} {seconds * 1e3:8.2f} ms")

    cache = KernelCache(disk=False)
    rng = np.random.default_rng(0)

    x = aligned((n,))
    x[:] = rng.standard_normal(n, dtype=np.float32)
    out = aligned((1,))
    total = cache.compile_kernels(lower(SUM.format(n=n)))["sum"]
    total(x, out)
    assert np.isclose(out[0], x.astype(np.float64).sum(), rtol=1e-3, atol=1e-1), out[0]
    copy_dst = aligned((n,))
    sum_min, sum_med = timed(lambda: total(x, out), repeat)
    npsum_min, _ = timed(lambda: x.sum(), repeat)
    copy_min, copy_med = timed(lambda: np.copyto(copy_dst, x), repeat)
    gb = x.nbytes / 1e9
    print(f"\nsum of {n} f32 ({x.nbytes >> 20} MiB), one thread:")
    print(
        f"  ours        min {sum_min * 1e3:7.2f} ms  median {sum_med * 1e3:7.2f} ms  {gb / sum_min:6.1f} GB/s read"
    )
    print(
        f"  numpy sum   min {npsum_min * 1e3:7.2f} ms                      {gb / npsum_min:6.1f} GB/s read"
    )
    print(
        f"  numpy copy  min {copy_min * 1e3:7.2f} ms  median {copy_med * 1e3:7.2f} ms  {2 * gb / copy_min:6.1f} GB/s read+write"
    )
    print(f"  ours / copy-bandwidth: {(gb / sum_min) / (2 * gb / copy_min):.2f}")

    xw = aligned((r, c))
    xw[:] = rng.standard_normal((r, c), dtype=np.float32)
    yw = aligned((r, c))
    w1 = cache.compile_kernels(lower(W1.format(r=r, c=c)))["w1"]
    w1(xw, yw)
    np.testing.assert_allclose(yw, np.maximum(xw * 2 + 1, 0) - xw / 3, rtol=1e-5, atol=1e-6)
    w1_min, w1_med = timed(lambda: w1(xw, yw), repeat)
    npw1_min, _ = timed(lambda: np.maximum(xw * 2 + 1, 0) - xw / 3, repeat)
    copy_min, copy_med = timed(lambda: np.copyto(yw, xw), repeat)
    gb = 2 * xw.nbytes / 1e9
    print(f"\nW1 y = max(2x+1, 0) - x/3 on {r}x{c} f32, one thread:")
    print(
        f"  ours        min {w1_min * 1e3:7.2f} ms  median {w1_med * 1e3:7.2f} ms  {gb / w1_min:6.1f} GB/s"
    )
    print(
        f"  numpy expr  min {npw1_min * 1e3:7.2f} ms                      {gb / npw1_min:6.1f} GB/s"
    )
    print(
        f"  numpy copy  min {copy_min * 1e3:7.2f} ms  median {copy_med * 1e3:7.2f} ms  {gb / copy_min:6.1f} GB/s"
    )
    print(f"  ours / copy: {(gb / w1_min) / (gb / copy_min):.2f}")


if __name__ == "__main__":
    main()

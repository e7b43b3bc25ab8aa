"""tg.threefry (SPEC §3) against a reference written here from the published algorithm
(Random123's threefry2x32, 20 rounds), the reference against Random123's known-answer vectors,
the interpreter against the reference, every pass and the compiled threads backend (both kernel
modes) against the interpreter on sharded inputs, and, when tinygrad 0.14 is installed,
tinygrad's own THREEFRY and Tensor.rand."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from compiled_runs import MODES, lowered, parse
from interp_ir import func, module, run1, t
from pipeline_check import check_program

from xdsl_multi.runtime.interpreter.interpreter import run_module
from xdsl_multi.runtime.program import Program

MASK = 0xFFFFFFFF


def reference_threefry2x32(ctr: tuple[int, int], key: tuple[int, int]) -> tuple[int, int]:
    """Random123 threefry2x32_R(20, ctr, key) on Python ints: key schedule k0, k1,
    k0 ^ k1 ^ 0x1BD11BDA; rounds x0 += x1, x1 = rotl(x1, R) ^ x0; after every 4 rounds inject
    the next two schedule words and the injection count into x1."""
    rot = [13, 15, 26, 6, 17, 29, 16, 24]
    ks = [key[0], key[1], key[0] ^ key[1] ^ 0x1BD11BDA]
    x0, x1 = (ctr[0] + ks[0]) & MASK, (ctr[1] + ks[1]) & MASK
    for rnd in range(20):
        r = rot[rnd % 8]
        x0 = (x0 + x1) & MASK
        x1 = (((x1 << r) | (x1 >> (32 - r))) & MASK) ^ x0
        if rnd % 4 == 3:
            s = rnd // 4 + 1
            x0 = (x0 + ks[s % 3]) & MASK
            x1 = (x1 + ks[(s + 1) % 3] + s) & MASK
    return x0, x1


def reference_lanes(x: np.ndarray, key: np.ndarray) -> np.ndarray:
    """tinygrad's lane packing on the reference: counter (low, high) of x, key (low, high) of
    key, result high half = output word 1, low half = word 0."""
    out = []
    for a, k in zip(x.astype(np.uint64).ravel().tolist(), key.astype(np.uint64).ravel().tolist()):
        w0, w1 = reference_threefry2x32((a & MASK, a >> 32), (k & MASK, k >> 32))
        out.append((w1 << 32) | w0)
    return np.array(out, np.uint64).astype(np.int64).reshape(x.shape)


# Random123 kat_vectors, threefry2x32 with 20 rounds: ctr0 ctr1 key0 key1 -> out0 out1
KNOWN_ANSWERS = [
    ((0x00000000, 0x00000000), (0x00000000, 0x00000000), (0x6B200159, 0x99BA4EFE)),
    ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
    ((0x243F6A88, 0x85A308D3), (0x13198A2E, 0x03707344), (0xC4923A9C, 0x483DF7A0)),
]


def packed(words: tuple[int, int]) -> int:
    """Two 32-bit words as one i64 lane: word 0 low, word 1 high (as a signed int64)."""
    return int(np.array((words[1] << 32) | words[0], np.uint64).astype(np.int64))


@pytest.mark.parametrize(("ctr", "key", "want"), KNOWN_ANSWERS)
def test_reference_gives_the_known_answers(ctr, key, want) -> None:
    assert reference_threefry2x32(ctr, key) == want


def _one_op(shape: list[int]) -> str:
    ty = t(shape, "i64")
    return module(func([("x", ty), ("k", ty)], f"%r = tg.threefry %x, %k : {ty}", [("r", ty)]))


def test_interpreter_gives_the_known_answers() -> None:
    x = np.array([packed(c) for c, _, _ in KNOWN_ANSWERS], np.int64)
    key = np.array([packed(k) for _, k, _ in KNOWN_ANSWERS], np.int64)
    want = np.array([packed(w) for _, _, w in KNOWN_ANSWERS], np.int64)
    np.testing.assert_array_equal(run1(_one_op([3]), x, key), want)


def test_interpreter_matches_the_reference_on_random_lanes() -> None:
    g = np.random.default_rng(12)
    x = g.integers(-(2**63), 2**63 - 1, size=(5, 6), dtype=np.int64)
    key = g.integers(-(2**63), 2**63 - 1, size=(5, 6), dtype=np.int64)
    x[0, :3] = [0, -1, 2**32]  # edge lanes: zero, all ones, carry into the high half
    np.testing.assert_array_equal(run1(_one_op([5, 6]), x, key), reference_lanes(x, key))


SHARD = '#multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>'
PROGRAM = f"""
module attributes {{multi.devices = ["CPU:0", "CPU:1", "CPU:2"]}} {{
  func.func @main(%x: tensor<7x4xi64, {SHARD}>, %key: tensor<7x4xi64, {SHARD}>) -> (tensor<7x4xi64, {SHARD}>, tensor<7x1xi64, {SHARD}>) {{
    %one = arith.constant dense<1> : tensor<7x4xi64, {SHARD}>
    %y = arith.addi %x, %one : tensor<7x4xi64, {SHARD}>
    %r = tg.threefry %y, %key : tensor<7x4xi64, {SHARD}>
    %s = arith.xori %r, %x : tensor<7x4xi64, {SHARD}>
    %t = tg.reduce add %s [1] : tensor<7x4xi64, {SHARD}> -> tensor<7x1xi64, {SHARD}>
    func.return %s, %t : tensor<7x4xi64, {SHARD}>, tensor<7x1xi64, {SHARD}>
  }}
}}
"""
"""threefry fused between elementwise ops and a row reduction, on 7 rows over 3 devices
(uneven shards: the padding rows are Invalid and poison it)."""


def _program_inputs() -> tuple[np.ndarray, np.ndarray]:
    g = np.random.default_rng(3)
    x = g.integers(-(2**63), 2**63 - 1, size=(7, 4), dtype=np.int64)
    return x, g.integers(-(2**63), 2**63 - 1, size=(7, 4), dtype=np.int64)


def _expected(x: np.ndarray, key: np.ndarray) -> list[np.ndarray]:
    s = reference_lanes(x + 1, key) ^ x
    with np.errstate(over="ignore"):
        return [s, s.sum(axis=1, keepdims=True, dtype=np.int64)]


def test_sharded_program_in_the_interpreter() -> None:
    x, key = _program_inputs()
    got = run_module(parse(PROGRAM), [x, key])
    for g, w in zip(got, _expected(x, key), strict=True):
        np.testing.assert_array_equal(g, w)


def test_every_pass_keeps_the_sharded_program() -> None:
    check_program(PROGRAM, "auto", 256000, seed=5)


@pytest.mark.parametrize("mode", MODES)
def test_compiled_threads_backend(mode: str) -> None:
    x, key = _program_inputs()
    with Program(lowered(PROGRAM, mode)) as program:
        got = program([x, key])
    for g, w in zip(got, _expected(x, key), strict=True):
        np.testing.assert_array_equal(g, w)


# --------------------------------------------------------------------------------------------
# tinygrad 0.14 (optional: CI does not install it); its PYTHON device needs no compiler
# --------------------------------------------------------------------------------------------

needs_tinygrad = pytest.mark.skipif(
    importlib.util.find_spec("tinygrad") is None, reason="tinygrad is not installed"
)

TINYGRAD_SCRIPT = """
import json, sys
import numpy as np
from tinygrad import Tensor, dtypes
x, key, seed, n = json.loads(sys.stdin.read())
lanes = Tensor(np.array(x, np.uint64)).threefry(Tensor(np.array(key, np.uint64)))
Tensor.manual_seed(seed)
rand = Tensor.rand(n).numpy()
(device_key,) = (s.numpy() for s in Tensor._device_seeds.values())
print(json.dumps([lanes.numpy().tolist(), rand.tolist(), device_key.tolist()]))
"""


def tinygrad_outputs(x: np.ndarray, key: np.ndarray, seed: int, n: int) -> tuple[Any, ...]:
    """tinygrad's THREEFRY of the lanes, `Tensor.rand(n)` after `manual_seed(seed)` and the
    (key0, key1) words that rand used, from a fresh process on the PYTHON device."""
    job = [x.astype(np.uint64).tolist(), key.astype(np.uint64).tolist(), seed, n]
    env = {**os.environ, "DEV": "PYTHON"}
    r = subprocess.run(
        [sys.executable, "-c", TINYGRAD_SCRIPT],
        check=False,
        input=json.dumps(job),
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    lanes, rand, device_key = json.loads(r.stdout)
    return np.array(lanes, np.uint64).astype(np.int64), np.array(rand, np.float32), device_key


RAND = """
func.func @main(%counter: tensor<1xi64>, %key: tensor<1xi64>, %counts: tensor<5xi64>) -> (tensor<5xf32>, tensor<5xf32>) {
  %chunk_key = tg.threefry %counter, %key : tensor<1xi64>
  %keys = tg.expand %chunk_key : tensor<1xi64> -> tensor<5xi64>
  %bits = tg.threefry %counts, %keys : tensor<5xi64>
  %c32 = arith.constant dense<32> : tensor<5xi64>
  %high64 = arith.shrui %bits, %c32 : tensor<5xi64>
  %low = tg.cast %bits : tensor<5xi64> -> tensor<5xi32>
  %high = tg.cast %high64 : tensor<5xi64> -> tensor<5xi32>
  %c9 = arith.constant dense<9> : tensor<5xi32>
  %one_bits = arith.constant dense<1065353216> : tensor<5xi32>
  %one = arith.constant dense<1.0> : tensor<5xf32>
  %lm = arith.shrui %low, %c9 : tensor<5xi32>
  %lb = arith.ori %lm, %one_bits : tensor<5xi32>
  %lf = arith.bitcast %lb : tensor<5xi32> to tensor<5xf32>
  %lr = arith.subf %lf, %one : tensor<5xf32>
  %hm = arith.shrui %high, %c9 : tensor<5xi32>
  %hb = arith.ori %hm, %one_bits : tensor<5xi32>
  %hf = arith.bitcast %hb : tensor<5xi32> to tensor<5xf32>
  %hr = arith.subf %hf, %one : tensor<5xf32>
  func.return %lr, %hr : tensor<5xf32>, tensor<5xf32>
}
"""
"""tinygrad's `Tensor.rand(10)` (float32) from a fresh counter as tinygrad's RandMixin builds
it: one threefry of the counter (0, 0) gives the chunk's key, the bits are threefry of the
counts (i, i + 5) under that key, low halves first; each 32-bit word's top 23 bits are the
mantissa of a float in [1, 2), minus 1."""


@needs_tinygrad
def test_threefry_and_rand_match_tinygrad() -> None:
    g = np.random.default_rng(8)
    x = g.integers(-(2**63), 2**63 - 1, size=16, dtype=np.int64)
    key = g.integers(-(2**63), 2**63 - 1, size=16, dtype=np.int64)
    lanes, rand, (k0, k1) = tinygrad_outputs(x, key, seed=7, n=10)
    np.testing.assert_array_equal(run1(_one_op([16]), x, key), lanes)
    counts = np.arange(5, dtype=np.int64)
    inputs = [
        np.zeros(1, np.int64),
        np.array([(k1 << 32) | k0], np.uint64).astype(np.int64),
        ((counts + 5) << 32) | counts,
    ]
    got = run_module(parse(RAND), inputs)
    np.testing.assert_array_equal(np.concatenate(got), rand)
    with Program(lowered(RAND)) as program:
        np.testing.assert_array_equal(np.concatenate(program(inputs)), rand)

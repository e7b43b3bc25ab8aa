"""`Tensor.rand` and dropout through the tinygrad importer, bit-exact against tinygrad's
threefry random numbers computed here in numpy (tinygrad/mixin/rand.py and
tinygrad/codegen/decomp/op.py `threefry2x32`, re-implemented from their definitions)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

tinygrad = pytest.importorskip("tinygrad")

from tinygrad import Context, Tensor

from xdsl_multi.frontends.tinygrad import run

D2 = ("CPU:0", "CPU:1")
M32 = np.uint64(0xFFFFFFFF)


def threefry2x32(x: np.ndarray, key: int) -> np.ndarray:
    """tinygrad's THREEFRY of uint64 lanes with a uint64 key."""
    with np.errstate(over="ignore"):
        x0, x1 = (x & M32).astype(np.uint32), (x >> np.uint64(32)).astype(np.uint32)
        k0, k1 = np.uint32(key & 0xFFFFFFFF), np.uint32(key >> 32)
        ks = [k1, k0 ^ k1 ^ np.uint32(0x1BD11BDA), k0]
        xr = [x0 + ks[-1], x1 + ks[0]]
        rotations = [[13, 15, 26, 6], [17, 29, 16, 24]]
        for i in range(5):
            for r in rotations[i % 2]:
                a = xr[0] + xr[1]
                rot = (xr[1] << np.uint32(r)) + (xr[1] >> np.uint32(32 - r))
                xr = [a, a ^ rot]
            xr = [xr[0] + ks[i % 3], xr[1] + ks[(i + 1) % 3] + np.uint32(i + 1)]
        return (xr[1].astype(np.uint64) << np.uint64(32)) | xr[0].astype(np.uint64)


def random_bits(key: tuple[int, int], num: int) -> np.ndarray:
    """`RandMixin.random_bits` for a fresh counter (0, 0) and num < 2**32."""
    k = (key[1] << 32) | key[0]
    y = threefry2x32(np.zeros(1, np.uint64), k)
    new_key = (int(y[0] >> np.uint64(32)) << 32) | int(y[0] & M32)
    half = -(-num // 2)
    counts0 = np.arange(half, dtype=np.uint64)
    z = threefry2x32(((counts0 + np.uint64(half)) << np.uint64(32)) | counts0, new_key)
    return np.concatenate([(z & M32).astype(np.uint32), (z >> np.uint64(32)).astype(np.uint32)])[
        :num
    ]


def rand(seed: int, device_index: int, shape: tuple[int, ...]) -> np.ndarray:
    """The first `Tensor.rand(*shape)` (float32) on the `device_index`-th device to draw after
    `Tensor.manual_seed(seed)`."""
    first = int.from_bytes(hashlib.sha256(device_index.to_bytes(4, "big")).digest(), "big")
    bits = random_bits((first & 0xFFFFFFFF, seed), int(np.prod(shape)))
    floats = ((bits >> np.uint32(9)) | np.uint32(0x3F800000)).view(np.float32)
    return (floats - np.float32(1.0)).reshape(shape)


def test_rand_is_tinygrads_threefry_bit_for_bit() -> None:
    Tensor.manual_seed(7)
    (got,) = run(Tensor.rand(5, 3, device="CPU"))
    want = rand(7, 0, (5, 3))
    assert got.dtype == np.float32
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    assert len(np.unique(got)) == 15 and got.min() >= 0 and got.max() < 1


def test_dropout_of_a_sharded_value_uses_each_devices_generator() -> None:
    x = np.arange(1, 17, dtype=np.float32).reshape(8, 2)
    Tensor.manual_seed(3)
    with Context(TRAINING=1):
        y = Tensor(x).shard(D2, axis=0).dropout(0.5)
    (got,) = run(y)
    keep = np.concatenate([rand(3, d, (4, 2)) for d in range(2)]) >= 0.5
    want = np.where(keep, x, 0) / np.float32(0.5)
    assert 0 < keep.sum() < 16
    assert np.array_equal(got, want)

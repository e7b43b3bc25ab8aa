"""tinygrad 0.14.0 programs of every kind, imported by `xdsl_multi.frontends.tinygrad` and run on
the threads backend, checked against numpy (SPEC §8). tinygrad never computes here: the tensors
are made from numpy arrays and their graphs are only imported (its CPU device would need clang).
"""

from __future__ import annotations

import numpy as np
import pytest

tinygrad = pytest.importorskip("tinygrad")

from tinygrad import Tensor
from tinygrad.device import canonicalize_device
from tinygrad.dtype import dtypes
from tinygrad.function import function
from tinygrad.uop.ops import Ops, UOp

from xdsl_multi.dialects import multi
from xdsl_multi.frontends.tinygrad import import_tensors, run

D2 = ("CPU:0", "CPU:1")
RNG = np.random.default_rng(12)
X = RNG.standard_normal((8, 4)).astype(np.float32)
W = RNG.standard_normal((4, 6)).astype(np.float32)


def close(got: np.ndarray, want: np.ndarray) -> None:
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_elementwise_and_reduces_over_and_off_the_shard_axis() -> None:
    a = Tensor(X).shard(D2, axis=0)
    over, off, ew = run((a + 1).sum(0), (a * 2).max(1), (a - 0.5).relu() * a)
    close(over, (X + 1).sum(0))
    close(off, (X * 2).max(1))
    close(ew, np.maximum(X - 0.5, 0) * X)


def test_the_shard_pattern_imports_as_a_scatter_and_constants_are_shared() -> None:
    a = Tensor(X).shard(D2, axis=0)
    module, inputs = import_tensors(a + 1, a * 1)
    names = [op.name for op in module.walk()]
    (scatter,) = [op for op in module.walk() if isinstance(op, multi.CopyOp)]
    assert str(scatter.result.type.encoding) == '#multi.shard<["CPU", "CPU:1"], axis = 0>'
    assert "multi.local" not in names and "multi.multi" not in names  # nothing left unused
    assert names.count("arith.constant") == 1  # 1 (and 1.0) once, at the sharded type
    assert len(inputs) == 1 and np.array_equal(inputs[0], X.reshape(-1))


def test_data_and_model_parallel_matmul() -> None:
    dp = Tensor(X).shard(D2, axis=0) @ Tensor(W).shard(D2)
    mp = Tensor(X).shard(D2) @ Tensor(W).shard(D2, axis=1)
    rows = Tensor(X).shard(D2, axis=1) @ Tensor(W).shard(D2, axis=0)  # reduce over the shard axis
    for got in run(dp, mp, rows):
        close(got, X @ W)


def test_megatron_mlp() -> None:
    w1 = RNG.standard_normal((4, 16)).astype(np.float32)
    w2 = RNG.standard_normal((16, 4)).astype(np.float32)
    x = Tensor(X).shard(D2)
    h = (x @ Tensor(w1).shard(D2, axis=1)).relu()  # column parallel
    (y,) = run(h @ Tensor(w2).shard(D2, axis=0))  # row parallel: an allreduce
    close(y, np.maximum(X @ w1, 0) @ w2)


def test_layernorm_and_softmax() -> None:
    a = Tensor(X).shard(D2, axis=0)
    ln, sm = run(a.layernorm(), a.softmax(-1))
    close(ln, (X - X.mean(-1, keepdims=True)) / np.sqrt(X.var(-1, keepdims=True) + 1e-5))
    close(sm, softmax(X))


def test_causal_attention_with_its_inf_mask() -> None:
    q = RNG.standard_normal((2, 4, 8)).astype(np.float32)
    t = Tensor(q).shard(D2, axis=0)
    (got,) = run(t.scaled_dot_product_attention(t, t, is_causal=True))
    scores = q @ q.transpose(0, 2, 1) / np.sqrt(8) + np.triu(np.full((4, 4), -np.inf), 1)
    close(got, softmax(scores) @ q)


def test_convolution() -> None:
    x = RNG.standard_normal((2, 3, 6, 6)).astype(np.float32)
    w = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
    (got,) = run(Tensor(x).shard(D2, axis=0).conv2d(Tensor(w).shard(D2)))
    want = np.zeros((2, 4, 4, 4), np.float32)
    for i in range(4):
        for j in range(4):
            want[:, :, i, j] = np.einsum("nchw,ochw->no", x[:, :, i : i + 3, j : j + 3], w)
    close(got, want)


def test_arange_and_masks_are_computed_on_the_consumers_devices() -> None:
    a = Tensor(X).shard(D2, axis=0)
    got, mask = run(a + Tensor.arange(4), Tensor.ones(4, 4).triu(1).to(D2[1]))
    close(got, X + np.arange(4))
    close(mask, np.triu(np.ones((4, 4), np.float32), 1))


def test_setitem_into_a_sharded_value_and_into_a_view() -> None:
    a = Tensor(X).shard(D2, axis=0).contiguous()
    a[2:6] = 3.0
    b = Tensor(X).to("CPU")
    b[1:3, 1:2] = Tensor(np.full((2, 1), 5, np.float32))
    want_a, want_b = X.copy(), X.copy()
    want_a[2:6] = 3.0
    want_b[1:3, 1:2] = 5.0
    got_a, got_b = run(a, b)
    close(got_a, want_a)
    close(got_b, want_b)


def test_reshard_gather_and_allreduce_of_a_sharded_value() -> None:
    a = Tensor(X).shard(D2, axis=0)
    reshard = a.contiguous().to("CPU").shard(D2, axis=1)
    gather = a.to("CPU:1")
    summed = Tensor(a.uop.allreduce(Ops.ADD, D2))  # every shard: the sum of the shards
    got_r, got_g, got_s = run(reshard, gather, summed)
    close(got_r, X)
    close(got_g, X)
    close(got_s, np.tile(X[:4] + X[4:], (2, 1)))  # tinygrad keeps the sharded shape


def test_integer_and_unsigned_programs() -> None:
    ints = np.arange(-6, 10, dtype=np.int32).reshape(4, 4)
    uints = np.arange(16, dtype=np.uint32).reshape(4, 4) * np.uint32(0x10000001)
    i = Tensor(ints).shard(D2, axis=0)
    u = Tensor(uints).shard(D2, axis=0)
    fdiv, fmod, shifted, less = run(i // 4, i % 4, u >> 3, u < 0x40000000)
    assert np.array_equal(fdiv, ints // 4) and np.array_equal(fmod, ints % 4)
    assert shifted.dtype == np.uint32 and np.array_equal(shifted, uints >> 3)
    assert np.array_equal(less, uints < 0x40000000)


def realized_buffer(devices: str | tuple[str, ...], per_device: list[np.ndarray]) -> UOp:
    """A BUFFER UOp whose memory tinygrad allocated and we filled, as a realized tensor's buffer
    (tinygrad's own realize would need clang)."""
    u = UOp.new_buffer(canonicalize_device(devices), per_device[0].size, dtypes.float32)
    bufs = getattr(u.buffer, "bufs", None) or [u.buffer]
    for buf, data in zip(bufs, per_device, strict=True):
        buf.ensure_allocated()
        buf.as_memoryview(force_zero_copy=True).cast("B")[:] = data.reshape(-1).view(np.uint8)
    return u


def test_realized_buffers_are_the_arguments() -> None:
    sharded = Tensor(realized_buffer(D2, [X[:4], X[4:]]).reshape((4, 4)).unshard(0))
    single = Tensor(realized_buffer("CPU:1", [W]).reshape((4, 6)))
    _, inputs = import_tensors(sharded.sum(0), single * 2)
    assert [a.shape for a in inputs] == [(2, 16), (24,)]  # one buffer per device, stacked
    assert np.array_equal(inputs[0], np.stack([X[:4].reshape(-1), X[4:].reshape(-1)]))
    got_sum, got_twice = run(sharded.sum(0), single * 2)
    close(got_sum, X.sum(0))
    close(got_twice, W * 2)


def test_a_tinygrad_function_is_inlined() -> None:
    @function
    def layer(x: Tensor, w: Tensor) -> Tensor:
        return (x @ w).relu()

    (got,) = run(layer(Tensor(X).shard(D2, axis=0), Tensor(W).shard(D2)))
    close(got, np.maximum(X @ W, 0))


def test_bfloat16_buffers_are_read_as_float32() -> None:
    values = np.array([1.5, -2.0, 0.25, 3.0], np.float32)
    u = UOp.new_buffer("CPU", 4, dtypes.bfloat16)
    u.buffer.ensure_allocated()
    bits = (values.view(np.uint32) >> np.uint32(16)).astype(np.uint16)  # exact in bf16
    u.buffer.as_memoryview(force_zero_copy=True).cast("B")[:] = bits.view(np.uint8)
    _, inputs = import_tensors(Tensor(u).cast(dtypes.float32) * 2)
    assert inputs[0].dtype == np.float32 and np.array_equal(inputs[0], values)


def test_mselect_and_mstack() -> None:
    replicated = Tensor(X).shard(D2)
    picked = Tensor(replicated.uop.mselect(1))  # device 1's buffer
    stacked = Tensor(UOp.mstack(Tensor(X).to("CPU").uop, Tensor(X * 2).to("CPU:1").uop))
    got_pick, got_first, got_second = run(picked * 3, stacked.to("CPU:1"), stacked * 1)
    close(got_pick, X * 3)
    close(got_first, X)  # a copy of a many-device value to one device is its first buffer
    close(got_second, X)  # a many-device result: its first device's buffer, as tinygrad reads it

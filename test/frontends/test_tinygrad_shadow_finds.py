"""Importer bugs the shadow run of tinygrad's own tests found (docs/frontends.md, Shadow
runner), each as the smallest program that showed it, run by xdsl-multi and checked against
numpy. tinygrad never computes here (no clang needed): its graphs are only imported."""

from __future__ import annotations

import numpy as np
import pytest

tinygrad = pytest.importorskip("tinygrad")

from tinygrad import Tensor

from xdsl_multi.frontends.tinygrad import run

D2 = ("CPU:1", "CPU:2")


def test_an_int_operand_of_a_float_op_is_cast_first() -> None:
    # test_ops: a.reciprocal() of an int shard is RECIPROCAL(float) of the int UNSHARD
    ints = np.arange(1, 9, dtype=np.int32).reshape(2, 4)
    (got,) = run(Tensor(ints).shard(D2, 0).reciprocal())
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, 1 / ints.astype(np.float32), rtol=1e-6)


def test_pow_follows_tinygrads_xpow() -> None:
    # test_ops: a.pow(-0.5); negative bases, -inf, integer and zero exponents as xpow gives them
    base = np.array([-2, -1.5, -np.inf, 0, 2, 3, -2, 4], np.float32)
    exponent = np.array([3, 2, 0.5, -1, 0, 0.5, 0.5, -0.5], np.float32)
    b, e = Tensor(base).shard(D2, 0), Tensor(exponent).shard(D2, 0)
    (got,) = run(b.pow(e))
    want = np.array([-8, 2.25, np.inf, np.inf, 1, np.sqrt(3), np.nan, 0.5], np.float32)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    ints = np.arange(8, dtype=np.int32).reshape(2, 4)
    (got,) = run(Tensor(ints).shard(D2, 0).pow(-0.5))
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(got, ints.astype(np.float32) ** -0.5, rtol=1e-6)


def test_a_lower_rank_shard_keeps_its_axis_right_aligned() -> None:
    # test_backprop_conv_wino: a (6, 2) shard of axis 0 times a replicated (6, 6, 2) is a shard
    # of axis 1 (right-aligned); it was taken as axis 0, so the shrink on axis 0 was rejected
    x = np.arange(72, dtype=np.float32).reshape(6, 6, 2)
    y = np.arange(1, 13, dtype=np.float32).reshape(6, 2)
    z = Tensor(x).shard(D2) * Tensor(y).shard(D2, 0)
    assert z.uop.axis == 1
    (got,) = run(z[0:1])
    np.testing.assert_allclose(got, (x * y)[0:1])


def test_a_stack_of_shards_masks_its_rows_with_the_stacked_encoding() -> None:
    # test_stack (through Tensor.rand's STACK of sharded pieces): each row's mask took the
    # item's shard axis on the stacked shape, so its pad hit the shard axis
    from tinygrad.uop.ops import UOp

    a, b = np.arange(16, dtype=np.float32).reshape(4, 4), np.ones((4, 4), np.float32)
    s = Tensor(UOp.stack(Tensor(a).shard(D2, 0).uop, Tensor(b).shard(D2, 0).uop))
    (got,) = run(s)
    np.testing.assert_array_equal(got, np.stack([a, b]))


def test_a_weak_float_op_of_a_weak_int_constant_is_a_float_op() -> None:
    # test_transformer (llama's precompute_freqs_cis): arange / dim has a weakfloat RECIPROCAL
    # of the weakint constant 32, which found no int rule
    ints = np.arange(8, dtype=np.int32)
    (got,) = run(Tensor(ints).shard(D2, 0) / 32)
    np.testing.assert_allclose(got, ints / np.float32(32))

"""A tiny stand-in for tinygrad's multi-device test files, for test_tinygrad_shadow.py: the
shadow runner copies it into a fake checkout as test/test_sample.py and runs it."""

import numpy as np
from tinygrad import Device, Tensor
from tinygrad.uop.ops import AxisType, UOp

DEVICES_2 = tuple(f"{Device.DEFAULT}:{i}" for i in (1, 2))
DEVICES_4 = tuple(f"{Device.DEFAULT}:{i}" for i in range(4))


def test_sharded_sum_matches() -> None:
    x = Tensor(np.arange(8, dtype=np.float32).reshape(4, 2)).shard(DEVICES_2, 0)
    np.testing.assert_allclose((x * 2 + 1).sum(0).numpy(), [28.0, 36.0])


def test_replicated_int_matches() -> None:
    x = Tensor(np.arange(6, dtype=np.int32)).shard(DEVICES_2)
    assert (x * 3).tolist() == [0, 3, 6, 9, 12, 15]


def test_two_axis_shard_matches() -> None:
    rng = UOp.range(4, -1, AxisType.DEVICE)
    ref = Tensor.arange(16).reshape(4, 4).contiguous().realize()
    u = ref.uop.copy_to_device(DEVICES_4)._shard(0, rng // 2)._shard(1, rng % 2)
    t = Tensor(u.unshard((0, 1), (rng // 2, rng % 2)))
    np.testing.assert_equal((t + 1).contiguous().realize().numpy(), ref.numpy() + 1)


def test_failing_stays_failing() -> None:
    x = Tensor(np.ones(4, dtype=np.float32)).shard(DEVICES_2, 0)
    assert (x + 1).numpy().tolist() == [0.0, 0.0, 0.0, 0.0]


def test_two_tensors_realized_together_match() -> None:
    x = Tensor(np.arange(8, dtype=np.float32)).shard(DEVICES_2, 0)
    a, b = (x * x).contiguous(), (x + x.sum()).contiguous()
    Tensor.realize(a, b)

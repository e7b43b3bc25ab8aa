"""tinygrad 0.14.0 tensors sharded on several axes (UNSHARD with a tuple of axes, each axis's part
a digit of the device number) imported onto device meshes (SPEC §1.1) and run in the reference
interpreter (the compiled path does not lower meshes yet), checked against numpy. tinygrad
never computes here (its CPU device would need clang)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

tinygrad = pytest.importorskip("tinygrad")

from tinygrad import Tensor
from tinygrad.device import canonicalize_device
from tinygrad.dtype import dtypes
from tinygrad.uop.ops import AxisType, Ops, UOp

from xdsl_multi.dialects import multi
from xdsl_multi.frontends.tinygrad import UnsupportedGraph, import_tensors, run
from xdsl_multi.frontends.tinygrad.shadow_plugin import (
    GraphRecord,
    ShadowPlugin,
    _Pending,
    tinygrad_value,
)

D4 = tuple(canonicalize_device(f"CPU:{i}") for i in range(4))
D6 = tuple(canonicalize_device(f"CPU:{i}") for i in range(6))
D8 = tuple(canonicalize_device(f"CPU:{i}") for i in range(8))
RNG = np.random.default_rng(15)


def digits(mesh: Sequence[int], device_range: UOp) -> list[UOp]:
    """Each mesh dim's coordinate of device d, row-major (SPEC §1.1): d // stride % size."""
    out, stride = [], 1
    for size in reversed(mesh):
        out.append((device_range // stride) % size if stride > 1 else device_range % size)
        stride *= size
    return out[::-1]


def mesh_sharded(
    x: np.ndarray, devices: tuple[str, ...], mesh: Sequence[int], axes: Sequence[int | None]
) -> Tensor:
    """`x` sharded the way tinygrad's Test2DShard shards: a copy to every device, each tensor
    axis cut by its mesh dim's coordinate, then UNSHARD over those axes and coordinates."""
    d = UOp.range(len(devices), -1, AxisType.DEVICE)
    coords = digits(mesh, d)
    u = Tensor(x).uop.copy_to_device(devices)
    split = [(a, c) for a, c in zip(axes, coords, strict=True) if a is not None]
    for axis, c in split:
        u = u._shard(axis, c)
    return Tensor(u.unshard(tuple(a for a, _ in split), tuple(c for _, c in split)))


def close(got: np.ndarray, want: np.ndarray) -> None:
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


MESHES = [
    pytest.param(D4, (2, 2), (0, 1), (4, 6, 2), id="2x2"),
    pytest.param(D4, (2, 2), (1, 0), (4, 6, 2), id="2x2-cols-major"),
    pytest.param(D6, (2, 3), (0, 1), (4, 6, 2), id="2x3"),
    pytest.param(D6, (3, 2), (1, 0), (4, 6, 2), id="3x2-cols-major"),
    pytest.param(D8, (2, 2, 2), (0, None, 1), (4, 6, 2), id="2x2x2-replicated-middle"),
    pytest.param(D8, (2, 2, 2), (2, 0, 1), (4, 6, 2), id="2x2x2"),
]


@pytest.mark.parametrize(("devices", "mesh", "axes", "shape"), MESHES)
def test_elementwise_and_reduces_over_sharded_unsharded_and_all_axes(
    devices: tuple[str, ...], mesh: tuple[int, ...], axes: tuple[int | None, ...], shape: tuple
) -> None:
    x = RNG.standard_normal(shape).astype(np.float32)
    t = mesh_sharded(x, devices, mesh, axes)
    results = run(t * 2 + 1, t.sum(0), t.sum(1), t.sum(2), t.sum((0, 1)), t.sum(), backend="interp")
    wants = [x * 2 + 1, x.sum(0), x.sum(1), x.sum(2), x.sum((0, 1)), np.array(x.sum())]
    for got, want in zip(results, wants, strict=True):
        close(got, want)


@pytest.mark.parametrize(("devices", "mesh"), [(D4, (2, 2)), (D6, (2, 3))])
def test_matmul_of_mesh_sharded_operands(devices: tuple[str, ...], mesh: tuple[int, ...]) -> None:
    a = RNG.standard_normal((6, 6)).astype(np.float32)
    b = RNG.standard_normal((6, 6)).astype(np.float32)
    a_s, b_s = mesh_sharded(a, devices, mesh, (0, 1)), mesh_sharded(b, devices, mesh, (0, 1))
    (got,) = run(a_s @ b_s, backend="interp")
    close(got, a @ b)


def test_the_2d_shard_is_one_scatter_onto_the_mesh_encoding() -> None:
    x = RNG.standard_normal((4, 4)).astype(np.float32)
    module, inputs = import_tensors(mesh_sharded(x, D4, (2, 2), (0, 1)) + 1)
    names = [op.name for op in module.walk()]
    (scatter,) = [op for op in module.walk() if isinstance(op, multi.CopyOp)]
    assert str(scatter.result.type.encoding) == (
        '#multi.shard<["CPU", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>'
    )
    assert "multi.local" not in names and "multi.multi" not in names
    assert len(inputs) == 1 and np.array_equal(inputs[0], x.reshape(-1))


def test_one_axis_over_a_digit_of_the_device_number_is_a_mesh_with_a_replicated_dim() -> None:
    """UNSHARD(x, d // 2) on 4 devices: rows in 2 parts, each on 2 devices."""
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    d = UOp.range(4, -1, AxisType.DEVICE)
    t = Tensor(Tensor(x).uop.copy_to_device(D4)._shard(0, d // 2).unshard(0, d // 2))
    module, _ = import_tensors(t * 3)
    (scatter,) = [op for op in module.walk() if isinstance(op, multi.CopyOp)]
    assert "mesh = [2, 2], axes = [0, none]" in str(scatter.result.type.encoding)
    got, total = run(t * 3, t.sum(0), backend="interp")
    close(got, x * 3)
    close(total, x.sum(0))


def realized_mesh_buffer(blocks: list[np.ndarray]) -> UOp:
    """A realized 4-device BUFFER whose device d holds `blocks[d]` (filled by us)."""
    u = UOp.new_buffer(D4, blocks[0].size, dtypes.float32)
    for buf, data in zip(u.buffer.bufs, blocks, strict=True):
        buf.ensure_allocated()
        buf.as_memoryview(force_zero_copy=True).cast("B")[:] = data.reshape(-1).view(np.uint8)
    return u


def test_a_realized_2d_sharded_buffer_mselect_and_allreduce() -> None:
    x = RNG.standard_normal((4, 6)).astype(np.float32)
    blocks = [x[r * 2 : r * 2 + 2, c * 3 : c * 3 + 3] for r in range(2) for c in range(2)]
    d = UOp.range(4, -1, AxisType.DEVICE)
    sharded = realized_mesh_buffer(blocks).reshape((2, 3)).unshard((0, 1), tuple(digits((2, 2), d)))
    t = Tensor(sharded)
    picked = Tensor(sharded.src[0].mselect(2))  # device 2's block: rows 2-3, columns 0-2
    summed = Tensor(sharded.allreduce(Ops.ADD, D4))  # every block: the sum of the 4 blocks
    got, got_pick, got_sum = run(t.sum(1), picked * 2, summed, backend="interp")
    close(got, x.sum(1))
    close(got_pick, x[2:4, 0:3] * 2)
    close(got_sum, np.tile(sum(blocks), (2, 2)))  # tinygrad keeps the sharded shape


def test_mstack_of_per_device_blocks_unsharded_over_a_mesh() -> None:
    x = RNG.standard_normal((4, 4)).astype(np.float32)
    blocks = [x[r * 2 : r * 2 + 2, c * 2 : c * 2 + 2] for r in range(2) for c in range(2)]
    stacked = UOp.mstack(*(Tensor(b).to(dev).uop for b, dev in zip(blocks, D4, strict=True)))
    d = UOp.range(4, -1, AxisType.DEVICE)
    (got,) = run(Tensor(stacked.unshard((0, 1), tuple(digits((2, 2), d)))) - 1, backend="interp")
    close(got, x - 1)


def test_parts_that_are_not_digits_of_the_device_number_are_unsupported() -> None:
    x = Tensor(np.ones((4, 4), np.float32)).to(D4)
    d = UOp.range(4, -1, AxisType.DEVICE)
    with pytest.raises(UnsupportedGraph) as info:
        import_tensors(Tensor(x.uop.unshard((0, 1), (d // 2, d // 2))) + 1)
    assert info.value.op == "UNSHARD"
    assert info.value.reason == "sharding on a device mesh: the parts of axes [0, 1] overlap"
    with pytest.raises(UnsupportedGraph) as info:
        import_tensors(Tensor(x.uop.unshard(0, (d + 1) % 4)) + 1)
    assert info.value.reason == (
        "sharding on a device mesh: the parts of axis 0 over the 4 devices, [1, 2, 3, 0] of 4,"
        " are not one digit of the device number"
    )


def test_the_shadow_reads_tinygrads_mesh_sharded_buffers() -> None:
    """shadow_plugin's reading of a realized UNSHARD over two axes, and over a digit with
    replicas (`d // 2`: devices 0 and 1 hold rows 0-1, devices 2 and 3 rows 2-3)."""
    x = RNG.standard_normal((4, 6)).astype(np.float32)
    d = UOp.range(4, -1, AxisType.DEVICE)
    blocks = [x[r * 2 : r * 2 + 2, c * 3 : c * 3 + 3] for r in range(2) for c in range(2)]
    grid = realized_mesh_buffer(blocks).reshape((2, 3)).unshard((0, 1), tuple(digits((2, 2), d)))
    np.testing.assert_array_equal(tinygrad_value(grid), x)
    halves = [x[0:2], x[0:2], x[2:4], x[2:4]]
    rows = realized_mesh_buffer(halves).reshape((2, 6)).unshard(0, d // 2)
    np.testing.assert_array_equal(tinygrad_value(rows), x)


def test_the_shadow_compiles_a_mesh_graph_and_matches_it(tmp_path: Path) -> None:
    """Imported, tinygrad's value read, compiled for threads (meshes are lowered) and
    compared: the record is a match."""
    x = RNG.standard_normal((4, 6)).astype(np.float32)
    d = UOp.range(4, -1, AxisType.DEVICE)
    blocks = [x[r * 2 : r * 2 + 2, c * 3 : c * 3 + 3] for r in range(2) for c in range(2)]
    t = Tensor(
        realized_mesh_buffer(blocks).reshape((2, 3)).unshard((0, 1), tuple(digits((2, 2), d)))
    )
    report = tmp_path / "report.jsonl"
    plugin = ShadowPlugin(str(report), shadow=False)
    module, inputs = import_tensors(t)
    record = GraphRecord("t", 0, "error", "g")
    plugin._check(_Pending([t], [record], module, inputs, 0.0))
    (line,) = [json.loads(s) for s in report.read_text().splitlines()]
    assert (line["kind"], line["reason"]) == ("matched", "")


def test_a_mesh_result_is_compared_with_every_device_buffer_tinygrad_realized() -> None:
    """tinygrad 0.14.0 realizes `.contiguous()` of a value sharded on two axes as the whole
    value on every device (its buffer has no UNSHARD); our mesh result is the logical value,
    compared with each device's buffer."""
    x = RNG.standard_normal((4, 6)).astype(np.float32)
    d = UOp.range(4, -1, AxisType.DEVICE)
    blocks = [x[r * 2 : r * 2 + 2, c * 3 : c * 3 + 3] for r in range(2) for c in range(2)]
    t = Tensor(
        realized_mesh_buffer(blocks).reshape((2, 3)).unshard((0, 1), tuple(digits((2, 2), d)))
    )
    module, inputs = import_tensors(t)

    def pending() -> _Pending:
        return _Pending([t], [GraphRecord("t", 0, "error", "g")], module, inputs, 0.0)

    same = pending()
    assert same.mesh_devices == [4]
    ShadowPlugin._compare(same, (x,), [np.stack([x] * 4)], {"interp": lambda: (x,)})
    assert (same.records[0].kind, same.records[0].detail) == ("matched", "")
    theirs = np.stack([x] * 4)
    theirs[3, 1, 2] += 1
    other = pending()
    ShadowPlugin._compare(other, (x,), [theirs], {"interp": lambda: (x,)})
    assert other.records[0].kind == "mismatch"
    assert other.records[0].detail.startswith("1 of 96 elements differ; first at (3, 1, 2)")


def test_a_2d_shard_whose_shrinks_also_cut_an_unsharded_axis() -> None:
    """The second SHRINK of the pattern also shrinks axis 2 statically: the rows and columns
    stay split over the mesh, axis 2 is cut on the source before the one copy."""
    x = RNG.standard_normal((4, 6, 5)).astype(np.float32)
    d = UOp.range(4, -1, AxisType.DEVICE)
    rows, cols = digits((2, 2), d)
    u = Tensor(x).uop.copy_to_device(D4)._shard(0, rows)
    u = u.shrink(((0, 2), (cols * 3, cols * 3 + 3), (1, 4)))
    t = Tensor(u.unshard((0, 1), (rows, cols)))
    module, _ = import_tensors(t * 2)
    (scatter,) = [op for op in module.walk() if isinstance(op, multi.CopyOp)]
    assert "mesh = [2, 2], axes = [0, 1]" in str(scatter.result.type.encoding)
    (got,) = run(t * 2, backend="interp")
    close(got, x[:, :, 1:4] * 2)


def test_a_mesh_operand_broadcast_to_a_higher_rank_keeps_its_split_axes() -> None:
    """tinygrad broadcasts right-aligned: a (4, 6) mesh value plus a (3, 4, 6) value is a
    (3, 4, 6) mesh value whose split axes are 1 and 2."""
    x = RNG.standard_normal((4, 6)).astype(np.float32)
    y = RNG.standard_normal((3, 4, 6)).astype(np.float32)
    t = mesh_sharded(x, D4, (2, 2), (0, 1))
    total = t + Tensor(y).to(D4)
    module, _ = import_tensors(total)
    (result,) = module.body.block.last_op.function_type.outputs.data
    assert "mesh = [2, 2], axes = [1, 2]" in str(result.encoding)
    (got,) = run(total, backend="interp")
    close(got, x + y)

"""multi-to-devidx's rules for communication: the five kinds of COPY and ALLREDUCE (the table's
COPY and ALLREDUCE rows in multi_to_devidx.py; the fetch schedules of an allreduce are
allreduce.py's)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from xdsl.dialects.builtin import (
    TensorType,
)
from xdsl.ir import Operation, SSAValue

from xdsl_multi.dialects import devidx, multi, tg
from xdsl_multi.dialects.multi import (
    CopyKind,
    OnAttr,
    ShardAttr,
    copy_kind,
    placement_of,
)
from xdsl_multi.transforms.multi_to_devidx.allreduce import (
    lower_allreduce,
)
from xdsl_multi.transforms.multi_to_devidx.lowering_state import (
    FunctionLowering,
    MultiRule,
    geometry,
)
from xdsl_multi.transforms.multi_to_devidx.spmd_builder import (
    Index,
    ShardGeometry,
    SpmdBuilder,
    plain,
)

OpT = TypeVar("OpT", bound=Operation)


@dataclass(frozen=True)
class CopyRule:
    """A copy's two tensor types and their placements."""

    src_t: TensorType
    src: OnAttr | ShardAttr
    dst_t: TensorType
    dst: OnAttr | ShardAttr

    @staticmethod
    def of(op: multi.CopyOp) -> CopyRule:
        src_t, dst_t = op.source.type, op.result.type
        assert isinstance(src_t, TensorType) and isinstance(dst_t, TensorType)
        src, dst = placement_of(src_t), placement_of(dst_t)
        assert src is not None and dst is not None
        return CopyRule(src_t, src, dst_t, dst)


class CopyKeepingSliceCleans(MultiRule[multi.CopyOp]):
    """COPY of a many-device `#multi.on` value to a shard on the same devices: every device
    keeps its own slice, `clean(stored(x))` (a copy stores: Invalid lanes become 0)."""

    op_type = multi.CopyOp

    def applies(self, low: FunctionLowering, op: multi.CopyOp) -> bool:
        c = CopyRule.of(op)
        return copy_kind(c.src_t, c.dst_t) is CopyKind.KEEP_SLICE

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: multi.CopyOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        c = CopyRule.of(op)
        assert isinstance(c.dst, ShardAttr)
        return [low.clean(b, b.stored(operands[0]), c.dst_t, c.dst)]


class CopyPermutingBuffersFetches(MultiRule[multi.CopyOp]):
    """COPY between two many-device `#multi.on` placements of as many devices: buffer i of the
    source is fetched by device i of the destination."""

    op_type = multi.CopyOp

    def applies(self, low: FunctionLowering, op: multi.CopyOp) -> bool:
        c = CopyRule.of(op)
        return copy_kind(c.src_t, c.dst_t) is CopyKind.PERMUTE

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: multi.CopyOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        c = CopyRule.of(op)
        return [low.permute_buffers(b, operands[0], c.src.device_names, c.dst.device_names)]


class CopyBetweenShardingsIsAllToAll(MultiRule[multi.CopyOp]):
    """COPY between two shardings over the module's device list: an all-to-all of blocks."""

    op_type = multi.CopyOp

    def applies(self, low: FunctionLowering, op: multi.CopyOp) -> bool:
        c = CopyRule.of(op)
        return (
            isinstance(c.src, ShardAttr)
            and isinstance(c.dst, ShardAttr)
            and list(c.src.device_names) == low.devices
            and list(c.dst.device_names) == low.devices
        )

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: multi.CopyOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        c = CopyRule.of(op)
        assert isinstance(c.src, ShardAttr) and isinstance(c.dst, ShardAttr)
        return [low.reshard(b, operands[0], c.src_t, c.src, c.dst_t, c.dst)]


class CopyFromOneDeviceScatters(MultiRule[multi.CopyOp]):
    """COPY of a `#multi.on` value to a sharding over the module's device list: the first
    source device sends each device only its share."""

    op_type = multi.CopyOp

    def applies(self, low: FunctionLowering, op: multi.CopyOp) -> bool:
        c = CopyRule.of(op)
        return (
            isinstance(c.src, OnAttr)
            and isinstance(c.dst, ShardAttr)
            and list(c.dst.device_names) == low.devices
        )

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: multi.CopyOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        c = CopyRule.of(op)
        assert isinstance(c.src, OnAttr) and isinstance(c.dst, ShardAttr)
        return [low.scatter_from_one(b, operands[0], c.src, c.dst_t, c.dst)]


def _as_collective_ops(low: FunctionLowering) -> bool:
    """`collectives=ops` on more than one device: the copy becomes one collective op."""
    return low.strategy.as_ops and len(low.devices) > 1


def _collective_to_everyone(low: FunctionLowering, c: CopyRule) -> bool:
    """`collectives=ops`, N > 1, and a copy whose source and destination are over the
    module's every device (in any order)."""
    every = sorted(low.devices)
    return (
        _as_collective_ops(low)
        and isinstance(c.dst, OnAttr)
        and sorted(c.dst.device_names) == every
    )


class CopyShardToEveryDeviceAllGathers(MultiRule[multi.CopyOp]):
    """With `collectives=ops`: COPY of a shard over every device to `#multi.on` every device
    is one `devidx.allgather` of the local buffers (ceil-length blocks, rows past the logical
    length are padding), stacked by shard position and put back on the shard axis."""

    op_type = multi.CopyOp

    def applies(self, low: FunctionLowering, op: multi.CopyOp) -> bool:
        c = CopyRule.of(op)
        return (
            _collective_to_everyone(low, c)
            and isinstance(c.src, ShardAttr)
            and sorted(c.src.device_names) == sorted(low.devices)
        )

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: multi.CopyOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        g, k, block = _stored_local_block(low, b, CopyRule.of(op), operands[0])
        stacked_t = devidx.AllgatherOp.stacked_type(block.type, g.n)
        return [_join_axis(b, b.value(devidx.AllgatherOp(block, b.idx(k), stacked_t)), g)]


class CopyToEveryDeviceBroadcasts(MultiRule[multi.CopyOp]):
    """With `collectives=ops`: COPY of a `#multi.on` value to `#multi.on` every device (other
    than a permutation of buffers) is one `devidx.broadcast` from its first listed device."""

    op_type = multi.CopyOp

    def applies(self, low: FunctionLowering, op: multi.CopyOp) -> bool:
        c = CopyRule.of(op)
        return (
            _collective_to_everyone(low, c)
            and isinstance(c.src, OnAttr)
            and copy_kind(c.src_t, c.dst_t) is CopyKind.BROADCAST
        )

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: multi.CopyOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        c = CopyRule.of(op)
        root = low.numbers([c.src.device_names[0]])[0]
        return [b.value(devidx.BroadcastOp(b.stored(operands[0]), root))]


def _every_device(low: FunctionLowering, p: OnAttr | ShardAttr) -> bool:
    """`collectives=ops`, N > 1, and a one-axis shard over the module's every device (in any
    order)."""
    return (
        _as_collective_ops(low)
        and _one_axis_shard(p)
        and sorted(p.device_names) == sorted(low.devices)
    )


def _split_axis(
    b: SpmdBuilder, x: SSAValue, g: ShardGeometry, entries: int | None = None
) -> SSAValue:
    """x (g.length rows on g.axis) as g.n blocks of g.s rows (or `entries` >= g.n blocks, the
    last ones all padding) on a new leading axis, stored (rows past the length are padding: 0)."""
    t = x.type
    assert isinstance(t, TensorType)
    n = g.n if entries is None else entries
    padded = b.pad_axis(x, g.axis, 0, n * g.s - g.length, n * g.s, None)
    shape = list(t.get_shape())
    split = b.reshape(padded, [*shape[: g.axis], n, g.s, *shape[g.axis + 1 :]])
    if g.axis > 0:
        order = [g.axis, *range(g.axis), *range(g.axis + 1, len(shape) + 1)]
        split_t = split.type
        assert isinstance(split_t, TensorType)
        moved = [split_t.get_shape()[i] for i in order]
        split = b.value(tg.PermuteOp(split, order, plain(split_t, moved)))
    return b.stored(split)


def _stored_local_block(
    low: FunctionLowering, b: SpmdBuilder, c: CopyRule, value: SSAValue
) -> tuple[ShardGeometry, SSAValue | int, SSAValue]:
    """(the shard's geometry, this device's position in its list, its local block stored:
    Invalid rows as 0) of a copy from a shard, as the collectives send it."""
    assert isinstance(c.src, ShardAttr)
    g = geometry(c.src_t, c.src)
    k = low.position(b, c.src.device_names)
    return g, k, b.stored(b.local(value, g, k))


def _join_axis(b: SpmdBuilder, stacked: SSAValue, g: ShardGeometry) -> SSAValue:
    """N blocks of g.s rows (leading axis) put back on g.axis, shrunk to g.length rows."""
    t = stacked.type
    assert isinstance(t, TensorType)
    shape = list(t.get_shape()[1:])
    if g.axis > 0:  # the stacking axis next to the shard axis: (.., n, s, ..)
        order = [*range(1, g.axis + 1), 0, *range(g.axis + 1, len(shape) + 1)]
        moved = [g.n if i == 0 else shape[i - 1] for i in order]
        stacked = b.value(tg.PermuteOp(stacked, order, plain(t, moved)))
    shape[g.axis] = g.n * g.s
    return b.shrink_axis(b.reshape(stacked, shape), g.axis, 0, g.length)


class CopyShardToOneDeviceGathers(MultiRule[multi.CopyOp]):
    """With `collectives=ops`: COPY of a shard over every device to `#multi.on` one device
    is one `devidx.gather` of the local buffers to that device (as the all-gather, but only
    the root receives; the other devices hold Invalid)."""

    op_type = multi.CopyOp

    def applies(self, low: FunctionLowering, op: multi.CopyOp) -> bool:
        c = CopyRule.of(op)
        return (
            _every_device(low, c.src)
            and isinstance(c.dst, OnAttr)
            and len(c.dst.device_names) == 1
        )

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: multi.CopyOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        c = CopyRule.of(op)
        g, k, block = _stored_local_block(low, b, c, operands[0])
        stacked_t = devidx.AllgatherOp.stacked_type(block.type, g.n)
        root = low.numbers(c.dst.device_names)[0]
        gathered = b.value(devidx.GatherOp(block, b.idx(k), root, stacked_t))
        return [b.mask(low.member(b, c.dst.device_names), _join_axis(b, gathered, g))]


class CopyFromOneDeviceScattersOp(MultiRule[multi.CopyOp]):
    """With `collectives=ops`: COPY of a `#multi.on` value to a shard over every device is
    one `devidx.scatter` from its first listed device of its value split into N blocks."""

    op_type = multi.CopyOp

    def applies(self, low: FunctionLowering, op: multi.CopyOp) -> bool:
        c = CopyRule.of(op)
        return isinstance(c.src, OnAttr) and _every_device(low, c.dst)

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: multi.CopyOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        c = CopyRule.of(op)
        assert isinstance(c.dst, ShardAttr)
        g = geometry(c.dst_t, c.dst)
        k = low.position(b, c.dst.device_names)
        blocks = _split_axis(b, operands[0], g)
        blocks_t = blocks.type
        assert isinstance(blocks_t, TensorType)
        block_t = plain(blocks_t, blocks_t.get_shape()[1:])
        root = low.numbers([c.src.device_names[0]])[0]
        block = b.value(devidx.ScatterOp(blocks, b.idx(k), root, block_t))
        return [b.global_(block, g, k)]


class CopyBetweenShardingsAlltoallOp(MultiRule[multi.CopyOp]):
    """With `collectives=ops`: COPY between two shardings on different axes over every device
    (the same list) is one `devidx.alltoall`: each device splits its share into the N blocks
    of the new sharding and puts the N blocks it receives back on the old shard axis."""

    op_type = multi.CopyOp

    def applies(self, low: FunctionLowering, op: multi.CopyOp) -> bool:
        c = CopyRule.of(op)
        return (
            _every_device(low, c.src)
            and isinstance(c.src, ShardAttr)
            and isinstance(c.dst, ShardAttr)
            and list(c.dst.device_names) == list(c.src.device_names)
            and c.src.axis_index != c.dst.axis_index
        )

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: multi.CopyOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        c = CopyRule.of(op)
        assert isinstance(c.src, ShardAttr) and isinstance(c.dst, ShardAttr)
        g_src, g_dst = geometry(c.src_t, c.src), geometry(c.dst_t, c.dst)
        k = low.position(b, c.src.device_names)
        mine = b.local(operands[0], g_src, k)
        exchanged = b.value(devidx.AlltoallOp(_split_axis(b, mine, g_dst), b.idx(k)))
        return [b.global_(_join_axis(b, exchanged, g_src), g_dst, k)]


def _position_among_every_device(
    low: FunctionLowering, b: SpmdBuilder, names: Sequence[str]
) -> Index:
    """A permutation of [0, N) on d: d's position in `names` for the listed devices, then
    len(names), len(names) + 1, ... for the others in module order (one `devidx.lookup`)."""
    listed = low.numbers(names)
    table = [0] * len(low.devices)
    for k, num in enumerate(listed):
        table[num] = k
    others = sorted(set(range(len(low.devices))) - set(listed))
    for j, num in enumerate(others):
        table[num] = len(listed) + j
    return b.lookup(table, 0)


def _one_axis_shard(p: OnAttr | ShardAttr) -> bool:
    return isinstance(p, ShardAttr) and not p.is_mesh and p.mesh_axes[0] is not None


def _between_one_axis_shards(low: FunctionLowering, c: CopyRule) -> bool:
    """`collectives=ops` on many devices, and a copy from a one-axis shard to a one-axis
    shard (the all-to-all rules; they differ in the axes and device lists)."""
    return _as_collective_ops(low) and _one_axis_shard(c.src) and _one_axis_shard(c.dst)


def _to_front(b: SpmdBuilder, x: SSAValue, axis: int, back: bool = False) -> SSAValue:
    """x with `axis` moved to the front (`back`: the front axis moved back to `axis`)."""
    t = x.type
    assert isinstance(t, TensorType)
    if axis == 0:
        return x
    rank = len(t.get_shape())
    order = [axis, *range(axis), *range(axis + 1, rank)]
    if back:
        order = [order.index(i) for i in range(rank)]
    moved = [t.get_shape()[i] for i in order]
    return b.value(tg.PermuteOp(x, order, plain(t, moved)))


class CopyBetweenShardsOnOneAxisAlltoallOp(MultiRule[multi.CopyOp]):
    """With `collectives=ops`: COPY between two one-axis shardings of the same axis over other
    device lists (subsets, other orders) is one `devidx.alltoall ... from %i rows S -> T of L`
    over every device: each device's stored local block (S rows, the axis moved to the front)
    goes, row range by row range, to the devices whose new share overlaps it (positions from
    tables: the listed devices first, the others after them, owning and getting nothing), so
    each device receives its T rows, not the whole value; then `global`ed at its new position
    and masked to the destination's devices."""

    op_type = multi.CopyOp

    def applies(self, low: FunctionLowering, op: multi.CopyOp) -> bool:
        c = CopyRule.of(op)
        return (
            _between_one_axis_shards(low, c)
            and c.src.axis_index == c.dst.axis_index
            and list(c.src.device_names) != list(c.dst.device_names)
        )

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: multi.CopyOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        c = CopyRule.of(op)
        assert isinstance(c.src, ShardAttr) and isinstance(c.dst, ShardAttr)
        g_src, g_dst, n = geometry(c.src_t, c.src), geometry(c.dst_t, c.dst), len(low.devices)
        i = _position_among_every_device(low, b, c.src.device_names)
        k = _position_among_every_device(low, b, c.dst.device_names)
        mine = b.local(operands[0], g_src, _held_position(b, i, g_src, n))
        block = b.stored(_to_front(b, mine, g_src.axis))
        block_t = block.type
        assert isinstance(block_t, TensorType)
        out_t = plain(block_t, (g_dst.s, *block_t.get_shape()[1:]))
        rows = (g_src.s, g_dst.s, g_src.length)
        moved = b.value(devidx.AlltoallOp(block, b.idx(k), b.idx(i), rows, out_t))
        mine_dst = _to_front(b, moved, g_dst.axis, back=True)
        placed = b.global_(mine_dst, g_dst, _held_position(b, k, g_dst, n))
        return [b.mask(low.member(b, c.dst.device_names), placed)]


def _held_position(b: SpmdBuilder, position: Index, g: ShardGeometry, n: int) -> Index:
    """A device's position among every device (0..n-1; n - 1 for devices outside the list)
    as a block index of `g`'s m shards: clamped to m - 1 when the list is shorter."""
    return b.minimum(position, g.n - 1) if g.n < n else position


class CopyBetweenShardsOnTwoAxesAlltoallOp(MultiRule[multi.CopyOp]):
    """With `collectives=ops`: COPY between two one-axis shardings on different axes over
    other device lists is one `devidx.alltoall %blocks at %k from %i` over every device: each
    device splits its local block (its rows of axis a) into the N column blocks of axis b
    (the last N - m_b all padding), the device at destination position j gets block j of
    every sender, at the sender's source position; it keeps the m_a real ones, puts them back
    on axis a and `global`s them at its position on axis b, masked to the destination."""

    op_type = multi.CopyOp

    def applies(self, low: FunctionLowering, op: multi.CopyOp) -> bool:
        c = CopyRule.of(op)
        return (
            _between_one_axis_shards(low, c)
            and c.src.axis_index != c.dst.axis_index
        )

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: multi.CopyOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        c = CopyRule.of(op)
        assert isinstance(c.src, ShardAttr) and isinstance(c.dst, ShardAttr)
        g_src, g_dst, n = geometry(c.src_t, c.src), geometry(c.dst_t, c.dst), len(low.devices)
        i = _position_among_every_device(low, b, c.src.device_names)
        k = _position_among_every_device(low, b, c.dst.device_names)
        mine = b.local(operands[0], g_src, _held_position(b, i, g_src, n))
        blocks = _split_axis(b, mine, g_dst, n)
        exchanged = b.value(devidx.AlltoallOp(blocks, b.idx(k), b.idx(i)))
        joined = _join_axis(b, b.shrink_axis(exchanged, 0, 0, g_src.n), g_src)
        placed = b.global_(joined, g_dst, _held_position(b, k, g_dst, n))
        return [b.mask(low.member(b, c.dst.device_names), placed)]


class CopyFromShardAllGathersOp(MultiRule[multi.CopyOp]):
    """With `collectives=ops`: any other COPY from a one-axis shard (over a subset of the
    devices or in another order than the module's; to several but not all devices, to a
    shard over other devices or on the same axis) is one `devidx.allgather` over every device
    (`devidx.gather` when the destination is one device) of the local buffers: the shard's
    devices at their positions 0..m-1, the others after them (their blocks are dropped). The
    m first entries are put back on the shard axis, then `clean`ed to a shard destination's
    share and masked to the destination's devices."""

    op_type = multi.CopyOp

    def applies(self, low: FunctionLowering, op: multi.CopyOp) -> bool:
        c = CopyRule.of(op)
        return (
            _as_collective_ops(low)
            and _one_axis_shard(c.src)
            and (isinstance(c.dst, OnAttr) or _one_axis_shard(c.dst))
        )

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: multi.CopyOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        c = CopyRule.of(op)
        assert isinstance(c.src, ShardAttr)
        g, n = geometry(c.src_t, c.src), len(low.devices)
        k = _position_among_every_device(low, b, c.src.device_names)
        block = b.stored(b.local(operands[0], g, b.minimum(k, g.n - 1) if g.n < n else k))
        stacked_t = devidx.AllgatherOp.stacked_type(block.type, n)
        if isinstance(c.dst, OnAttr) and len(c.dst.device_names) == 1:
            root = low.numbers(c.dst.device_names)[0]
            stacked = b.value(devidx.GatherOp(block, b.idx(k), root, stacked_t))
        else:
            stacked = b.value(devidx.AllgatherOp(block, b.idx(k), stacked_t))
        logical = _join_axis(b, b.shrink_axis(stacked, 0, 0, g.n), g)
        if isinstance(c.dst, ShardAttr):
            logical = low.clean(b, logical, c.dst_t, c.dst)
        return [b.mask(low.member(b, c.dst.device_names), logical)]


class CopyFromOneDeviceToSomeScattersOp(MultiRule[multi.CopyOp]):
    """With `collectives=ops`: COPY of a `#multi.on` value to a one-axis shard over a subset
    of the devices (or in another order) is one `devidx.scatter` over every device from its
    first listed device: its value split into N blocks of the shard's s rows (the shard's m
    devices take blocks 0..m-1 at their positions, the others the padding blocks after them),
    then `global`ed at the device's position and masked to the shard's devices."""

    op_type = multi.CopyOp

    def applies(self, low: FunctionLowering, op: multi.CopyOp) -> bool:
        c = CopyRule.of(op)
        return (
            _as_collective_ops(low)
            and isinstance(c.src, OnAttr)
            and _one_axis_shard(c.dst)
        )

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: multi.CopyOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        c = CopyRule.of(op)
        assert isinstance(c.dst, ShardAttr)
        g, n = geometry(c.dst_t, c.dst), len(low.devices)
        k = _position_among_every_device(low, b, c.dst.device_names)
        blocks = _split_axis(b, operands[0], g, n)
        blocks_t = blocks.type
        assert isinstance(blocks_t, TensorType)
        block_t = plain(blocks_t, blocks_t.get_shape()[1:])
        root = low.numbers([c.src.device_names[0]])[0]
        block = b.value(devidx.ScatterOp(blocks, b.idx(k), root, block_t))
        placed = b.global_(block, g, b.minimum(k, g.n - 1) if g.n < n else k)
        return [b.mask(low.member(b, c.dst.device_names), placed)]


class CopyFetchesLogicalValue(MultiRule[multi.CopyOp]):
    """Any other COPY: every destination device fetches the source's logical value from its
    owners (`clean`ed to its share for a shard destination); other devices hold Invalid."""

    op_type = multi.CopyOp

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: multi.CopyOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        c = CopyRule.of(op)
        logical = low.logical_value(b, operands[0], c.src_t, c.src)
        if isinstance(c.dst, ShardAttr):
            logical = low.clean(b, logical, c.dst_t, c.dst)
        return [b.mask(low.member(b, c.dst.device_names), logical)]


class AllreduceToFetchSchedule(MultiRule[multi.AllreduceOp]):
    """ALLREDUCE is a naive, ring or all-to-all schedule of fetches (allreduce.py)."""

    op_type = multi.AllreduceOp

    def lower(
        self,
        low: FunctionLowering,
        b: SpmdBuilder,
        op: multi.AllreduceOp,
        operands: Sequence[SSAValue],
    ) -> Sequence[SSAValue]:
        enc_src, enc_dst = placement_of(op.source.type), placement_of(op.result.type)
        assert isinstance(enc_src, OnAttr) and isinstance(enc_dst, OnAttr)
        return [
            lower_allreduce(
                b,
                op.reduce_kind,
                operands[0],
                low.numbers(enc_src.device_names),
                low.numbers(enc_dst.device_names),
                low.strategy,
            )
        ]

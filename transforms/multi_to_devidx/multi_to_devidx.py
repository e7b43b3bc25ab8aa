"""Pass `multi-to-devidx`: remove every `multi` op and placement encoding (SPEC §5).

The result is one SPMD program over `d = devidx.device_num` in the form of docs/spmd-form.md:
`@main` takes and returns each device's local buffers, placed values become plain tensors that
are Invalid where a device holds no data, and communication is `devidx.fetch`.

The rules, top to bottom (tinygrad's multi rewrite rules, then its symbolic migration); for each
op the first rule that applies wins (`multi_to_devidx_rules()` lists them in this order):

| multi level | SPMD form | rule |
|---|---|---|
| MULTI(x, axis) | `global(x)`: Invalid pad, d-dependent bounds | `MultiToInvalidPad` |
| MSELECT(x, i) | `select(d == i, x, invalid)` | `MselectToSelect` |
| MSTACK(s0..sn) | `index(stack(s0..sn), k(d))` | `MstackToStackIndex` |
| COPY on(D) -> shard(D) | `clean(stored(x))`, nothing moves | `CopyKeepingSliceCleans` |
| COPY on(D) -> on(E), both N > 1 | buffer i fetched by E[i] | `CopyPermutingBuffersFetches` |
| COPY shard(all) -> shard(all) | an all-to-all of blocks | `CopyBetweenShardingsIsAllToAll` |
| COPY on(D) -> shard(all) | D[0] sends each device its share | `CopyFromOneDeviceScatters` |
| any other COPY | logical value fetched from owners | `CopyFetchesLogicalValue` |
| ALLREDUCE | naive, ring or all2all fetches | `AllreduceToFetchSchedule` |
| reduce over the shard axis | reduce of `clean(x)` + allreduce | `ReduceOverShardAxisToAllreduce` |
| reduce of a shard value, other axes | the reduce, then `clean` | `ShardedReduceCleansResult` |
| shrink selecting one shard | shrink on the owner + fetch (+ its validity) | `ShrinkOfOneShardFetchesFromOwner` |
| `func.return` | each result's local buffer | `ReturnToLocalBuffers` |
| op with regions on placed values | rejected (diagnostic) | `PlacedOpWithRegionsIsRejected` |
| other op on placed values | the same op, encodings dropped | `PlacedOpDropsEncodings` |
| op on unplaced values | copied unchanged | `UnplacedOpIsCopied` |

"all" is the module's device list (`multi.devices`); allreduce.py holds the fetch schedules,
spmd_builder.py the views (`global`, `local`, `clean`). `@main`'s arguments become SPMD values
(`global` of a shard buffer, a `#multi.on` buffer masked to its devices) before the rules run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, NoReturn, TypeVar

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    FunctionType,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import PassFailedException

from xdsl_multi.dialects import devidx, multi, tg
from xdsl_multi.dialects.multi import (
    DEVICES_ATTR,
    SIGNATURE_ATTR,
    CopyKind,
    OnAttr,
    ShardAttr,
    copy_kind,
    placement_of,
    program_devices,
)
from xdsl_multi.transforms.multi_to_devidx.allreduce import (
    AllreduceMode,
    AllreduceStrategy,
    lower_allreduce,
)
from xdsl_multi.transforms.multi_to_devidx.spmd_builder import ShardGeometry, SpmdBuilder, plain
from xdsl_multi.transforms.value_facts import may_hold_invalid

OpT = TypeVar("OpT", bound=Operation)


def local_type(t: Attribute) -> Attribute:
    """The type of one device's local buffer of a logical (possibly placed) type."""
    enc = placement_of(t)
    if enc is None or not isinstance(t, TensorType):
        return t
    if isinstance(enc, OnAttr):
        return plain(t)
    g = geometry(t, enc)
    shape = list(t.get_shape())
    shape[g.axis] = g.s
    return plain(t, shape)


def geometry(t: TensorType, enc: ShardAttr) -> ShardGeometry:
    return ShardGeometry(enc.axis_index, t.get_shape()[enc.axis_index], enc.num_devices)


def _fail(op: Operation, msg: str) -> NoReturn:
    """Reject the input at `op` (the driver reports the op's file:line:col)."""
    text = f"multi-to-devidx: {op.name}: {msg}"
    op.emit_error(text, PassFailedException(text))


class _Lowering:
    """Rebuilds one function in SPMD form, op by op, with a map from old to new values."""

    def __init__(
        self, devices: list[str], strategy: AllreduceStrategy, rules: Sequence[MultiRule[Any]]
    ):
        self.devices = devices
        self.number = {name: i for i, name in enumerate(devices)}
        self.strategy = strategy
        self.rules = rules
        self.rules_by_type: dict[type[Operation], list[MultiRule[Any]]] = {}
        self.vmap: dict[SSAValue, SSAValue] = {}

    # ---- device-set helpers -----------------------------------------------------------------

    def numbers(self, names: Sequence[str]) -> list[int]:
        return [self.number[n] for n in names]

    def position(self, b: SpmdBuilder, names: Sequence[str]) -> SSAValue | int:
        """k(d): d's position in `names` (len(names) where d is not listed)."""
        table = [len(names)] * len(self.devices)
        for k, num in enumerate(self.numbers(names)):
            table[num] = k
        return b.lookup(table, len(names))

    def clamped_position(self, b: SpmdBuilder, names: Sequence[str]) -> SSAValue | int:
        k = self.position(b, names)
        if len(names) == len(self.devices):
            return k
        return b.minimum(k, len(names) - 1)

    def member(self, b: SpmdBuilder, names: Sequence[str]) -> SSAValue | None:
        """An i1 that is true on the listed devices (None: every device is listed)."""
        return b.member(self.numbers(names))

    # ---- placed values ----------------------------------------------------------------------

    def from_local(self, b: SpmdBuilder, x: SSAValue, t: Attribute) -> SSAValue:
        """An argument's SPMD value from the device's local buffer."""
        enc = placement_of(t)
        if isinstance(enc, ShardAttr):
            assert isinstance(t, TensorType)
            return b.global_(x, geometry(t, enc), self.clamped_position(b, enc.device_names))
        if isinstance(enc, OnAttr):
            return b.mask(self.member(b, enc.device_names), x)
        return x

    def to_local(self, b: SpmdBuilder, x: SSAValue, t: Attribute) -> SSAValue:
        """A result's local buffer from its SPMD value."""
        enc = placement_of(t)
        if isinstance(enc, ShardAttr):
            assert isinstance(t, TensorType)
            return b.local(x, geometry(t, enc), self.clamped_position(b, enc.device_names))
        return x

    def clean(self, b: SpmdBuilder, x: SSAValue, t: TensorType, enc: ShardAttr) -> SSAValue:
        return b.clean(x, geometry(t, enc), self.clamped_position(b, enc.device_names))

    # ---- functions ----------------------------------------------------------------------------

    def lower_function(self, f: func.FuncOp) -> None:
        old_block = f.body.blocks[0]
        new_block = Block(arg_types=[local_type(a.type) for a in old_block.args])
        for old_arg, new_arg in zip(old_block.args, new_block.args, strict=True):
            new_arg.name_hint = old_arg.name_hint
        b = SpmdBuilder(InsertPoint.at_end(new_block), len(self.devices), SSAValue.get(
            _emit_device_num(new_block)))
        for old_arg, new_arg in zip(old_block.args, new_block.args, strict=True):
            self.vmap[old_arg] = self.from_local(b, new_arg, old_arg.type)
        for op in list(old_block.ops):
            self.lower_op(b, op)
        outputs = [local_type(t) for t in f.function_type.outputs.data]
        f.function_type = FunctionType.from_lists(
            [a.type for a in new_block.args], outputs
        )
        f.body.detach_block(old_block)
        f.body.add_block(new_block)
        old_block.erase(safe_erase=False)

    def lower_op(self, b: SpmdBuilder, op: Operation) -> None:
        """Lower `op` by the first rule of the table that applies to it."""
        operands = [self.vmap.get(o, o) for o in op.operands]
        rules = self.rules_by_type.get(type(op))
        if rules is None:
            rules = [r for r in self.rules if isinstance(op, r.op_type)]
            self.rules_by_type[type(op)] = rules
        for rule in rules:
            if rule.applies(self, op):
                results = rule.lower(self, b, op, operands)
                for old, new in zip(op.results, results, strict=True):
                    self.vmap[old] = new
                return
        raise AssertionError(f"{op.name}: UnplacedOpIsCopied applies to every op")

    # ---- copies (the rules that communicate) ------------------------------------------------

    def scatter_from_one(
        self, b: SpmdBuilder, x: SSAValue, src: OnAttr, dst_t: TensorType, dst: ShardAttr
    ) -> SSAValue:
        """The first source device J sends each device only its share: for each shift t, every
        device j computes the share of device (j + t) mod N of its value (Invalid unless j is
        J) and device d fetches it from (d - t) mod N. Once specialized, only the N - 1 shifts
        that start at J carry data; the others are no message at all."""
        owner = self.number[src.device_names[0]]
        value = b.mask(b.eq(b.d, owner), x)
        g_dst = geometry(dst_t, dst)
        total: SSAValue | None = None
        for t in range(len(self.devices)):
            piece = b.fetch(b.clean(value, g_dst, b.shift(t)), b.shift(-t))
            total = piece if total is None else b.combine(multi.ReduceKind.ADD, total, piece)
        assert total is not None
        return self.clean(b, total, dst_t, dst)

    def logical_value(
        self, b: SpmdBuilder, x: SSAValue, t: TensorType, enc: OnAttr | ShardAttr
    ) -> SSAValue:
        """The source's logical value on every device (SPEC §2): a shard value's full tensor
        (each owner sends its share once), else the first listed device's buffer."""
        if isinstance(enc, OnAttr):
            return b.fetch(x, self.number[enc.device_names[0]])
        cleaned = self.clean(b, x, t, enc)
        total: SSAValue | None = None
        for name in enc.device_names:
            piece = b.fetch(cleaned, self.number[name])
            total = piece if total is None else b.combine(multi.ReduceKind.ADD, total, piece)
        assert total is not None
        return total

    def permute_buffers(
        self, b: SpmdBuilder, x: SSAValue, src: Sequence[str], dst: Sequence[str]
    ) -> SSAValue:
        """Buffer i of the source goes to device i of the destination."""
        table = list(range(len(self.devices)))
        for s_name, d_name in zip(src, dst, strict=True):
            table[self.number[d_name]] = self.number[s_name]
        source = b.lookup(table, 0)
        moved = b.fetch(x, source)
        return b.mask(self.member(b, dst), moved)

    def reshard(
        self,
        b: SpmdBuilder,
        x: SSAValue,
        src_t: TensorType,
        src: ShardAttr,
        dst_t: TensorType,
        dst: ShardAttr,
    ) -> SSAValue:
        """An all-to-all of blocks between two shardings over the module's device list: device j
        sends the part of its share that device (j + t) mod N owns in the new sharding, and
        device d receives it from (d - t) mod N. Each message is one block of ~L/N^2."""
        mine = self.clean(b, x, src_t, src)
        g_dst = geometry(dst_t, dst)
        total: SSAValue | None = None
        for t in range(len(self.devices)):
            part = b.clean(mine, g_dst, b.shift(t))
            piece = b.fetch(part, b.shift(-t))  # t = 0 fetches from d itself: stored, no message
            total = piece if total is None else b.combine(multi.ReduceKind.ADD, total, piece)
        assert total is not None
        return self.clean(b, total, dst_t, dst)


# ---- the rules, in the order of the module docstring's table ------------------------------------


class MultiRule(Generic[OpT]):
    """One row of the rule table: lowers the ops of class `op_type` for which `applies` holds.

    `lower` appends the op's SPMD form through the builder and returns the new values of the
    op's results, in order. The first rule of the table that applies wins.
    """

    op_type: type[OpT]

    def applies(self, low: _Lowering, op: OpT) -> bool:
        return True

    def lower(
        self, low: _Lowering, b: SpmdBuilder, op: OpT, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        raise NotImplementedError


class MultiToInvalidPad(MultiRule[multi.MultiOp]):
    """MULTI(x, axis) is `global(x)`: the local buffer of s rows padded with Invalid by
    d-dependent bounds to N * s rows, shrunk to the logical length."""

    op_type = multi.MultiOp

    def lower(
        self, low: _Lowering, b: SpmdBuilder, op: multi.MultiOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        res_t = op.result.type
        assert isinstance(res_t, TensorType)
        enc = placement_of(res_t)
        assert isinstance(enc, ShardAttr)
        k = low.clamped_position(b, enc.device_names)
        return [b.global_(operands[0], geometry(res_t, enc), k)]


class MselectToSelect(MultiRule[multi.MselectOp]):
    """MSELECT(x, i) is `select(d == owner_i, x, invalid)`."""

    op_type = multi.MselectOp

    def lower(
        self, low: _Lowering, b: SpmdBuilder, op: multi.MselectOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        enc = placement_of(op.source.type)
        assert isinstance(enc, OnAttr)
        owner = low.number[enc.device_names[op.index.value.data]]
        return [b.mask(b.eq(b.d, owner), operands[0])]


class MstackToStackIndex(MultiRule[multi.MstackOp]):
    """MSTACK(s0..sn) is `index(stack(s0..sn), k(d))`, k(d) being d's position in the result's
    device list."""

    op_type = multi.MstackOp

    def lower(
        self, low: _Lowering, b: SpmdBuilder, op: multi.MstackOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        enc = placement_of(op.result.type)
        assert isinstance(enc, OnAttr)
        stacked = b.value(devidx.StackOp(operands))
        return [b.value(devidx.IndexOp(stacked, b.idx(low.position(b, enc.device_names))))]


@dataclass(frozen=True)
class _Copy:
    """A copy's two tensor types and their placements."""

    src_t: TensorType
    src: OnAttr | ShardAttr
    dst_t: TensorType
    dst: OnAttr | ShardAttr

    @staticmethod
    def of(op: multi.CopyOp) -> _Copy:
        src_t, dst_t = op.source.type, op.result.type
        assert isinstance(src_t, TensorType) and isinstance(dst_t, TensorType)
        src, dst = placement_of(src_t), placement_of(dst_t)
        assert src is not None and dst is not None
        return _Copy(src_t, src, dst_t, dst)


class CopyKeepingSliceCleans(MultiRule[multi.CopyOp]):
    """COPY of a many-device `#multi.on` value to a shard on the same devices: every device
    keeps its own slice, `clean(stored(x))` (a copy stores: Invalid lanes become 0)."""

    op_type = multi.CopyOp

    def applies(self, low: _Lowering, op: multi.CopyOp) -> bool:
        c = _Copy.of(op)
        return copy_kind(c.src_t, c.dst_t) is CopyKind.KEEP_SLICE

    def lower(
        self, low: _Lowering, b: SpmdBuilder, op: multi.CopyOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        c = _Copy.of(op)
        assert isinstance(c.dst, ShardAttr)
        return [low.clean(b, b.stored(operands[0]), c.dst_t, c.dst)]


class CopyPermutingBuffersFetches(MultiRule[multi.CopyOp]):
    """COPY between two many-device `#multi.on` placements of as many devices: buffer i of the
    source is fetched by device i of the destination."""

    op_type = multi.CopyOp

    def applies(self, low: _Lowering, op: multi.CopyOp) -> bool:
        c = _Copy.of(op)
        return copy_kind(c.src_t, c.dst_t) is CopyKind.PERMUTE

    def lower(
        self, low: _Lowering, b: SpmdBuilder, op: multi.CopyOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        c = _Copy.of(op)
        return [low.permute_buffers(b, operands[0], c.src.device_names, c.dst.device_names)]


class CopyBetweenShardingsIsAllToAll(MultiRule[multi.CopyOp]):
    """COPY between two shardings over the module's device list: an all-to-all of blocks."""

    op_type = multi.CopyOp

    def applies(self, low: _Lowering, op: multi.CopyOp) -> bool:
        c = _Copy.of(op)
        return (
            isinstance(c.src, ShardAttr)
            and isinstance(c.dst, ShardAttr)
            and list(c.src.device_names) == low.devices
            and list(c.dst.device_names) == low.devices
        )

    def lower(
        self, low: _Lowering, b: SpmdBuilder, op: multi.CopyOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        c = _Copy.of(op)
        assert isinstance(c.src, ShardAttr) and isinstance(c.dst, ShardAttr)
        return [low.reshard(b, operands[0], c.src_t, c.src, c.dst_t, c.dst)]


class CopyFromOneDeviceScatters(MultiRule[multi.CopyOp]):
    """COPY of a `#multi.on` value to a sharding over the module's device list: the first
    source device sends each device only its share."""

    op_type = multi.CopyOp

    def applies(self, low: _Lowering, op: multi.CopyOp) -> bool:
        c = _Copy.of(op)
        return (
            isinstance(c.src, OnAttr)
            and isinstance(c.dst, ShardAttr)
            and list(c.dst.device_names) == low.devices
        )

    def lower(
        self, low: _Lowering, b: SpmdBuilder, op: multi.CopyOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        c = _Copy.of(op)
        assert isinstance(c.src, OnAttr) and isinstance(c.dst, ShardAttr)
        return [low.scatter_from_one(b, operands[0], c.src, c.dst_t, c.dst)]


class CopyFetchesLogicalValue(MultiRule[multi.CopyOp]):
    """Any other COPY: every destination device fetches the source's logical value from its
    owners (`clean`ed to its share for a shard destination); other devices hold Invalid."""

    op_type = multi.CopyOp

    def lower(
        self, low: _Lowering, b: SpmdBuilder, op: multi.CopyOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        c = _Copy.of(op)
        logical = low.logical_value(b, operands[0], c.src_t, c.src)
        if isinstance(c.dst, ShardAttr):
            logical = low.clean(b, logical, c.dst_t, c.dst)
        return [b.mask(low.member(b, c.dst.device_names), logical)]


class AllreduceToFetchSchedule(MultiRule[multi.AllreduceOp]):
    """ALLREDUCE is a naive, ring or all-to-all schedule of fetches (allreduce.py)."""

    op_type = multi.AllreduceOp

    def lower(
        self, low: _Lowering, b: SpmdBuilder, op: multi.AllreduceOp, operands: Sequence[SSAValue]
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


class ReduceOverShardAxisToAllreduce(MultiRule[tg.ReduceOp]):
    """A reduce over the shard axis is a local reduce of `clean(x)` (lanes outside the device's
    share are Invalid: they reduce as the identity) and an allreduce over the shard's devices."""

    op_type = tg.ReduceOp

    def applies(self, low: _Lowering, op: tg.ReduceOp) -> bool:
        enc = placement_of(op.source.type)
        return isinstance(enc, ShardAttr) and enc.axis_index in op.axes_list

    def lower(
        self, low: _Lowering, b: SpmdBuilder, op: tg.ReduceOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        src_t, res_t = op.source.type, op.result.type
        assert isinstance(src_t, TensorType) and isinstance(res_t, TensorType)
        enc = placement_of(src_t)
        assert isinstance(enc, ShardAttr)
        cleaned = low.clean(b, operands[0], src_t, enc)
        partial = b.value(tg.ReduceOp(op.kind, cleaned, op.axes_list, plain(res_t)))
        members = low.numbers(enc.device_names)
        return [lower_allreduce(b, op.reduce_kind, partial, members, members, low.strategy)]


class ShardedReduceCleansResult(MultiRule[tg.ReduceOp]):
    """A reduce over other axes of a shard value is the same reduce, then `clean`: the reduce
    of lanes outside the device's share is dropped again (its result is a shard value too)."""

    op_type = tg.ReduceOp

    def applies(self, low: _Lowering, op: tg.ReduceOp) -> bool:
        return isinstance(placement_of(op.result.type), ShardAttr)

    def lower(
        self, low: _Lowering, b: SpmdBuilder, op: tg.ReduceOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        res_t = op.result.type
        assert isinstance(res_t, TensorType)
        enc = placement_of(res_t)
        assert isinstance(enc, ShardAttr)
        (reduced,) = _rebuild_plain(b, op, operands)
        return [low.clean(b, reduced, res_t, enc)]


class ShrinkOfOneShardFetchesFromOwner(MultiRule[tg.ShrinkOp]):
    """A shrink that selects exactly one shard is the shrink on that shard's owner, fetched by
    every device of the shard; where the shard may hold Invalid lanes (beyond the rows it does
    not own), their validity is fetched with it."""

    op_type = tg.ShrinkOp

    def applies(self, low: _Lowering, op: tg.ShrinkOp) -> bool:
        return op.selected_shard() is not None

    def lower(
        self, low: _Lowering, b: SpmdBuilder, op: tg.ShrinkOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        enc = placement_of(op.source.type)
        assert isinstance(enc, ShardAttr)
        k = op.selected_shard()
        assert k is not None
        bounds = _map_bounds(op.bounds, low.vmap)
        local = b.value(tg.ShrinkOp(operands[0], bounds, _strip(op.result.type)))
        owner = low.number[enc.device_names[k]]
        # a movement op, not a materialization: Invalid lanes of the shard (an Invalid pad on
        # another axis) stay Invalid on the devices that fetch it
        fetch = b.fetch_keeping_invalid if may_hold_invalid(op.source) else b.fetch
        return [b.mask(low.member(b, enc.device_names), fetch(local, owner))]


class ReturnToLocalBuffers(MultiRule[func.ReturnOp]):
    """`func.return` returns each device's local buffer of every result (`local(x)` for a shard
    value)."""

    op_type = func.ReturnOp

    def lower(
        self, low: _Lowering, b: SpmdBuilder, op: func.ReturnOp, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        f = op.parent_op()
        assert isinstance(f, func.FuncOp)
        outputs = f.function_type.outputs.data
        locals_ = [low.to_local(b, v, t) for v, t in zip(operands, outputs, strict=True)]
        b.emit(func.ReturnOp(*locals_))
        return []


class PlacedOpWithRegionsIsRejected(MultiRule[Operation]):
    """An op with regions on placed values is rejected (a diagnostic at the op)."""

    op_type = Operation

    def applies(self, low: _Lowering, op: Operation) -> bool:
        return bool(op.regions) and _is_placed(op)

    def lower(
        self, low: _Lowering, b: SpmdBuilder, op: Operation, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        _fail(op, "ops with regions on placed values are not supported")


class PlacedOpDropsEncodings(MultiRule[Operation]):
    """Any other op on placed values (elementwise, movement, reduce, constant) is the same op on
    the SPMD values: the encodings are dropped from every tensor type."""

    op_type = Operation

    def applies(self, low: _Lowering, op: Operation) -> bool:
        return _is_placed(op)

    def lower(
        self, low: _Lowering, b: SpmdBuilder, op: Operation, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        return _rebuild_plain(b, op, operands)


class UnplacedOpIsCopied(MultiRule[Operation]):
    """An op on unplaced values is copied unchanged (on the new values of its operands)."""

    op_type = Operation

    def lower(
        self, low: _Lowering, b: SpmdBuilder, op: Operation, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        new_op = op.clone(value_mapper=dict(low.vmap))
        b.emit(new_op)
        return new_op.results


def multi_to_devidx_rules() -> list[MultiRule[Any]]:
    """The rules of multi-to-devidx in table order (the first that applies to an op wins)."""
    return [
        MultiToInvalidPad(),
        MselectToSelect(),
        MstackToStackIndex(),
        CopyKeepingSliceCleans(),
        CopyPermutingBuffersFetches(),
        CopyBetweenShardingsIsAllToAll(),
        CopyFromOneDeviceScatters(),
        CopyFetchesLogicalValue(),
        AllreduceToFetchSchedule(),
        ReduceOverShardAxisToAllreduce(),
        ShardedReduceCleansResult(),
        ShrinkOfOneShardFetchesFromOwner(),
        ReturnToLocalBuffers(),
        PlacedOpWithRegionsIsRejected(),
        PlacedOpDropsEncodings(),
        UnplacedOpIsCopied(),
    ]


def _is_placed(op: Operation) -> bool:
    return any(placement_of(t) is not None for t in (*op.operand_types, *op.result_types))


def _rebuild_plain(
    b: SpmdBuilder, op: Operation, operands: Sequence[SSAValue]
) -> Sequence[SSAValue]:
    """`op` on the SPMD operands, with the encodings dropped from every tensor type."""
    props = dict(op.properties)
    if isinstance(op, ConstantOp) and isinstance(op.value, DenseIntOrFPElementsAttr):
        t = op.result.type
        assert isinstance(t, TensorType)
        props["value"] = DenseIntOrFPElementsAttr(plain(t), op.value.data)
    new_op = op.create(
        operands=list(operands),
        result_types=[_strip(t) for t in op.result_types],
        properties=props,
        attributes=dict(op.attributes),
    )
    b.emit(new_op)
    return new_op.results


def _emit_device_num(block: Block) -> SSAValue:
    op = devidx.DeviceNumOp()
    block.add_op(op)
    op.result.name_hint = "d"
    return op.result


def _strip(t: Attribute) -> Attribute:
    return plain(t) if isinstance(t, TensorType) else t


def _map_bounds(
    bounds: Sequence[tuple[tg.Bound, tg.Bound]], vmap: dict[SSAValue, SSAValue]
) -> list[tuple[tg.Bound, tg.Bound]]:
    def m(v: tg.Bound) -> tg.Bound:
        return v if isinstance(v, int) else vmap.get(v, v)

    return [(m(lo), m(hi)) for lo, hi in bounds]


@dataclass(frozen=True)
class MultiToDevidx(ModulePass):
    """Lower the multi level to one SPMD program over the symbolic device number."""

    name = "multi-to-devidx"

    allreduce: str = "auto"
    """naive | ring | all2all | auto (ring when N > 2 and numel > ring-threshold)."""
    ring_threshold: int = 256000

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.allreduce not in tuple(AllreduceMode):
            raise PassFailedException(
                f"multi-to-devidx: allreduce={self.allreduce} is not one of "
                f"{', '.join(AllreduceMode)}"
            )
        if self.ring_threshold < 0:
            raise PassFailedException(
                f"multi-to-devidx: ring-threshold must be >= 0, found {self.ring_threshold}"
            )
        devices = program_devices(op)
        if not devices:
            devices = ["CPU:0"]
        for f in op.walk():
            if isinstance(f, func.FuncOp):
                for t in (*f.function_type.inputs.data, *f.function_type.outputs.data):
                    _check_known(f, t, devices)
            for r in f.results:
                _check_known(f, r.type, devices)
        main = _find_main(op)
        if SIGNATURE_ATTR not in op.attributes and main is not None:
            op.attributes[SIGNATURE_ATTR] = main.function_type
        op.attributes[DEVICES_ATTR] = ArrayAttr(StringAttr(n) for n in devices)
        strategy = AllreduceStrategy(AllreduceMode(self.allreduce), self.ring_threshold)
        rules = multi_to_devidx_rules()
        for f in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            if f.is_declaration:
                continue
            if len(f.body.blocks) != 1:
                _fail(f, "functions with more than one block are not supported")
            if f is not main and _is_placed_function(f):
                _fail(
                    f, f"only @main may take or return placed values, found @{f.sym_name.data}"
                )
            if f is main or _uses_placement(f.body):
                _Lowering(devices, strategy, rules).lower_function(f)


def _find_main(module: ModuleOp) -> func.FuncOp | None:
    for f in module.walk():
        if isinstance(f, func.FuncOp) and f.sym_name.data == "main":
            return f
    return None


def _is_placed_function(f: func.FuncOp) -> bool:
    types = (*f.function_type.inputs.data, *f.function_type.outputs.data)
    return any(placement_of(t) is not None for t in types)


def _uses_placement(region: Region) -> bool:
    return any(
        placement_of(t) is not None for op in region.walk() for t in op.result_types
    )


def _check_known(op: Operation, t: Attribute, devices: list[str]) -> None:
    enc = placement_of(t)
    if enc is None:
        return
    unknown = [n for n in enc.device_names if n not in devices]
    if unknown:
        _fail(
            op, f"devices {unknown} are not in the module's multi.devices {devices}"
        )

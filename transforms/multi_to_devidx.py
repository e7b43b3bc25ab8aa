"""Pass `multi-to-devidx`: remove every `multi` op and placement encoding (SPEC §5).

The result is one SPMD program over `d = devidx.device_num` in the form of docs/spmd-form.md:
`@main` takes and returns each device's local buffers, placed values become plain tensors that
are Invalid where a device holds no data, and communication is `devidx.fetch`.

The rules, top to bottom (tinygrad's multi rewrite rules, then its symbolic migration):

| multi level | SPMD form |
|---|---|
| MULTI(x, axis) | `global(x)`: a pad with d-dependent bounds and Invalid fill, shrunk to L |
| MSELECT(x, i) | `select(d == i, x, invalid)` |
| MSTACK(s0..sn) | `index(stack(s0..sn), k(d))` |
| COPY | fetches from the owners; the encodings decide which (see `_Lowering.lower_copy`) |
| ALLREDUCE | naive, ring or all-to-all fetch schedules (see allreduce.py) |
| elementwise / movement / reduce on placed values | the same op on the SPMD values |
| reduce over the shard axis | local reduce of `clean(x)` + allreduce |
| shrink selecting one shard | shrink on the owner + fetch from it |
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NoReturn

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
from xdsl_multi.transforms.allreduce import AllreduceMode, AllreduceStrategy, lower_allreduce
from xdsl_multi.transforms.spmd_builder import ShardGeometry, SpmdBuilder, plain


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

    def __init__(self, devices: list[str], strategy: AllreduceStrategy):
        self.devices = devices
        self.number = {name: i for i, name in enumerate(devices)}
        self.strategy = strategy
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
        operands = [self.vmap.get(o, o) for o in op.operands]
        result: SSAValue | None
        match op:
            case func.ReturnOp():
                f = op.parent_op()
                assert isinstance(f, func.FuncOp)
                outs = [
                    self.to_local(b, v, t)
                    for v, t in zip(operands, f.function_type.outputs.data, strict=True)
                ]
                b.emit(func.ReturnOp(*outs))
                return
            case multi.MultiOp():
                src_t, res_t = op.source.type, op.result.type
                assert isinstance(res_t, TensorType) and isinstance(src_t, TensorType)
                enc = placement_of(res_t)
                assert isinstance(enc, ShardAttr)
                result = b.global_(
                    operands[0], geometry(res_t, enc), self.clamped_position(b, enc.device_names)
                )
            case multi.MselectOp():
                enc = placement_of(op.source.type)
                assert isinstance(enc, OnAttr)
                owner = self.number[enc.device_names[op.index.value.data]]
                result = b.mask(b.eq(b.d, owner), operands[0])
            case multi.MstackOp():
                enc = placement_of(op.result.type)
                assert isinstance(enc, OnAttr)
                stacked = b.value(devidx.StackOp(operands))
                result = b.value(devidx.IndexOp(stacked, b.idx(self.position(b, enc.device_names))))
            case multi.CopyOp():
                result = self.lower_copy(b, op, operands[0])
            case multi.AllreduceOp():
                enc_src, enc_dst = placement_of(op.source.type), placement_of(op.result.type)
                assert isinstance(enc_src, OnAttr) and isinstance(enc_dst, OnAttr)
                result = lower_allreduce(
                    b,
                    op.reduce_kind,
                    operands[0],
                    self.numbers(enc_src.device_names),
                    self.numbers(enc_dst.device_names),
                    self.strategy,
                )
            case tg.ReduceOp() if _reduces_shard_axis(op):
                result = self.lower_reduce_over_shard_axis(b, op, operands[0])
            case tg.ShrinkOp() if op.selected_shard() is not None:
                result = self.lower_shrink_selecting_shard(b, op, operands)
            case _:
                result = self.lower_generic(b, op, operands)
                if result is None:
                    return
                if isinstance(op, tg.ReduceOp):
                    enc = placement_of(op.result.type)
                    if isinstance(enc, ShardAttr):
                        t = op.result.type
                        assert isinstance(t, TensorType)
                        result = self.clean(b, result, t, enc)
        self.vmap[op.results[0]] = result

    def lower_generic(
        self, b: SpmdBuilder, op: Operation, operands: Sequence[SSAValue]
    ) -> SSAValue | None:
        """The same op on SPMD values: encodings dropped from every tensor type."""
        placed = any(placement_of(t) is not None for t in (*op.operand_types, *op.result_types))
        if op.regions and placed:
            _fail(op, "ops with regions on placed values are not supported")
        if not placed:
            new_op = op.clone(value_mapper=dict(self.vmap))
            b.emit(new_op)
            for old, new in zip(op.results, new_op.results, strict=True):
                self.vmap[old] = new
            return None if not op.results else new_op.results[0]
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
        if len(op.results) != 1:
            for old, new in zip(op.results, new_op.results, strict=True):
                self.vmap[old] = new
            return new_op.results[0] if op.results else None
        return new_op.results[0]

    # ---- rules that communicate -------------------------------------------------------------

    def lower_reduce_over_shard_axis(
        self, b: SpmdBuilder, op: tg.ReduceOp, x: SSAValue
    ) -> SSAValue:
        src_t = op.source.type
        assert isinstance(src_t, TensorType)
        enc = placement_of(src_t)
        assert isinstance(enc, ShardAttr)
        cleaned = self.clean(b, x, src_t, enc)
        res_t = op.result.type
        assert isinstance(res_t, TensorType)
        partial = b.value(tg.ReduceOp(op.kind, cleaned, op.axes_list, plain(res_t)))
        members = self.numbers(enc.device_names)
        return lower_allreduce(b, op.reduce_kind, partial, members, members, self.strategy)

    def lower_shrink_selecting_shard(
        self, b: SpmdBuilder, op: tg.ShrinkOp, operands: Sequence[SSAValue]
    ) -> SSAValue:
        enc = placement_of(op.source.type)
        assert isinstance(enc, ShardAttr)
        k = op.selected_shard()
        assert k is not None
        local = b.value(
            tg.ShrinkOp(
                operands[0],
                _map_bounds(op.bounds, self.vmap),
                _strip(op.result.type),
            )
        )
        owner = self.number[enc.device_names[k]]
        return b.mask(self.member(b, enc.device_names), b.fetch(local, owner))

    def lower_copy(self, b: SpmdBuilder, op: multi.CopyOp, x: SSAValue) -> SSAValue:
        src_t, dst_t = op.source.type, op.result.type
        assert isinstance(src_t, TensorType) and isinstance(dst_t, TensorType)
        src, dst = placement_of(src_t), placement_of(dst_t)
        assert src is not None and dst is not None
        kind = copy_kind(src_t, dst_t)
        if kind is CopyKind.KEEP_SLICE:  # a copy stores: Invalid lanes become 0
            assert isinstance(dst, ShardAttr)
            return self.clean(b, b.stored(x), dst_t, dst)
        if kind is CopyKind.PERMUTE:
            return self.permute_buffers(b, x, src.device_names, dst.device_names)
        if (
            isinstance(src, ShardAttr)
            and isinstance(dst, ShardAttr)
            and list(src.device_names) == self.devices
            and list(dst.device_names) == self.devices
        ):
            return self.reshard(b, x, src_t, src, dst_t, dst)
        if (
            isinstance(src, OnAttr)
            and isinstance(dst, ShardAttr)
            and list(dst.device_names) == self.devices
        ):
            return self.scatter_from_one(b, x, src, dst_t, dst)
        logical = self.logical_value(b, x, src_t, src)
        if isinstance(dst, ShardAttr):
            return b.mask(self.member(b, dst.device_names), self.clean(b, logical, dst_t, dst))
        return b.mask(self.member(b, dst.device_names), logical)

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


def _emit_device_num(block: Block) -> SSAValue:
    op = devidx.DeviceNumOp()
    block.add_op(op)
    op.result.name_hint = "d"
    return op.result


def _strip(t: Attribute) -> Attribute:
    return plain(t) if isinstance(t, TensorType) else t


def _reduces_shard_axis(op: tg.ReduceOp) -> bool:
    enc = placement_of(op.source.type)
    return isinstance(enc, ShardAttr) and enc.axis_index in op.axes_list


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
                _Lowering(devices, strategy).lower_function(f)


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

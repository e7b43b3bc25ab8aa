"""multi-to-devidx's lowering of one function (`FunctionLowering`: the value map, the device
set, the placed-value views and the copy schedules the rules share) and the base of its rules
(`MultiRule`). The rules themselves are in placement_rules.py, copy_rules.py,
sharded_rules.py and generic_rules.py; their table is multi_to_devidx.py's docstring."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any, Generic, NoReturn, TypeVar

from xdsl.dialects import func
from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FunctionType,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import PassFailedException

from xdsl_multi.dialects import devidx, multi, tg
from xdsl_multi.dialects.multi import (
    OnAttr,
    ShardAttr,
    placement_of,
)
from xdsl_multi.transforms.multi_to_devidx.allreduce import (
    AllreduceStrategy,
)
from xdsl_multi.transforms.multi_to_devidx.mesh_geometry import MeshGeometry
from xdsl_multi.transforms.multi_to_devidx.spmd_builder import (
    Index,
    ShardGeometry,
    SpmdBuilder,
    plain,
)

OpT = TypeVar("OpT", bound=Operation)


def local_type(t: Attribute) -> Attribute:
    """The type of one device's local buffer of a logical (possibly placed) type."""
    enc = placement_of(t)
    if enc is None or not isinstance(t, TensorType):
        return t
    if isinstance(enc, OnAttr):
        return plain(t)
    return plain(t, mesh_geometry(t, enc).local_shape(t.get_shape()))


def geometry(t: TensorType, enc: ShardAttr) -> ShardGeometry:
    """The geometry of a one-axis shard (the rules that handle one-axis shards only)."""
    return ShardGeometry(enc.axis_index, t.get_shape()[enc.axis_index], enc.num_devices)


def mesh_geometry(t: TensorType, enc: ShardAttr) -> MeshGeometry:
    """The geometry of any shard, a one-axis shard being the 1-D mesh (mesh_geometry.py)."""
    return MeshGeometry.of(t, enc)


def fail_at(op: Operation, msg: str) -> NoReturn:
    """Reject the input at `op` (the driver reports the op's file:line:col)."""
    text = f"multi-to-devidx: {op.name}: {msg}"
    op.emit_error(text, PassFailedException(text))


class FunctionLowering:
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
        self.cleaned: dict[SSAValue, tuple[TensorType, ShardAttr, SSAValue]] = {}
        """A `clean`ed value -> (its type, its encoding, the local buffer it was made from):
        `to_local` of it is that buffer (see `to_local`)."""

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
            k = self.clamped_position(b, enc.device_names)
            return mesh_geometry(t, enc).global_(b, x, k)
        if isinstance(enc, OnAttr):
            return b.mask(self.member(b, enc.device_names), x)
        return x

    def to_local(self, b: SpmdBuilder, x: SSAValue, t: Attribute) -> SSAValue:
        """A result's local buffer from its SPMD value."""
        enc = placement_of(t)
        if isinstance(enc, ShardAttr):
            assert isinstance(t, TensorType)
            known = self.cleaned.get(x)
            if known is not None and known[:2] == (plain(t), enc):
                # local(clean(y)) = local(y): clean keeps exactly the block's lanes and local
                # reads only those (BENCH W7: no local -> global -> local round trip before
                # the return, for specialize-devices and form-kernels to undo per device)
                return known[2]
            k = self.clamped_position(b, enc.device_names)
            return mesh_geometry(t, enc).local(b, x, k)
        return x

    def clean(self, b: SpmdBuilder, x: SSAValue, t: TensorType, enc: ShardAttr) -> SSAValue:
        """x with every lane outside d's block of `enc` made Invalid: global(local(x))."""
        k = self.clamped_position(b, enc.device_names)
        geometry = mesh_geometry(t, enc)
        local = geometry.local(b, x, k)
        out = geometry.global_(b, local, k)
        self.cleaned[out] = (plain(t), enc, local)
        return out

    # ---- meshes: replicas and groups (SPEC §1.1) ----------------------------------------------

    def device_at(self, b: SpmdBuilder, names: Sequence[str], pos: Index) -> Index:
        """The device number of position `pos` of the list `names`."""
        return b.table_at(pos, self.numbers(names))

    def first_replica(self, b: SpmdBuilder, t: TensorType, enc: ShardAttr) -> Index:
        """The device number of the first replica of d's block: d's mesh coordinates with 0 on
        every `none` mesh dim (d itself when no mesh dim is `none`; devices off the list get
        some listed device, and their value is masked)."""
        if None not in enc.mesh_axes:
            return b.d
        k = self.clamped_position(b, enc.device_names)
        g = mesh_geometry(t, enc)
        coords = g.coords(b, k)
        first = [0 if a is None else c for c, a in zip(coords, enc.mesh_axes, strict=True)]
        return self.device_at(b, enc.device_names, g.position(b, first))

    def group_members(
        self, b: SpmdBuilder, t: TensorType, enc: ShardAttr, dims: Sequence[int]
    ) -> list[Index]:
        """The device numbers of d's group over mesh `dims`: the devices whose mesh
        coordinates equal d's except on `dims`, in position order."""
        g = mesh_geometry(t, enc)
        coords = g.coords(b, self.clamped_position(b, enc.device_names))
        ranges = [range(enc.mesh_shape[i]) for i in dims]
        out: list[Index] = []
        for combo in itertools.product(*ranges):
            member = list(coords)
            for i, c in zip(dims, combo, strict=True):
                member[i] = c
            out.append(self.device_at(b, enc.device_names, g.position(b, member)))
        return out

    # ---- functions ----------------------------------------------------------------------------

    def lower_function(self, f: func.FuncOp) -> None:
        old_block = f.body.blocks[0]
        new_block = Block(arg_types=[local_type(a.type) for a in old_block.args])
        for old_arg, new_arg in zip(old_block.args, new_block.args, strict=True):
            new_arg.name_hint = old_arg.name_hint
        b = SpmdBuilder(
            InsertPoint.at_end(new_block),
            len(self.devices),
            SSAValue.get(emit_device_num(new_block)),
            tables=self.strategy.as_ops,
        )
        for old_arg, new_arg in zip(old_block.args, new_block.args, strict=True):
            self.vmap[old_arg] = self.from_local(b, new_arg, old_arg.type)
        for op in list(old_block.ops):
            self.lower_op(b, op)
        outputs = [local_type(t) for t in f.function_type.outputs.data]
        f.function_type = FunctionType.from_lists([a.type for a in new_block.args], outputs)
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

    def applies(self, low: FunctionLowering, op: OpT) -> bool:
        return True

    def lower(
        self, low: FunctionLowering, b: SpmdBuilder, op: OpT, operands: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        raise NotImplementedError


def is_placed(op: Operation) -> bool:
    return any(placement_of(t) is not None for t in (*op.operand_types, *op.result_types))


def rebuild_plain(
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
        result_types=[strip_encoding(t) for t in op.result_types],
        properties=props,
        attributes=dict(op.attributes),
    )
    b.emit(new_op)
    return new_op.results


def emit_device_num(block: Block) -> SSAValue:
    op = devidx.DeviceNumOp()
    block.add_op(op)
    op.result.name_hint = "d"
    return op.result


def strip_encoding(t: Attribute) -> Attribute:
    return plain(t) if isinstance(t, TensorType) else t


def map_bounds(
    bounds: Sequence[tuple[tg.Bound, tg.Bound]], vmap: dict[SSAValue, SSAValue]
) -> list[tuple[tg.Bound, tg.Bound]]:
    def m(v: tg.Bound) -> tg.Bound:
        return v if isinstance(v, int) else vmap.get(v, v)

    return [(m(lo), m(hi)) for lo, hi in bounds]

"""Dialect `devidx`: the symbolic device index form (one SPMD program for every device).

```mlir
%dn = devidx.device_num : index
%inv = devidx.invalid : tensor<8x4xf32>
%st = devidx.stack %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<2x4x4xf32>
%ix = devidx.index %st[%dn] : tensor<2x4x4xf32> -> tensor<4x4xf32>
%k = devidx.lookup %dn in [2, 0, 1] : index
%ft = devidx.fetch %x from %src : tensor<4x4xf32>
devidx.send %y to 1 channel 7 : tensor<4x4xf32>
%rv = devidx.recv from 0 channel 7 : tensor<4x4xf32>
%ar = devidx.allreduce add %x algorithm ring : tensor<4x4xf32>
%ag = devidx.allgather %blk at %k : tensor<2x4xf32> -> tensor<3x2x4xf32>
%bc = devidx.broadcast %x root 1 : tensor<4x4xf32>
%ga = devidx.gather %blk at %k root 0 : tensor<2x4xf32> -> tensor<3x2x4xf32>
%sc = devidx.scatter %st at %k root 0 : tensor<3x2x4xf32> -> tensor<2x4xf32>
%aa = devidx.alltoall %blocks at %k : tensor<3x2x4xf32>
```

tinygrad's migration plan: `_device_num` is `device_num`, `Invalid` is `invalid`,
`STACK(...)[d]` is `index(stack(...), d)`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from xdsl.dialects.builtin import (
    I64,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    MemRefType,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import (
    AttrConstraint,
    IntConstraint,
    IRDLOperation,
    VerificationContext,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import NoMemoryEffect, Pure
from xdsl.utils.exceptions import VerifyException

from xdsl_multi.dialects.multi import ReduceKind
from xdsl_multi.dialects.syntax import (
    expect_static,
    expect_tensor,
    int_list_text,
    parse_i64,
    parse_int_list,
    parse_variadic,
    print_attr_dict,
    print_int_list,
    print_variadic,
)

DEVICE_ATTR = "devidx.device"
"""The attribute that marks a device's nested module with its number K (SPEC §5)."""

SPMD_ATTR = "devidx.spmd"
"""The unit attribute of a kernel-level module whose one host schedule (`@main`, using
`devidx.device_num`) every device of `multi.devices` runs (form-kernels{spmd=true})."""


@irdl_op_definition
class DeviceNumOp(IRDLOperation):
    """This device's number d in [0, N).

    ```mlir
    %dn = devidx.device_num : index
    ```
    tinygrad: the `_device_num` variable of the symbolic multi-device migration.
    """

    name = "devidx.device_num"
    result = result_def(IndexType)
    traits = traits_def(Pure())

    assembly_format = "attr-dict `:` type($result)"

    def __init__(self) -> None:
        super().__init__(result_types=[IndexType()])


@irdl_op_definition
class InvalidOp(IRDLOperation):
    """A tensor with no data: every lane is Invalid (read back as 0 once stored).

    ```mlir
    %inv = devidx.invalid : tensor<8x4xf32>
    ```
    tinygrad: `Invalid` (UOp `Ops.CONST` with arg `Invalid`).
    """

    name = "devidx.invalid"
    result = result_def(TensorType)
    traits = traits_def(Pure())

    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, result_type: Attribute):
        super().__init__(result_types=[result_type])

    def verify_(self) -> None:
        expect_tensor(self.name, "result", self.result.type)


@irdl_op_definition
class StackOp(IRDLOperation):
    """Stack equally typed tensors along a new leading axis.

    ```mlir
    %st = devidx.stack %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<2x4x4xf32>
    ```
    tinygrad: `STACK(s0..sn)`, what MSTACK becomes before it is indexed by the device number.
    """

    name = "devidx.stack"
    sources = var_operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    def __init__(self, sources: Sequence[SSAValue], result_type: Attribute | None = None):
        if result_type is None:
            first = sources[0].type
            assert isinstance(first, TensorType)
            result_type = TensorType(first.element_type, (len(sources), *first.get_shape()))
        super().__init__(operands=[sources], result_types=[result_type])

    @classmethod
    def parse(cls, parser: Parser) -> StackOp:
        operands, attributes, out_type = parse_variadic(parser)
        op = cls(operands, out_type)
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        print_variadic(printer, self)

    def verify_(self) -> None:
        if not self.sources:
            raise VerifyException(f"{self.name}: needs at least one source")
        first = expect_tensor(self.name, "source 0", self.sources[0].type)
        for i, s in enumerate(self.sources):
            t = expect_tensor(self.name, f"source {i}", s.type)
            if t != first:
                raise VerifyException(f"{self.name}: source {i} has type {t}, source 0 has {first}")
        res = expect_tensor(self.name, "result", self.result.type)
        want = TensorType(
            first.element_type, (len(self.sources), *first.get_shape()), first.encoding
        )
        if res != want:
            raise VerifyException(f"{self.name}: result must be {want}, found {res}")


@irdl_op_definition
class IndexOp(IRDLOperation):
    """Entry `index` of the leading axis of a stacked tensor.

    ```mlir
    %ix = devidx.index %st[%dn] : tensor<2x4x4xf32> -> tensor<4x4xf32>
    ```
    tinygrad: `STACK(...)[_device_num]`; an index past the end gives Invalid.
    """

    name = "devidx.index"
    source = operand_def(TensorType)
    index = operand_def(IndexType)
    result = result_def(TensorType)
    traits = traits_def(Pure())

    assembly_format = "$source `[` $index `]` attr-dict `:` type($source) `->` type($result)"

    def __init__(self, source: SSAValue, index: SSAValue, result_type: Attribute | None = None):
        if result_type is None:
            t = source.type
            assert isinstance(t, TensorType)
            result_type = TensorType(t.element_type, t.get_shape()[1:], t.encoding)
        super().__init__(operands=[source, index], result_types=[result_type])

    def verify_(self) -> None:
        src = expect_tensor(self.name, "source", self.source.type)
        res = expect_tensor(self.name, "result", self.result.type)
        if not src.get_shape():
            raise VerifyException(f"{self.name}: source must have rank >= 1, found {src}")
        want = TensorType(src.element_type, src.get_shape()[1:], src.encoding)
        if res != want:
            raise VerifyException(f"{self.name}: result must be {want}, found {res}")


@irdl_op_definition
class LookupOp(IRDLOperation):
    """Entry `%i` of a constant table of integers: one op, whatever the table's length.

    ```mlir
    %k = devidx.lookup %d in [2, 0, 1] : index   // d's position in a permuted device list
    ```
    An SPMD program computes a device's position in a device list that is not in the module's
    order (or whether it is a member of a subset) as `table[d]`; as a chain of selects on d
    that would be N ops. `%i` must be in [0, len(table)) (the interpreter and the runtime
    check it). tinygrad: none (its device lists are always in the order of the tuple).
    """

    name = "devidx.lookup"
    index = operand_def(IndexType)
    table = prop_def(DenseArrayBase.constr(i64))
    result = result_def(IndexType)
    traits = traits_def(Pure())

    def __init__(self, index: SSAValue, table: Sequence[int]):
        super().__init__(
            operands=[index],
            result_types=[IndexType()],
            properties={"table": DenseArrayBase.from_list(i64, list(table))},
        )

    @property
    def values(self) -> tuple[int, ...]:
        return tuple(int(v) for v in self.table.get_values())

    @classmethod
    def parse(cls, parser: Parser) -> LookupOp:
        index = parser.parse_operand(IndexType())
        parser.parse_keyword("in")
        pos = parser.pos
        table = parse_int_list(parser)
        if not table:
            parser.raise_error("devidx.lookup: the table must have at least one entry", pos)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pos = parser.pos
        t = parser.parse_type()
        if not isinstance(t, IndexType):
            parser.raise_error(f"devidx.lookup: the result must be index, found {t}", pos)
        op = cls(index, table)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.index)
        printer.print_string(" in ")
        print_int_list(printer, self.values)
        print_attr_dict(printer, dict(self.attributes))
        printer.print_string(" : index")

    def verify_(self) -> None:
        if not self.values:
            raise VerifyException(f"{self.name}: the table must have at least one entry, found []")


@dataclass(frozen=True)
class TensorOrMemRef(AttrConstraint):
    """A tensor (device level) or a memref (a host schedule at the kernel level)."""

    def verify(self, attr: Attribute, constraint_context: VerificationContext) -> None:
        if not isinstance(attr, TensorType | MemRefType):
            raise VerifyException(f"{attr} should be of base attribute tensor or memref")

    def mapping_type_vars(
        self, type_var_mapping: Mapping[TypeVar, AttrConstraint | IntConstraint]
    ) -> AttrConstraint:
        return self


def _expect_message(op_name: str, what: str, t: Attribute) -> None:
    """A message is a static tensor or, in a host schedule, a static memref."""
    if isinstance(t, MemRefType):
        expect_static(op_name, what, t)
    else:
        expect_tensor(op_name, what, t)


def _check_peer(op_name: str, what: str, peer: int, channel: int) -> None:
    if peer < 0:
        raise VerifyException(f"{op_name}: {what} device {peer} is negative")
    if channel < 0:
        raise VerifyException(f"{op_name}: channel {channel} is negative")


@dataclass(frozen=True)
class _IndexedSyntax:
    """`%value <keyword> %index [root R] {attrs} : T [-> U]`, the form of fetch and of the
    collectives that take each device's index (`at %k`)."""

    value: SSAValue
    index: SSAValue
    root: int | None
    attributes: dict[str, Attribute]
    result_type: Attribute

    @staticmethod
    def parse(parser: Parser, keyword: str, *, root: bool, arrow: bool) -> _IndexedSyntax:
        value = parser.parse_unresolved_operand()
        parser.parse_keyword(keyword)
        index = parser.parse_unresolved_operand()
        root_value = None
        if root:
            parser.parse_keyword("root")
            root_value = parse_i64(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        out = t
        if arrow:
            parser.parse_punctuation("->")
            out = parser.parse_type()
        return _IndexedSyntax(
            parser.resolve_operand(value, t),
            parser.resolve_operand(index, IndexType()),
            root_value,
            attrs,
            out,
        )

    @staticmethod
    def print(
        printer: Printer,
        op: IRDLOperation,
        keyword: str,
        index: SSAValue,
        *,
        root: int | None = None,
        arrow: bool,
    ) -> None:
        value = op.operands[0]
        printer.print_string(" ")
        printer.print_operand(value)
        printer.print_string(f" {keyword} ")
        printer.print_operand(index)
        if root is not None:
            printer.print_string(f" root {root}")
        print_attr_dict(printer, op.attributes)
        printer.print_string(" : ")
        printer.print_attribute(value.type)
        if arrow:
            printer.print_string(" -> ")
            printer.print_attribute(op.results[0].type)


@irdl_op_definition
class FetchOp(IRDLOperation):
    """Every device receives device `src`'s instance of `value` (`src` may depend on d).

    ```mlir
    %ft = devidx.fetch %x from %src : tensor<4x4xf32>
    %fb = devidx.fetch %b from %src : memref<4x4xf32>   // an SPMD host schedule (form-kernels)
    ```
    tinygrad: the COPY between devices of the symbolic migration; becomes send/recv once
    devices are specialized (or, in an SPMD host schedule, at run time).
    """

    name = "devidx.fetch"
    value = operand_def(TensorOrMemRef())
    src = operand_def(IndexType)
    result = result_def(TensorOrMemRef())
    traits = traits_def(NoMemoryEffect())

    def __init__(self, value: SSAValue, src: SSAValue):
        super().__init__(operands=[value, src], result_types=[value.type])

    @classmethod
    def parse(cls, parser: Parser) -> FetchOp:
        syntax = _IndexedSyntax.parse(parser, "from", root=False, arrow=False)
        op = cls(syntax.value, syntax.index)
        op.attributes |= syntax.attributes
        return op

    def print(self, printer: Printer) -> None:
        _IndexedSyntax.print(printer, self, "from", self.src, arrow=False)

    def verify_(self) -> None:
        t = self.value.type
        _expect_message(self.name, "value", t)
        if self.result.type != t:
            raise VerifyException(f"{self.name}: result type {self.result.type} differs from {t}")


@irdl_op_definition
class SendOp(IRDLOperation):
    """Send a value to device `dest` on `channel` (a specialized fetch, sender side).

    ```mlir
    devidx.send %y to 1 channel 7 : tensor<4x4xf32>
    devidx.send %b to 1 channel 7 : memref<4x4xf32>     // in a host schedule (form-kernels)
    ```
    tinygrad: the source half of a cross-device COPY.
    """

    name = "devidx.send"
    value = operand_def(TensorOrMemRef())
    dest = prop_def(IntegerAttr[I64])
    channel = prop_def(IntegerAttr[I64])

    def __init__(self, value: SSAValue, dest: int, channel: int):
        super().__init__(
            operands=[value],
            properties={"dest": IntegerAttr(dest, i64), "channel": IntegerAttr(channel, i64)},
        )

    @classmethod
    def parse(cls, parser: Parser) -> SendOp:
        value = parser.parse_unresolved_operand()
        parser.parse_keyword("to")
        dest = parse_i64(parser)
        parser.parse_keyword("channel")
        channel = parse_i64(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        op = cls(parser.resolve_operand(value, t), dest, channel)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(f" to {self.dest.value.data} channel {self.channel.value.data}")
        print_attr_dict(printer, self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)

    def verify_(self) -> None:
        _expect_message(self.name, "value", self.value.type)
        _check_peer(self.name, "destination", self.dest.value.data, self.channel.value.data)


@irdl_op_definition
class RecvOp(IRDLOperation):
    """Receive a value sent by device `source` on `channel` (a specialized fetch, receiver side).

    ```mlir
    %rv = devidx.recv from 0 channel 7 : tensor<4x4xf32>
    %rb = devidx.recv from 0 channel 7 : memref<4x4xf32>  // in a host schedule (form-kernels)
    ```
    tinygrad: the destination half of a cross-device COPY.
    """

    name = "devidx.recv"
    source = prop_def(IntegerAttr[I64])
    channel = prop_def(IntegerAttr[I64])
    result = result_def(TensorOrMemRef())

    def __init__(self, source: int, channel: int, result_type: Attribute):
        super().__init__(
            result_types=[result_type],
            properties={"source": IntegerAttr(source, i64), "channel": IntegerAttr(channel, i64)},
        )

    @classmethod
    def parse(cls, parser: Parser) -> RecvOp:
        parser.parse_keyword("from")
        source = parse_i64(parser)
        parser.parse_keyword("channel")
        channel = parse_i64(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        op = cls(source, channel, t)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" from {self.source.value.data} channel {self.channel.value.data}")
        print_attr_dict(printer, self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        _expect_message(self.name, "result", self.result.type)
        _check_peer(self.name, "source", self.source.value.data, self.channel.value.data)


ALGORITHMS = ("naive", "ring", "all2all", "hierarchical")
"""The algorithms of `devidx.allreduce` (multi-to-devidx's `allreduce` option, once chosen)."""


def mesh_group(mesh: Sequence[int], dims: Sequence[int], d: int) -> list[int]:
    """The device numbers of d's group when the devices are arranged row-major on `mesh`: the
    devices whose mesh coordinates equal d's except on `dims`, in device order."""
    coords: list[int] = []
    k = d
    for m in reversed(mesh):
        k, c = divmod(k, m)
        coords.append(c)
    coords.reverse()
    members = [0]
    stride = 1
    strides = [0] * len(mesh)
    for i in reversed(range(len(mesh))):
        strides[i] = stride
        stride *= mesh[i]
    base = sum(c * strides[i] for i, c in enumerate(coords) if i not in dims)
    for i in sorted(dims):
        members = [m + c * strides[i] for m in members for c in range(mesh[i])]
    return sorted(base + m for m in members)


@irdl_op_definition
class AllreduceOp(IRDLOperation):
    """Every device gets the `kind` reduction (add, mul, max) of every device's stored `value`
    (Invalid lanes read 0), in device order; `algorithm` says how the runtime moves the data.
    With `groups [m0, m1, ..] over [i, ..]` the devices (in `multi.devices` order) are arranged
    row-major on that mesh and each device reduces only over its group: the devices whose mesh
    coordinates equal its own except on mesh dims i, .. (SPEC §1.1's reduce over split axes).

    ```mlir
    %ar = devidx.allreduce add %x algorithm ring : tensor<4x4xf32>
    %ab = devidx.allreduce add %b algorithm ring : memref<4x4xf32>  // an SPMD host schedule
    %ag = devidx.allreduce add %x algorithm naive groups [2, 2] over [0] : tensor<1x3xf32>
    ```
    With `members [m0, m1, ...]` (device numbers, distinct) only those devices take part:
    each member gets the reduction of the members' stored values, in the table's order; every
    other device gets zeros (its value is not read):

    ```mlir
    %as = devidx.allreduce add %x algorithm naive members [3, 1, 5] : tensor<4xf32>
    ```
    tinygrad: `Ops.ALLREDUCE` over all devices (or a reduce over the shard axis of a value
    sharded over a subset), kept as one op instead of N fetches, so the SPMD program's size
    does not grow with N (docs/spmd-form.md, "Collectives").
    """

    name = "devidx.allreduce"
    value = operand_def(TensorOrMemRef())
    kind = prop_def(StringAttr)
    algorithm = prop_def(StringAttr)
    group_mesh = opt_prop_def(DenseArrayBase[I64])
    group_dims = opt_prop_def(DenseArrayBase[I64])
    members = opt_prop_def(DenseArrayBase.constr(i64))
    result = result_def(TensorOrMemRef())
    traits = traits_def(NoMemoryEffect())

    def __init__(
        self,
        kind: str,
        value: SSAValue,
        algorithm: str = "naive",
        groups: tuple[Sequence[int], Sequence[int]] | None = None,
        members: Sequence[int] | None = None,
    ):
        props: dict[str, Attribute] = {
            "kind": StringAttr(str(kind)),
            "algorithm": StringAttr(str(algorithm)),
        }
        if groups is not None:
            props["group_mesh"] = DenseArrayBase.from_list(i64, list(groups[0]))
            props["group_dims"] = DenseArrayBase.from_list(i64, list(groups[1]))
        if members is not None:
            props["members"] = DenseArrayBase.from_list(i64, list(members))
        super().__init__(operands=[value], result_types=[value.type], properties=props)

    @property
    def reduce_kind(self) -> ReduceKind:
        return ReduceKind(self.kind.data)

    @property
    def groups(self) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        """(the mesh, the reduced mesh dims) of a grouped allreduce; None: every device."""
        if self.group_mesh is None or self.group_dims is None:
            return None
        return tuple(self.group_mesh.get_values()), tuple(self.group_dims.get_values())

    def group_of(self, d: int, num_devices: int) -> list[int]:
        """The devices device d reduces over (every device when not grouped)."""
        groups = self.groups
        if groups is None:
            return list(range(num_devices))
        return mesh_group(groups[0], groups[1], d)

    @property
    def member_devices(self) -> tuple[int, ...] | None:
        """The `members` table (None: every device takes part)."""
        if self.members is None:
            return None
        return tuple(int(v) for v in self.members.get_values())

    @classmethod
    def parse(cls, parser: Parser) -> AllreduceOp:
        kind = parser.parse_keyword_in(list(ReduceKind))
        value = parser.parse_unresolved_operand()
        parser.parse_keyword("algorithm")
        algorithm = parser.parse_keyword_in(list(ALGORITHMS))
        groups = None
        if parser.parse_optional_keyword("groups") is not None:
            mesh = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
            parser.parse_keyword("over")
            dims = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
            groups = (mesh, dims)
        members = parse_int_list(parser) if parser.parse_optional_keyword("members") else None
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        op = cls(kind, parser.resolve_operand(value, t), algorithm, groups, members)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")
        printer.print_operand(self.value)
        printer.print_string(f" algorithm {self.algorithm.data}")
        groups = self.groups
        if groups is not None:
            printer.print_string(
                f" groups {int_list_text(groups[0])} over {int_list_text(groups[1])}"
            )
        if (members := self.member_devices) is not None:
            printer.print_string(" members ")
            print_int_list(printer, members)
        print_attr_dict(printer, self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)

    def verify_(self) -> None:
        _expect_message(self.name, "value", self.value.type)
        if self.kind.data not in tuple(ReduceKind):
            raise VerifyException(
                f"{self.name}: kind '{self.kind.data}' is not one of {', '.join(ReduceKind)}"
            )
        if self.algorithm.data not in ALGORITHMS:
            raise VerifyException(
                f"{self.name}: algorithm '{self.algorithm.data}' is not one of "
                f"{', '.join(ALGORITHMS)}"
            )
        if self.result.type != self.value.type:
            raise VerifyException(
                f"{self.name}: result type {self.result.type} differs from {self.value.type}"
            )
        if (self.group_mesh is None) != (self.group_dims is None):
            raise VerifyException(f"{self.name}: groups need both the mesh and the reduced dims")
        groups = self.groups
        if groups is not None:
            mesh, dims = groups
            if not mesh or any(m < 1 for m in mesh):
                raise VerifyException(
                    f"{self.name}: the groups' mesh must have dims >= 1, found "
                    f"{int_list_text(mesh)}"
                )
            if not dims or len(set(dims)) != len(dims) or any(not 0 <= i < len(mesh) for i in dims):
                raise VerifyException(
                    f"{self.name}: the reduced mesh dims must be distinct dims of the "
                    f"{len(mesh)}-D mesh {int_list_text(mesh)}, found {int_list_text(dims)}"
                )
        members = self.member_devices
        if members is not None and (
            not members or min(members) < 0 or len(set(members)) != len(members)
        ):
            raise VerifyException(
                f"{self.name}: members must be distinct device numbers >= 0, at least one, "
                f"found {list(members)}"
            )
        if groups is not None and members is not None:
            raise VerifyException(
                f"{self.name}: an allreduce has groups or members, not both"
            )
        if self.algorithm.data == "hierarchical" and (groups is None or len(groups[1]) < 2):
            raise VerifyException(
                f"{self.name}: algorithm hierarchical needs groups over two or more mesh dims, "
                f"found {'no groups' if groups is None else int_list_text(groups[1])}"
            )


@irdl_op_definition
class AllgatherOp(IRDLOperation):
    """Every device gets every device's stored `value` (Invalid lanes read 0) stacked along a
    new leading axis of n entries: device d's value is entry `position` as d computes it (the
    positions of the devices are a permutation of [0, n), n the number of devices).

    ```mlir
    %ag = devidx.allgather %blk at %k : tensor<2x4xf32> -> tensor<3x2x4xf32>
    %gb = devidx.allgather %b at %k : memref<2x4xf32> -> memref<3x2x4xf32>  // a host schedule
    ```
    tinygrad: the all-gather of a COPY from a shard to every device, one op instead of N
    fetches (docs/spmd-form.md, "Collectives").
    """

    name = "devidx.allgather"
    value = operand_def(TensorOrMemRef())
    position = operand_def(IndexType)
    result = result_def(TensorOrMemRef())
    traits = traits_def(NoMemoryEffect())

    def __init__(self, value: SSAValue, position: SSAValue, result_type: Attribute):
        super().__init__(operands=[value, position], result_types=[result_type])

    @staticmethod
    def stacked_type(t: Attribute, n: int) -> Attribute:
        """The result type of gathering n values of type `t` (a tensor or a memref)."""
        if isinstance(t, MemRefType):
            return MemRefType(t.element_type, (n, *t.get_shape()))
        assert isinstance(t, TensorType)
        return TensorType(t.element_type, (n, *t.get_shape()))

    @classmethod
    def parse(cls, parser: Parser) -> AllgatherOp:
        syntax = _IndexedSyntax.parse(parser, "at", root=False, arrow=True)
        op = cls(syntax.value, syntax.index, syntax.result_type)
        op.attributes |= syntax.attributes
        return op

    def print(self, printer: Printer) -> None:
        _IndexedSyntax.print(printer, self, "at", self.position, arrow=True)

    def verify_(self) -> None:
        t, out = self.value.type, self.result.type
        _expect_message(self.name, "value", t)
        _expect_message(self.name, "result", out)
        assert isinstance(t, TensorType | MemRefType) and isinstance(out, TensorType | MemRefType)
        shape = out.get_shape()
        if type(out) is not type(t) or not shape or shape[0] < 1:
            raise VerifyException(
                f"{self.name}: result must be a {'memref' if isinstance(t, MemRefType) else 'tensor'}"
                f" with a leading axis of n >= 1 entries of {t}, found {out}"
            )
        want = self.stacked_type(t, shape[0])
        if out != want:
            raise VerifyException(f"{self.name}: result must be {want}, found {out}")


@irdl_op_definition
class BroadcastOp(IRDLOperation):
    """Every device gets device `root`'s stored `value` (Invalid lanes read 0); the other
    devices' `value` is not read.

    ```mlir
    %bc = devidx.broadcast %x root 1 : tensor<4x4xf32>
    %bb = devidx.broadcast %b root 1 : memref<4x4xf32>   // an SPMD host schedule
    ```
    tinygrad: a COPY from one device to every device, one op instead of N - 1 fetches.
    """

    name = "devidx.broadcast"
    value = operand_def(TensorOrMemRef())
    root = prop_def(IntegerAttr[I64])
    result = result_def(TensorOrMemRef())
    traits = traits_def(NoMemoryEffect())

    def __init__(self, value: SSAValue, root: int):
        super().__init__(
            operands=[value], result_types=[value.type], properties={"root": IntegerAttr(root, i64)}
        )

    @classmethod
    def parse(cls, parser: Parser) -> BroadcastOp:
        value = parser.parse_unresolved_operand()
        parser.parse_keyword("root")
        root = parse_i64(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        op = cls(parser.resolve_operand(value, t), root)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(f" root {self.root.value.data}")
        print_attr_dict(printer, self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)

    def verify_(self) -> None:
        _expect_message(self.name, "value", self.value.type)
        if self.root.value.data < 0:
            raise VerifyException(f"{self.name}: root device {self.root.value.data} is negative")
        if self.result.type != self.value.type:
            raise VerifyException(
                f"{self.name}: result type {self.result.type} differs from {self.value.type}"
            )


def _leading_axis(op_name: str, stacked: Attribute, block: Attribute, what: str) -> None:
    """`stacked` must be n >= 1 entries of `block` on a new leading axis (same kind of type)."""
    assert isinstance(stacked, TensorType | MemRefType)
    shape = stacked.get_shape()
    if type(stacked) is not type(block) or not shape or shape[0] < 1:
        kind = "memref" if isinstance(block, MemRefType) else "tensor"
        raise VerifyException(
            f"{op_name}: {what} must be a {kind} with a leading axis of n >= 1 entries of "
            f"{block}, found {stacked}"
        )
    want = AllgatherOp.stacked_type(block, shape[0])
    if stacked != want:
        raise VerifyException(f"{op_name}: {what} must be {want}, found {stacked}")


class _RootedCollective(IRDLOperation):
    """`devidx.gather` and `devidx.scatter`: `%value at %position root r : T -> U`."""

    value = operand_def(TensorOrMemRef())
    position = operand_def(IndexType)
    root = prop_def(IntegerAttr[I64])
    result = result_def(TensorOrMemRef())
    traits = traits_def(NoMemoryEffect())

    def __init__(self, value: SSAValue, position: SSAValue, root: int, result_type: Attribute):
        super().__init__(
            operands=[value, position],
            result_types=[result_type],
            properties={"root": IntegerAttr(root, i64)},
        )

    @classmethod
    def parse(cls, parser: Parser) -> _RootedCollective:
        syntax = _IndexedSyntax.parse(parser, "at", root=True, arrow=True)
        assert syntax.root is not None
        op = cls(syntax.value, syntax.index, syntax.root, syntax.result_type)
        op.attributes |= syntax.attributes
        return op

    def print(self, printer: Printer) -> None:
        _IndexedSyntax.print(
            printer, self, "at", self.position, root=self.root.value.data, arrow=True
        )

    def _verify_common(self) -> None:
        _expect_message(self.name, "value", self.value.type)
        _expect_message(self.name, "result", self.result.type)
        if self.root.value.data < 0:
            raise VerifyException(f"{self.name}: root device {self.root.value.data} is negative")


@irdl_op_definition
class GatherOp(_RootedCollective):
    """Device `root` gets every device's stored `value` (Invalid lanes read 0) stacked along a
    new leading axis of n entries, device d's at entry `position` as d computes it (the
    devices' positions are a permutation of [0, n)); every other device gets zeros.

    ```mlir
    %ga = devidx.gather %blk at %k root 0 : tensor<2x4xf32> -> tensor<3x2x4xf32>
    %gb = devidx.gather %b at %k root 0 : memref<2x4xf32> -> memref<3x2x4xf32>  // host schedule
    ```
    tinygrad: a COPY from a shard over every device to one device, one op instead of N
    fetches (docs/spmd-form.md, "Collectives").
    """

    name = "devidx.gather"

    def verify_(self) -> None:
        self._verify_common()
        _leading_axis(self.name, self.result.type, self.value.type, "result")


@irdl_op_definition
class ScatterOp(_RootedCollective):
    """Every device gets entry `position` (as it computes it) of device `root`'s stored
    `value` (n entries on the leading axis; the devices' positions are a permutation of
    [0, n)); the other devices' `value` is not read.

    ```mlir
    %sc = devidx.scatter %st at %k root 0 : tensor<3x2x4xf32> -> tensor<2x4xf32>
    ```
    tinygrad: a COPY from one device to a shard over every device, one op instead of N
    fetches.
    """

    name = "devidx.scatter"

    def verify_(self) -> None:
        self._verify_common()
        _leading_axis(self.name, self.value.type, self.result.type, "value")


@irdl_op_definition
class AlltoallOp(IRDLOperation):
    """Entry j of the stored `value` of the device at position i becomes entry i of the result
    of the device at position j (positions as each device computes them, a permutation of
    [0, n), n the leading axis).

    ```mlir
    %aa = devidx.alltoall %blocks at %k : tensor<3x2x4xf32>
    %ab = devidx.alltoall %b at %k : memref<3x2x4xf32>   // an SPMD host schedule
    ```
    With `from %i` the senders are placed by their own table: entry j of the stored `value`
    of the device whose `%i` is i becomes entry i of the result of the device whose `%k` is
    j (a reshard between two device lists; both tables permutations of [0, n)):

    ```mlir
    %ft = devidx.alltoall %blocks at %k from %i : tensor<3x2x4xf32>
    ```
    With `from %i rows S -> T of L` it moves rows of a value split on its leading axis between
    two device lists: the device whose `%i` is i holds (stored `value`, S rows) rows
    [i*S, i*S + S) of an L-row logical value, and the device whose `%k` is j gets rows
    [j*T, j*T + T) of it (its result, T rows; rows past L are 0). Each pair exchanges only
    the rows their two ranges share (none for most pairs), so a reshard moves about L/n rows
    per device, not L; positions past the lists' lengths own and get nothing:

    ```mlir
    %rs = devidx.alltoall %blk at %k from %i rows 4 -> 3 of 10 : tensor<4x5xf32> -> tensor<3x5xf32>
    ```
    tinygrad: a COPY between two shardings, one op instead of N fetches.
    """

    name = "devidx.alltoall"
    value = operand_def(TensorOrMemRef())
    position = operand_def(IndexType)
    source = opt_operand_def(IndexType)
    rows = opt_prop_def(DenseArrayBase.constr(i64))
    """`[S, T, L]` of the `from ... rows S -> T of L` form."""
    result = result_def(TensorOrMemRef())
    traits = traits_def(NoMemoryEffect())

    def __init__(
        self,
        value: SSAValue,
        position: SSAValue,
        source: SSAValue | None = None,
        rows: tuple[int, int, int] | None = None,
        result_type: Attribute | None = None,
    ):
        super().__init__(
            operands=[value, position, [] if source is None else [source]],
            result_types=[value.type if result_type is None else result_type],
            properties={} if rows is None else {"rows": DenseArrayBase.from_list(i64, rows)},
        )

    @property
    def row_split(self) -> tuple[int, int, int] | None:
        """(S, T, L) of the `rows` form, None for the stacked form."""
        if self.rows is None:
            return None
        s, t, length = (int(v) for v in self.rows.get_values())
        return s, t, length

    @classmethod
    def parse(cls, parser: Parser) -> AlltoallOp:
        value = parser.parse_unresolved_operand()
        parser.parse_keyword("at")
        index = parser.parse_unresolved_operand()
        if not parser.parse_optional_keyword("from"):
            attrs = parser.parse_optional_attr_dict()
            parser.parse_punctuation(":")
            t = parser.parse_type()
            op = cls(parser.resolve_operand(value, t), parser.resolve_operand(index, IndexType()))
            op.attributes |= attrs
            return op
        source = parser.parse_unresolved_operand()
        if not parser.parse_optional_keyword("rows"):
            attrs = parser.parse_optional_attr_dict()
            parser.parse_punctuation(":")
            t = parser.parse_type()
            op = cls(
                parser.resolve_operand(value, t),
                parser.resolve_operand(index, IndexType()),
                parser.resolve_operand(source, IndexType()),
            )
            op.attributes |= attrs
            return op
        s = parse_i64(parser)
        parser.parse_punctuation("->")
        t_rows = parse_i64(parser)
        parser.parse_keyword("of")
        length = parse_i64(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        parser.parse_punctuation("->")
        out = parser.parse_type()
        op = cls(
            parser.resolve_operand(value, t),
            parser.resolve_operand(index, IndexType()),
            parser.resolve_operand(source, IndexType()),
            (s, t_rows, length),
            out,
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(" at ")
        printer.print_operand(self.position)
        if self.source is not None:
            printer.print_string(" from ")
            printer.print_operand(self.source)
        split = self.row_split
        if split is not None:
            printer.print_string(f" rows {split[0]} -> {split[1]} of {split[2]}")
        print_attr_dict(printer, self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)
        if split is not None:
            printer.print_string(" -> ")
            printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        t, out = self.value.type, self.result.type
        _expect_message(self.name, "value", t)
        assert isinstance(t, TensorType | MemRefType)
        if not t.get_shape() or t.get_shape()[0] < 1:
            raise VerifyException(
                f"{self.name}: value must have a leading axis of n >= 1 entries, found {t}"
            )
        split = self.row_split
        if split is not None and self.source is None:
            raise VerifyException(
                f"{self.name}: `rows S -> T of L` needs `from %i`, found rows without from"
            )
        if split is None:
            if out != t:
                raise VerifyException(f"{self.name}: result type {out} differs from {t}")
            return
        _expect_message(self.name, "result", out)
        assert isinstance(out, TensorType | MemRefType)
        s, t_rows, length = split
        if min(s, t_rows) < 1 or length < 0:
            raise VerifyException(
                f"{self.name}: rows S -> T of L needs S, T >= 1 and L >= 0, found "
                f"{s} -> {t_rows} of {length}"
            )
        shape = t.get_shape()
        want_in = (s, *shape[1:])
        want_out = (t_rows, *shape[1:])
        if shape != want_in or out.get_shape() != want_out or type(out) is not type(t) or (
            out.get_element_type() != t.get_element_type()
        ):
            raise VerifyException(
                f"{self.name}: rows {s} -> {t_rows} needs a value of {s} leading rows and a "
                f"result of {t_rows} rows of the same kind, trailing shape and element type, "
                f"found {t} -> {out}"
            )


COLLECTIVES = (AllreduceOp, AllgatherOp, BroadcastOp, GatherOp, ScatterOp, AlltoallOp)
"""The collective ops of an SPMD program: every device takes part, each gets a fresh value."""

Devidx = Dialect(
    "devidx",
    [
        DeviceNumOp,
        InvalidOp,
        StackOp,
        IndexOp,
        LookupOp,
        FetchOp,
        SendOp,
        RecvOp,
        AllreduceOp,
        AllgatherOp,
        BroadcastOp,
        GatherOp,
        ScatterOp,
        AlltoallOp,
    ],
    [],
)

__all__ = [
    "ALGORITHMS",
    "COLLECTIVES",
    "SPMD_ATTR",
    "AllgatherOp",
    "AllreduceOp",
    "AlltoallOp",
    "BroadcastOp",
    "DeviceNumOp",
    "Devidx",
    "FetchOp",
    "GatherOp",
    "IndexOp",
    "InvalidOp",
    "LookupOp",
    "RecvOp",
    "ScatterOp",
    "SendOp",
    "StackOp",
]

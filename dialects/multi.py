"""Dialect `multi`: tinygrad's multi-device graph ops and the two placement encodings.

Placement lives in the tensor type's encoding (SPEC §1):

```mlir
tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>            // one buffer per device
tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> // MULTI: split along axis 0
```

A `#multi.on` type carries the shape of each device's buffer; a `#multi.shard` type carries the
full logical shape. Shards of a logical axis of length L over N devices are ceil(L / N) rows
each, the last ones possibly short or empty (see `shard_bounds`).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from xdsl.dialects.builtin import (
    I64,
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    IntAttr,
    IntegerAttr,
    ModuleOp,
    NoneAttr,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import (
    Attribute,
    Block,
    BlockArgument,
    Dialect,
    Operation,
    ParametrizedAttribute,
    SSAValue,
)
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import NoMemoryEffect
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from xdsl_multi.dialects.parsing import parse_optional_plain_string_list
from xdsl_multi.dialects.syntax import (
    RankedEncoding,
    encoding_of,
    expect_tensor,
    no_extra,
    parse_i64,
    parse_unary,
    parse_variadic,
    plural,
    print_unary,
    print_variadic,
    string_list,
    string_literal,
)

# --------------------------------------------------------------------------------------------
# Shard arithmetic (SPEC §1)
# --------------------------------------------------------------------------------------------


def local_length(length: int, num_devices: int) -> int:
    """Rows of every device's local buffer: s = ceil(L / N)."""
    return -(-length // num_devices)


def shard_bounds(length: int, num_devices: int, k: int) -> tuple[int, int]:
    """Rows [lo, hi) of the logical axis owned by the device at position k of the encoding."""
    s = local_length(length, num_devices)
    return min(k * s, length), min((k + 1) * s, length)


# --------------------------------------------------------------------------------------------
# Encodings
# --------------------------------------------------------------------------------------------


def _parse_device_list(parser: AttrParser) -> ArrayAttr[StringAttr]:
    pos = parser.pos
    names = parse_optional_plain_string_list(parser)
    if names is None:
        names = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: parser.parse_str_literal(" (a device name)")
        )
    if not names:
        parser.raise_error("a device list must name at least one device", pos, parser.pos)
    seen: set[str] = set()
    for name in names:
        if name in seen:
            parser.raise_error(
                f"device {string_literal(name)} appears twice in the list", pos, parser.pos
            )
        seen.add(name)
    return ArrayAttr(StringAttr(n) for n in names)


def _print_device_list(printer: Printer, devices: ArrayAttr[StringAttr]) -> None:
    printer.print_string("[")
    printer.print_list(devices.data, lambda s: printer.print_string_literal(s.data))
    printer.print_string("]")


def _verify_device_list(attr_name: str, devices: ArrayAttr[StringAttr]) -> None:
    names = [d.data for d in devices.data]
    if not names:
        raise VerifyException(f"{attr_name}: a device list must name at least one device")
    if len(set(names)) != len(names):
        raise VerifyException(f"{attr_name}: device names repeat in {string_list(names)}")


@irdl_attr_definition
class OnAttr(ParametrizedAttribute):
    """`#multi.on<["CPU:0", "CPU:1"]>`: one buffer per listed device (a tuple-device value).

    tinygrad: a UOp whose device is a tuple of devices. One device is an ordinary tensor.
    """

    name = "multi.on"
    devices: ArrayAttr[StringAttr]

    def __init__(self, devices: Sequence[str] | ArrayAttr[StringAttr]):
        if not isinstance(devices, ArrayAttr):
            devices = ArrayAttr(StringAttr(d) for d in devices)
        super().__init__(devices)

    @property
    def device_names(self) -> tuple[str, ...]:
        return tuple(d.data for d in self.devices.data)

    @property
    def num_devices(self) -> int:
        return len(self.devices.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (_parse_device_list(parser),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            _print_device_list(printer, self.devices)

    def verify(self) -> None:
        _verify_device_list("#multi.on", self.devices)


@irdl_attr_definition
class ShardAttr(ParametrizedAttribute, RankedEncoding):
    """`#multi.shard<["CPU:0", "CPU:1"], axis = 0>`: the logical tensor split along `axis`.

    tinygrad: MULTI(x, axis), a multi-device buffer with `axis` set.
    """

    name = "multi.shard"
    devices: ArrayAttr[StringAttr]
    axis: IntAttr

    def __init__(self, devices: Sequence[str] | ArrayAttr[StringAttr], axis: int | IntAttr):
        if not isinstance(devices, ArrayAttr):
            devices = ArrayAttr(StringAttr(d) for d in devices)
        super().__init__(devices, IntAttr(axis) if isinstance(axis, int) else axis)

    @property
    def device_names(self) -> tuple[str, ...]:
        return tuple(d.data for d in self.devices.data)

    @property
    def num_devices(self) -> int:
        return len(self.devices.data)

    @property
    def axis_index(self) -> int:
        return self.axis.data

    def rank_error(self, rank: int) -> str | None:
        if self.axis_index < rank:
            return None
        return f"is sharded on axis {self.axis_index}, out of range for rank {rank}"

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            devices = _parse_device_list(parser)
            parser.parse_punctuation(",")
            parser.parse_keyword("axis")
            parser.parse_punctuation("=")
            pos = parser.pos
            # `>` follows, so an integer literal cannot swallow a type (the `0xf32` problem of
            # shape dimensions); reading the sign here gives the rule's own message.
            axis = parser.parse_integer(allow_boolean=False, context_msg=" for the shard axis")
            if axis < 0:
                parser.raise_error(f"shard axis must be >= 0, found {axis}", pos, parser.pos)
        return (devices, IntAttr(axis))

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            _print_device_list(printer, self.devices)
            printer.print_string(f", axis = {self.axis.data}")

    def verify(self) -> None:
        _verify_device_list("#multi.shard", self.devices)
        if self.axis.data < 0:
            raise VerifyException(f"#multi.shard: axis must be >= 0, found {self.axis.data}")


Placement = OnAttr | ShardAttr


def placement_of(t: Attribute) -> OnAttr | ShardAttr | None:
    """The placement encoding of a tensor type, or None for an unplaced value."""
    if isinstance(t, TensorType):
        enc = encoding_of(t)
        if isinstance(enc, OnAttr | ShardAttr):
            return enc
    return None


def on_type(t: TensorType, devices: Sequence[str]) -> TensorType:
    """`t`'s shape and element type placed on `devices`."""
    return TensorType(t.element_type, t.get_shape(), OnAttr(devices))


def shard_type(
    element_type: Attribute, shape: Sequence[int], devices: Sequence[str], axis: int
) -> TensorType:
    return TensorType(element_type, shape, ShardAttr(devices, axis))


def _expect_on(op_name: str, what: str, t: TensorType) -> OnAttr:
    enc = placement_of(t)
    if not isinstance(enc, OnAttr):
        raise VerifyException(
            f"{op_name}: {what} must be placed on a tuple of devices (#multi.on), found {t}"
        )
    return enc


def _expect_placed(op_name: str, what: str, t: TensorType) -> OnAttr | ShardAttr:
    enc = placement_of(t)
    if enc is None:
        raise VerifyException(
            f"{op_name}: {what} must be placed (#multi.on or #multi.shard), found {t}"
        )
    return enc


def _same_element_type(op_name: str, a: TensorType, b: TensorType) -> None:
    if a.element_type != b.element_type:
        raise VerifyException(
            f"{op_name}: element types differ: source {a.element_type}, result {b.element_type}"
        )


class ReduceKind(StrEnum):
    """The reductions of `multi.allreduce` and `tg.reduce`: the values of their `kind`
    property (a StringAttr, so the generic form stays `kind = "add"` and a wrong string gets the
    verifier's message; `ReduceKind.ADD == "add"`)."""

    ADD = "add"
    MUL = "mul"
    MAX = "max"


def parse_reduce_kind(parser: Parser) -> ReduceKind:
    return ReduceKind(parser.parse_keyword_in(list(ReduceKind)))  # its message lists the kinds


def reduce_kind_of(op_name: str, kind: StringAttr) -> ReduceKind:
    """The `kind` property as a ReduceKind, or the verifier's error naming the wrong string."""
    try:
        return ReduceKind(kind.data)
    except ValueError:
        raise VerifyException(
            f"{op_name}: reduction '{kind.data}' is not one of {', '.join(ReduceKind)}"
        ) from None


# --------------------------------------------------------------------------------------------
# Ops
# --------------------------------------------------------------------------------------------


class _UnaryMultiOp(IRDLOperation):
    """Shared shape of the multi ops with one tensor operand and one tensor result."""

    source = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(NoMemoryEffect())

    def _types(self) -> tuple[TensorType, TensorType]:
        src = expect_tensor(self.name, "source", self.source.type)
        res = expect_tensor(self.name, "result", self.result.type)
        return src, res


@irdl_op_definition
class MultiOp(_UnaryMultiOp):
    """MULTI: per-device buffers that together form a tensor split along `axis`.

    ```mlir
    %m = multi.multi %x axis 0 : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
           -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
    ```
    tinygrad: `UOp(Ops.MULTI, src=(x,), arg=axis)`.
    """

    name = "multi.multi"
    axis = prop_def(IntegerAttr[I64])

    def __init__(self, source: SSAValue, axis: int, result_type: Attribute):
        super().__init__(
            operands=[source],
            result_types=[result_type],
            properties={"axis": IntegerAttr(axis, i64)},
        )

    @classmethod
    def parse(cls, parser: Parser) -> MultiOp:
        def axis() -> int:
            parser.parse_keyword("axis")
            return parse_i64(parser)

        form = parse_unary(parser, axis)
        return form.finish(cls(form.resolve(parser), form.extra, form.out_type))

    def print(self, printer: Printer) -> None:
        print_unary(printer, self, self.source, f" axis {self.axis.value.data}")

    @classmethod
    def infer_result_type(
        cls, source: TensorType, axis: int, length: int | None = None
    ) -> TensorType:
        """The result type: `source` (placed on a tuple) as a `#multi.shard` on its devices
        along `axis`. The logical `length` of that axis is the free choice (any L with
        ceil(L / N) equal to the local length); None takes the even length N * local."""
        on = _expect_on(cls.name, "source", source)
        rank = len(source.get_shape())
        if not 0 <= axis < rank:
            raise VerifyException(f"{cls.name}: axis {axis} is out of range for rank {rank}")
        local, n = source.get_shape()[axis], on.num_devices
        if length is None:
            length = local * n
        elif local_length(length, n) != local:
            raise VerifyException(
                f"{cls.name}: local length {local} on axis {axis} does not fit logical "
                f"length {length} over {plural(n, 'device')} (expected "
                f"ceil({length}/{n}) = {local_length(length, n)})"
            )
        shape = list(source.get_shape())
        shape[axis] = length
        return shard_type(source.element_type, shape, on.device_names, axis)

    def verify_(self) -> None:
        src, res = self._types()
        axis = self.axis.value.data
        on = placement_of(self.infer_result_type(src, axis))
        assert isinstance(on, ShardAttr)
        shard = placement_of(res)
        if not isinstance(shard, ShardAttr):
            raise VerifyException(f"{self.name}: result must be #multi.shard, found {res}")
        if shard.device_names != on.device_names:
            raise VerifyException(
                f"{self.name}: result devices {string_list(shard.device_names)} differ from "
                f"source devices {string_list(on.device_names)}"
            )
        if shard.axis_index != axis:
            raise VerifyException(
                f"{self.name}: result is sharded on axis {shard.axis_index}, op axis is {axis}"
            )
        _same_element_type(self.name, src, res)
        local, logical = src.get_shape(), res.get_shape()
        if len(local) != len(logical):
            raise VerifyException(
                f"{self.name}: result rank {len(logical)} differs from source rank {len(local)}"
            )
        for i, (s, big) in enumerate(zip(local, logical, strict=True)):
            if i != axis and s != big:
                raise VerifyException(
                    f"{self.name}: dimension {i} is {big} in the result but {s} in the source"
                )
        self.infer_result_type(src, axis, logical[axis])


@irdl_op_definition
class LocalOp(_UnaryMultiOp):
    """The inverse of MULTI: each device's local buffer of a shard value, as a `#multi.on` value
    on the same devices with the local (ceil) shape; rows past the logical length are Invalid.

    ```mlir
    %l = multi.local %m : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
           -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
    ```
    tinygrad: `UNSHARD.src[0]` (the per-device buffers under a MULTI).
    """

    name = "multi.local"
    assembly_format = "$source attr-dict `:` type($source) `->` type($result)"

    def __init__(self, source: SSAValue, result_type: Attribute):
        super().__init__(operands=[source], result_types=[result_type])

    @classmethod
    def infer_result_type(cls, source: TensorType) -> TensorType:
        """The result type: each device's local buffer of the shard value `source` (the ceil
        length along the shard axis), placed on the shard's devices in order."""
        shard = placement_of(source)
        if not isinstance(shard, ShardAttr):
            raise VerifyException(f"{cls.name}: source must be #multi.shard, found {source}")
        logical = source.get_shape()
        axis, n = shard.axis_index, shard.num_devices
        if axis >= len(logical):
            raise VerifyException(
                f"{cls.name}: source shard axis {axis} is out of range for rank {len(logical)}"
            )
        local = list(logical)
        local[axis] = local_length(logical[axis], n)
        return TensorType(source.element_type, local, OnAttr(shard.device_names))

    def verify_(self) -> None:
        src, res = self._types()
        want_t = self.infer_result_type(src)
        shard = placement_of(src)
        assert isinstance(shard, ShardAttr)
        on = placement_of(res)
        if not isinstance(on, OnAttr):
            raise VerifyException(
                f"{self.name}: result must be placed on a tuple of devices (#multi.on), "
                f"found {res}"
            )
        if on.device_names != shard.device_names:
            raise VerifyException(
                f"{self.name}: result devices {string_list(on.device_names)} differ from "
                f"source devices {string_list(shard.device_names)}"
            )
        _same_element_type(self.name, src, res)
        logical, local = src.get_shape(), res.get_shape()
        axis, n = shard.axis_index, shard.num_devices
        want = list(want_t.get_shape())
        if list(local) != want:
            raise VerifyException(
                f"{self.name}: result shape {list(local)} is not the local shape {want} of "
                f"{list(logical)} sharded on axis {axis} over {plural(n, 'device')} "
                f"(ceil({logical[axis]}/{n}) = {want[axis]} rows)"
            )


@irdl_op_definition
class MselectOp(_UnaryMultiOp):
    """MSELECT: device `index`'s buffer out of a multi-device buffer.

    ```mlir
    %s = multi.mselect %x[1] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
           -> tensor<4x4xf32, #multi.on<["CPU:1"]>>
    ```
    tinygrad: `UOp(Ops.MSELECT, src=(x,), arg=index)`.
    """

    name = "multi.mselect"
    index = prop_def(IntegerAttr[I64])

    def __init__(self, source: SSAValue, index: int, result_type: Attribute):
        super().__init__(
            operands=[source],
            result_types=[result_type],
            properties={"index": IntegerAttr(index, i64)},
        )

    @classmethod
    def parse(cls, parser: Parser) -> MselectOp:
        def index() -> int:
            parser.parse_punctuation("[")
            value = parse_i64(parser)
            parser.parse_punctuation("]")
            return value

        form = parse_unary(parser, index)
        return form.finish(cls(form.resolve(parser), form.extra, form.out_type))

    def print(self, printer: Printer) -> None:
        print_unary(printer, self, self.source, f"[{self.index.value.data}]")

    @classmethod
    def infer_result_type(cls, source: TensorType, index: int) -> TensorType:
        """The result type: `source`'s buffer shape on exactly its device number `index`."""
        on = _expect_on(cls.name, "source", source)
        if not 0 <= index < on.num_devices:
            raise VerifyException(
                f"{cls.name}: index {index} is out of range for {plural(on.num_devices, 'device')}"
            )
        return on_type(source, [on.device_names[index]])

    def verify_(self) -> None:
        src, res = self._types()
        want_type = self.infer_result_type(src, self.index.value.data)
        (want,) = want_type.encoding.device_names  # type: ignore[union-attr]
        res_on = placement_of(res)
        if not isinstance(res_on, OnAttr) or res_on.device_names != (want,):
            raise VerifyException(
                f"{self.name}: result must be placed on exactly device {string_literal(want)} "
                f"(#multi.on<[{string_literal(want)}]>), found {res}"
            )
        _same_element_type(self.name, src, res)
        if src.get_shape() != res.get_shape():
            raise VerifyException(
                f"{self.name}: result shape {list(res.get_shape())} differs from "
                f"source shape {list(src.get_shape())}"
            )


@irdl_op_definition
class MstackOp(IRDLOperation):
    """MSTACK: a multi-device buffer built from single-device buffers.

    ```mlir
    %t = multi.mstack %a, %b : tensor<4x4xf32, #multi.on<["CPU:0"]>>,
           tensor<4x4xf32, #multi.on<["CPU:1"]>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
    ```
    tinygrad: `UOp(Ops.MSTACK, src=(a, b))`.
    """

    name = "multi.mstack"
    sources = var_operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(NoMemoryEffect())

    def __init__(self, sources: Sequence[SSAValue], result_type: Attribute):
        super().__init__(operands=[sources], result_types=[result_type])

    @classmethod
    def parse(cls, parser: Parser) -> MstackOp:
        operands, attributes, out_type = parse_variadic(parser)
        op = cls(operands, out_type)
        op.attributes |= attributes
        return op

    def print(self, printer: Printer) -> None:
        print_variadic(printer, self)

    @classmethod
    def infer_result_type(cls, sources: Sequence[Attribute]) -> TensorType:
        """The result type: the sources' shape on their devices, in order."""
        if not sources:
            raise VerifyException(f"{cls.name}: needs at least one source")
        devices: list[str] = []
        first = expect_tensor(cls.name, "source 0", sources[0])
        for i, s in enumerate(sources):
            t = expect_tensor(cls.name, f"source {i}", s)
            on = placement_of(t)
            if not isinstance(on, OnAttr) or on.num_devices != 1:
                raise VerifyException(
                    f"{cls.name}: source {i} must be placed on a single device, found {t}"
                )
            if on.device_names[0] in devices:
                raise VerifyException(
                    f"{cls.name}: device {string_literal(on.device_names[0])} appears in more "
                    "than one source"
                )
            devices.append(on.device_names[0])
            if t.get_shape() != first.get_shape() or t.element_type != first.element_type:
                raise VerifyException(
                    f"{cls.name}: source {i} has shape {list(t.get_shape())} and element type "
                    f"{t.element_type}; source 0 has {list(first.get_shape())} and "
                    f"{first.element_type}"
                )
        return on_type(first, devices)

    def verify_(self) -> None:
        if not self.sources:
            raise VerifyException(f"{self.name}: needs at least one source")
        res = expect_tensor(self.name, "result", self.result.type)
        want = self.infer_result_type([s.type for s in self.sources])
        first = expect_tensor(self.name, "source 0", self.sources[0].type)
        devices = list(placement_of(want).device_names)  # type: ignore[union-attr]
        res_on = placement_of(res)
        if not isinstance(res_on, OnAttr) or list(res_on.device_names) != devices:
            raise VerifyException(
                f"{self.name}: result must be placed on the sources' devices in order "
                f"{string_list(devices)}, found {res}"
            )
        _same_element_type(self.name, first, res)
        if res.get_shape() != first.get_shape():
            raise VerifyException(
                f"{self.name}: result shape {list(res.get_shape())} differs from "
                f"source shape {list(first.get_shape())}"
            )


class CopyKind(Enum):
    """What a `multi.copy` does, decided by its two encodings (SPEC §2)."""

    TO_ONE = "to-one"  # transfer or gather: the logical value on one device
    BROADCAST = "broadcast"  # the logical value on every destination device (all-gather)
    PERMUTE = "permute"  # many-device on -> on with as many devices: buffer i to device i
    SCATTER = "scatter"  # each destination device gets its slice of the logical value
    KEEP_SLICE = "keep-slice"  # on -> shard on the same list: each device slices its own buffer


def copy_kind(src: TensorType, dst: TensorType) -> CopyKind:
    """Classify a copy between two placed tensor types (their encodings must be placements)."""
    s, d = placement_of(src), placement_of(dst)
    assert s is not None and d is not None
    if isinstance(d, ShardAttr):
        if isinstance(s, OnAttr) and s.num_devices > 1 and s.device_names == d.device_names:
            return CopyKind.KEEP_SLICE
        return CopyKind.SCATTER
    if d.num_devices == 1:
        return CopyKind.TO_ONE
    if isinstance(s, OnAttr) and s.num_devices > 1 and s.num_devices == d.num_devices:
        return CopyKind.PERMUTE
    return CopyKind.BROADCAST


@irdl_op_definition
class CopyOp(_UnaryMultiOp):
    """COPY: move a value between placements; the two encodings decide the transfer.

    ```mlir
    %c = multi.copy %x : tensor<8x4xf32, #multi.on<["CPU:0"]>>
           -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
    ```
    The source's logical value is a shard value's full tensor, a one-device value's buffer, or
    a many-device `#multi.on` value's first buffer. tinygrad: `UOp(Ops.COPY, src=(x, device))`.
    """

    name = "multi.copy"

    def __init__(self, source: SSAValue, result_type: Attribute):
        super().__init__(operands=[source], result_types=[result_type])

    @property
    def kind(self) -> CopyKind:
        src, res = self._types()
        return copy_kind(src, res)

    @classmethod
    def parse(cls, parser: Parser) -> CopyOp:
        form = parse_unary(parser, no_extra)
        return form.finish(cls(form.resolve(parser), form.out_type))

    def print(self, printer: Printer) -> None:
        print_unary(printer, self, self.source, arrow=True)

    @classmethod
    def infer_result_type(cls, source: TensorType, destination: OnAttr | ShardAttr) -> TensorType:
        """The result type: `source`'s logical shape placed by `destination` (the free choice,
        which decides the transfer, see `copy_kind`)."""
        _expect_placed(cls.name, "source", source)
        return cls._checked_destination(
            TensorType(source.element_type, source.get_shape(), destination)
        )

    @classmethod
    def _checked_destination(cls, res: TensorType) -> TensorType:
        res = expect_tensor(cls.name, "result", res)
        dst = _expect_placed(cls.name, "result", res)
        if isinstance(dst, ShardAttr) and not dst.axis_index < len(res.get_shape()):
            raise VerifyException(
                f"{cls.name}: result shard axis {dst.axis_index} is out of range for rank "
                f"{len(res.get_shape())}"
            )
        return res

    def verify_(self) -> None:
        src, res = self._types()
        _expect_placed(self.name, "source", src)
        _expect_placed(self.name, "result", res)
        _same_element_type(self.name, src, res)
        self._checked_destination(res)
        if src.get_shape() != res.get_shape():
            raise VerifyException(
                f"{self.name}: the source's logical shape {list(src.get_shape())} differs from "
                f"the result's {list(res.get_shape())} ({copy_kind(src, res).value} copy)"
            )


@irdl_op_definition
class AllreduceOp(_UnaryMultiOp):
    """ALLREDUCE: every result device gets the elementwise reduction of all source buffers.

    ```mlir
    %r = multi.allreduce add %x : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
           -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
    ```
    tinygrad: `UOp(Ops.ALLREDUCE, src=(x, device), arg=Ops.ADD)`.
    """

    name = "multi.allreduce"
    kind = prop_def(StringAttr)

    def __init__(
        self, kind: ReduceKind | str | StringAttr, source: SSAValue, result_type: Attribute
    ):
        super().__init__(
            operands=[source],
            result_types=[result_type],
            properties={"kind": kind if isinstance(kind, StringAttr) else StringAttr(str(kind))},
        )

    @property
    def reduce_kind(self) -> ReduceKind:
        """The reduction (the op must have verified)."""
        return ReduceKind(self.kind.data)

    @classmethod
    def parse(cls, parser: Parser) -> AllreduceOp:
        kind = parse_reduce_kind(parser)
        form = parse_unary(parser, no_extra)
        return form.finish(cls(kind, form.resolve(parser), form.out_type))

    def print(self, printer: Printer) -> None:
        print_unary(printer, self, self.source, prefix=f"{self.kind.data} ", arrow=True)

    @classmethod
    def infer_result_type(
        cls,
        kind: ReduceKind | str | StringAttr,
        source: TensorType,
        devices: Sequence[str] | None = None,
    ) -> TensorType:
        """The result type: `source`'s buffer shape on `devices` (the free choice; None keeps
        the source's devices)."""
        reduce_kind_of(cls.name, kind if isinstance(kind, StringAttr) else StringAttr(str(kind)))
        on = _expect_on(cls.name, "source", source)
        return on_type(source, on.device_names if devices is None else devices)

    def verify_(self) -> None:
        src, res = self._types()
        self.infer_result_type(self.kind, src)
        _expect_on(self.name, "result", res)
        _same_element_type(self.name, src, res)
        if src.get_shape() != res.get_shape():
            raise VerifyException(
                f"{self.name}: result shape {list(res.get_shape())} differs from "
                f"source shape {list(src.get_shape())}"
            )


# --------------------------------------------------------------------------------------------
# Module-level placement rules (SPEC §1)
# --------------------------------------------------------------------------------------------

DEVICES_ATTR = "multi.devices"
"""The module attribute that fixes the program's ordered device set."""
SIGNATURE_ATTR = "multi.signature"
"""The top module's logical `@main` type (encodings included), kept by every pass."""
KERNEL_ATTR = "multi.kernel"
"""Unit attribute on every kernel function (the kernel level; and the `llvm.func` of one)."""
WRITES_ATTR = "multi.writes"
"""On a kernel (`llvm.func` or `func.func`): the positions of the arguments it writes
(`array<i64: 2>`), for the runtime's hand-over sends (lowering/kernel_facts.py)."""
KERNEL_OF_ATTR = "multi.kernel_of"
"""On a kernel declaration: the device module that holds the kernel's body (SPMD mode)."""
LLVM_NAME_ATTR = "multi.llvm_kernel"
"""On the `func.func` declaration convert-to-llvm leaves for the host's calls: the name of the
`llvm.func` that runs it."""
KERNEL_DEVICE_ATTR = "multi.device"
"""The device number of a kernel, on the kernel (its module carries it as `devidx.device`) and
on the `llvm.func` convert-to-llvm makes of it."""
KERNEL_TYPE_ATTR = "multi.kernel_type"
"""The kernel-level function type, kept on the `llvm.func` (the JIT checks arguments by it)."""
LLVM_IR_ATTR = "multi.llvm_ir"
"""On a top module: the LLVM IR text of all its kernels, as `translate_kernels` made it. The
`llvm.func` bodies of such a module are stand-ins (compile_cache.py), never translated."""


class PlacementError(VerifyException):
    """A module-level placement rule failed. `op` is where: the op whose type or attribute is
    wrong, or that owns the block of `arg` when the culprit is a block argument."""

    def __init__(self, message: str, op: Operation, arg: BlockArgument | None = None):
        super().__init__(message)
        self.op = op
        self.arg = arg


def listed_devices(module: Operation) -> tuple[str, ...] | None:
    """The names listed by `module`'s `multi.devices`, None without the attribute; raises
    PlacementError when it is not a non-empty list of distinct strings."""
    attr = module.attributes.get(DEVICES_ATTR)
    if attr is None:
        return None
    want = "a non-empty list of distinct device names (strings)"
    if not isinstance(attr, ArrayAttr) or not attr.data:
        raise PlacementError(f"{module.name}: {DEVICES_ATTR} must be {want}, found {attr}", module)
    names: list[str] = []
    seen: set[str] = set()  # (a set: the list has N names, N up to thousands)
    for i, a in enumerate(attr.data):
        if not isinstance(a, StringAttr):
            raise PlacementError(
                f"{module.name}: {DEVICES_ATTR} must be {want}; entry {i} is {a}", module
            )
        if a.data in seen:
            raise PlacementError(
                f"{module.name}: {DEVICES_ATTR} lists device {string_literal(a.data)} twice",
                module,
            )
        seen.add(a.data)
        names.append(a.data)
    return tuple(names)


class _FirstAppearance:
    """Device names in order of first appearance over types: each type object is read once
    (a program's types are a few objects shared by every op, each naming up to N devices)."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.known: set[str] = set()
        self.read: set[int] = set()  # ids of the types read (alive: the module holds them)

    def add(self, t: Attribute) -> None:
        if id(t) in self.read:
            return
        self.read.add(id(t))
        enc = placement_of(t)
        if enc is not None:
            for n in enc.device_names:
                if n not in self.known:
                    self.known.add(n)
                    self.names.append(n)


def program_devices(module: Operation) -> list[str]:
    """The program's ordered device set (SPEC §1), whose position is the device number d: the
    names `multi.devices` lists (`listed_devices`), else the device names in order of first
    appearance (the `multi.signature` attribute, then function signatures and op result types
    in textual order). Raises PlacementError when `multi.devices` is malformed."""
    listed = listed_devices(module)
    if listed is not None:
        return list(listed)
    found = _FirstAppearance()
    sig = module.attributes.get(SIGNATURE_ATTR)
    if isinstance(sig, FunctionType):
        for t in (*sig.inputs, *sig.outputs):
            found.add(t)
    for op in module.walk():
        if isinstance(op, FuncOp):
            for t in (*op.function_type.inputs, *op.function_type.outputs):
                found.add(t)
        for r in op.results:
            found.add(r.type)
    return found.names


def _placement_problem(attr: Attribute, listed: tuple[str, ...] | None, ok: set[int]) -> str | None:
    """What is wrong with the placements inside `attr` (a type, or an attribute holding types),
    as `TYPE problem`, or None: a `#multi.shard` tensor type whose axis is not below its rank,
    or a device that `listed` (the module's `multi.devices`, when it has one) does not name.
    `ok` holds the ids of attributes already found fine (attributes are immutable and shared,
    so each is looked at once)."""
    # Each entry: an attribute and the tensor type it is part of, to name in the message.
    stack: list[tuple[Attribute, Attribute]] = [(attr, attr)]
    while stack:
        a, outer = stack.pop()
        if id(a) in ok:
            continue
        if isinstance(a, TensorType):
            # Only the encoding can hold a placement: the shape and element type are skipped.
            enc = a.encoding
            if isinstance(enc, ShardAttr):
                axis, rank = enc.axis_index, len(a.get_shape())
                if not axis < rank:
                    return f"{a} is sharded on axis {axis}, out of range for rank {rank}"
            if not isinstance(enc, NoneAttr):
                stack.append((enc, a))
            continue
        if listed is not None and isinstance(a, OnAttr | ShardAttr):
            for name in a.device_names:
                if name not in listed:
                    return (
                        f"{outer} uses device {string_literal(name)}, which the module's "
                        f"{DEVICES_ATTR} {string_list(listed)} does not list"
                    )
        if isinstance(a, ParametrizedAttribute):
            stack.extend((p, outer) for p in a.parameters)
        elif isinstance(a, ArrayAttr):
            stack.extend((p, outer) for p in a.data)
        elif isinstance(a, DictionaryAttr):
            stack.extend((p, outer) for p in a.data.values())
    # Only now is every attribute inside `attr` known to be fine.
    ok.add(id(attr))
    return None


def _op_title(op: Operation) -> str:
    """`func.func @main`, or just the op name when it has no symbol name."""
    sym = op.attributes.get("sym_name") or op.properties.get("sym_name")
    return f"{op.name} @{sym.data}" if isinstance(sym, StringAttr) else op.name


def _value_text(value: SSAValue, what: str, index: int) -> str:
    return f"{what} {index} (%{value.name_hint})" if value.name_hint else f"{what} {index}"


def verify_module_devices(module: Operation) -> None:
    """SPEC §1 rules that no single op can check, over every op, block argument, op attribute
    and property (function signatures included) in `module`:

    - a `builtin.module` with `multi.devices` has a non-empty list of distinct device names,
      and every placement inside it (the nearest such module's list applies) names only listed
      devices;
    - every `#multi.shard` tensor type has its axis below the tensor's rank (our ops check their
      own operands; this also covers function signatures and other dialects' ops).

    Raises PlacementError for the first offender in textual order (an op's results, then the
    arguments of its regions' entry blocks, then its attributes, then the ops inside it).
    """
    # Attributes found fine, per device list (a nested module may have its own list).
    fine: dict[tuple[str, ...] | None, set[int]] = {}
    # Work items: an op, or (the op owning it, a block whose arguments to check).
    stack: list[tuple[Operation, Block | None, tuple[str, ...] | None]] = [(module, None, None)]
    while stack:
        op, block, listed = stack.pop()
        title = _op_title(op)
        ok = fine.setdefault(listed, set())
        if block is not None:
            _check_block_args(op, title, block, listed, ok)
            continue
        if isinstance(op, ModuleOp) and (names := listed_devices(op)) is not None:
            listed = names
            ok = fine.setdefault(listed, set())
        for i, r in enumerate(op.results):
            if (problem := _placement_problem(r.type, listed, ok)) is not None:
                raise PlacementError(f"{title}: {_value_text(r, 'result', i)}: {problem}", op)
        for region in op.regions:
            if region.blocks:
                _check_block_args(op, title, region.blocks[0], listed, ok)
        for kind, attrs in (("property", op.properties), ("attribute", op.attributes)):
            for name, value in attrs.items():
                if (problem := _placement_problem(value, listed, ok)) is not None:
                    raise PlacementError(f"{title}: {kind} '{name}': {problem}", op)
        # Pushed in reverse, so that they come off the stack in textual order.
        for region in reversed(op.regions):
            for i, b in reversed(list(enumerate(region.blocks))):
                for inner in reversed(list(b.ops)):
                    stack.append((inner, None, listed))
                if i > 0:
                    stack.append((op, b, listed))


def _check_block_args(
    op: Operation, title: str, block: Block, listed: tuple[str, ...] | None, ok: set[int]
) -> None:
    region = block.parent
    entry = region is not None and region.first_block is block
    where = "" if entry or region is None else f" of block {region.blocks.index(block)}"
    for i, arg in enumerate(block.args):
        if (problem := _placement_problem(arg.type, listed, ok)) is not None:
            raise PlacementError(
                f"{title}: {_value_text(arg, 'argument', i)}{where}: {problem}", op, arg
            )


Multi = Dialect(
    "multi",
    [MultiOp, LocalOp, MselectOp, MstackOp, CopyOp, AllreduceOp],
    [OnAttr, ShardAttr],
)

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

import math
from collections.abc import Sequence
from enum import Enum

from xdsl.dialects.builtin import (
    I64,
    ArrayAttr,
    DenseArrayBase,
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
    opt_prop_def,
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
    int_list_text,
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
# Shard arithmetic (SPEC §1, §1.1): defined once, in `split_bounds` and `split_local_length`
# --------------------------------------------------------------------------------------------


def split_local_length(length: int, parts: Sequence[int]) -> int:
    """Rows of every device's local buffer along a tensor axis of `length` split by mesh dims
    of sizes `parts` (major first): the ceil rule applied once per mesh dim,
    ceil(ceil(L / p0) / p1) ... (SPEC §1.1; the first part of each split is the longest)."""
    for p in parts:
        length = -(-length // p)
    return length


def split_bounds(length: int, parts: Sequence[int], coords: Sequence[int]) -> tuple[int, int]:
    """Rows [lo, hi) of a tensor axis of `length` owned by the device at mesh coordinates
    `coords` along mesh dims of sizes `parts` that split it (major first): the axis is split in
    parts[0] parts by the ceil rule of SPEC §1, then each part (its actual length) in parts[1]
    parts by the same rule, and so on (SPEC §1.1). Uneven lengths give short or empty parts."""
    lo, hi = 0, length
    for p, c in zip(parts, coords, strict=True):
        s = -(-(hi - lo) // p)
        lo, hi = min(lo + c * s, hi), min(lo + (c + 1) * s, hi)
    return lo, hi


def local_length(length: int, num_devices: int) -> int:
    """Rows of every device's local buffer: s = ceil(L / N) (one mesh dim)."""
    return split_local_length(length, (num_devices,))


def shard_bounds(length: int, num_devices: int, k: int) -> tuple[int, int]:
    """Rows [lo, hi) of the logical axis owned by the device at position k of the encoding
    (one mesh dim)."""
    return split_bounds(length, (num_devices,), (k,))


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


MeshAxis = int | None
"""One entry of a mesh sharding's `axes`: the tensor axis a mesh dim splits, or None (`none`:
the value is replicated along that mesh dim)."""


def mesh_problem(num_devices: int, mesh: Sequence[int], axes: Sequence[MeshAxis]) -> str | None:
    """What breaks the rules of SPEC §1.1 in a mesh of `mesh` dims with `axes` over
    `num_devices` listed devices, or None. The tensor's rank is checked apart (`rank_error`)."""
    if not mesh:
        return "a mesh needs at least one dim, found mesh = []"
    if any(m < 1 for m in mesh):
        return f"mesh dims must be >= 1, found mesh = {int_list_text(mesh)}"
    if math.prod(mesh) != num_devices:
        return (
            f"the mesh {int_list_text(mesh)} has {plural(math.prod(mesh), 'position')} "
            f"(the product of its dims) but {plural(num_devices, 'device')} are listed"
        )
    if len(axes) != len(mesh):
        return (
            f"axes needs one entry per mesh dim: mesh {int_list_text(mesh)} has "
            f"{plural(len(mesh), 'dim')}, found {plural(len(axes), 'entry', 'entries')} "
            f"{mesh_axes_text(axes)}"
        )
    for a in axes:
        if a is not None and a < 0:
            return f"a shard axis must be >= 0, found {a} in axes = {mesh_axes_text(axes)}"
    if all(a is None for a in axes):
        return (
            f"axes = {mesh_axes_text(axes)} splits no tensor axis: a value replicated on "
            "every device is #multi.on"
        )
    return None


def mesh_axes_text(axes: Sequence[MeshAxis]) -> str:
    """`[0, none]`: mesh axes as written in the IR."""
    return "[" + ", ".join("none" if a is None else str(a) for a in axes) + "]"


def _parse_mesh_axis(parser: AttrParser) -> MeshAxis:
    if parser.parse_optional_keyword("none") is not None:
        return None
    pos = parser.pos
    axis = parser.parse_integer(allow_boolean=False, context_msg=" (a tensor axis or none)")
    if axis < 0:
        parser.raise_error(f"a shard axis must be >= 0, found {axis}", pos, parser.pos)
    return axis


@irdl_attr_definition
class ShardAttr(ParametrizedAttribute, RankedEncoding):
    """`#multi.shard<["CPU:0", "CPU:1"], axis = 0>`: the logical tensor split along `axis`;
    `#multi.shard<devs, mesh = [2, 2], axes = [0, none]>`: split over a device mesh (SPEC
    §1.1), the devices arranged row-major on the mesh, mesh dim i splitting tensor axis
    axes[i] (or, for `none`, replicating the value along it).

    `axis = a` is `mesh = [N], axes = [a]`: the same attribute (a 1-D mesh always prints as
    `axis = a`). tinygrad: MULTI(x, axis), a multi-device buffer with `axis` set.
    """

    name = "multi.shard"
    devices: ArrayAttr[StringAttr]
    mesh: ArrayAttr[IntAttr]
    axes: ArrayAttr[IntAttr | NoneAttr]

    def __init__(
        self,
        devices: Sequence[str] | ArrayAttr[StringAttr],
        axis: int | IntAttr | None = None,
        *,
        mesh: Sequence[int] | None = None,
        axes: Sequence[MeshAxis] | None = None,
    ):
        """Either `axis` (one mesh dim over every device) or `mesh` and `axes`."""
        if not isinstance(devices, ArrayAttr):
            devices = ArrayAttr(StringAttr(d) for d in devices)
        if axis is not None:
            if mesh is not None or axes is not None:
                raise ValueError("ShardAttr: give either axis or mesh and axes, not both")
            mesh = (len(devices.data),)
            axes = (axis.data if isinstance(axis, IntAttr) else axis,)
        elif mesh is None or axes is None:
            raise ValueError("ShardAttr: give either axis or mesh and axes")
        super().__init__(
            devices,
            ArrayAttr(IntAttr(m) for m in mesh),
            ArrayAttr(NoneAttr() if a is None else IntAttr(a) for a in axes),
        )

    @property
    def device_names(self) -> tuple[str, ...]:
        return tuple(d.data for d in self.devices.data)

    @property
    def num_devices(self) -> int:
        return len(self.devices.data)

    @property
    def mesh_shape(self) -> tuple[int, ...]:
        return tuple(m.data for m in self.mesh.data)

    @property
    def mesh_axes(self) -> tuple[MeshAxis, ...]:
        return tuple(a.data if isinstance(a, IntAttr) else None for a in self.axes.data)

    @property
    def is_mesh(self) -> bool:
        """More than one mesh dim (the `mesh = [...], axes = [...]` form)."""
        return len(self.mesh.data) > 1

    @property
    def axis_index(self) -> int:
        """The shard axis of a one-axis sharding (`axis = a`). A device mesh has none: this
        raises `MeshNotSupported` for it (callers that handle meshes use `split_axes`)."""
        if self.is_mesh:
            raise MeshNotSupported(self, "this rule")
        (axis,) = self.mesh_axes
        assert axis is not None
        return axis

    @property
    def split_axes(self) -> tuple[int, ...]:
        """The tensor axes some mesh dim splits, in order of first appearance."""
        out: list[int] = []
        for a in self.mesh_axes:
            if a is not None and a not in out:
                out.append(a)
        return tuple(out)

    def dims_of(self, axis: int) -> tuple[int, ...]:
        """The mesh dims that split tensor `axis`, major first (empty: not split)."""
        return tuple(i for i, a in enumerate(self.mesh_axes) if a == axis)

    def parts_of(self, axis: int) -> tuple[int, ...]:
        """The sizes of the mesh dims that split tensor `axis`, major first."""
        mesh = self.mesh_shape
        return tuple(mesh[i] for i in self.dims_of(axis))

    def coords(self, k: int) -> tuple[int, ...]:
        """The mesh coordinates of the device at position k: k's digits in the mixed radix
        of the mesh dims (row-major)."""
        out: list[int] = []
        for m in reversed(self.mesh_shape):
            k, c = divmod(k, m)
            out.append(c)
        return tuple(reversed(out))

    def block(self, shape: Sequence[int], k: int) -> tuple[tuple[int, int], ...]:
        """The rows [lo, hi) of every tensor axis (of the logical `shape`) that the device at
        position k holds (SPEC §1.1 bounds; a whole axis where it is not split)."""
        c = self.coords(k)
        return tuple(
            split_bounds(length, self.parts_of(i), [c[j] for j in self.dims_of(i)])
            for i, length in enumerate(shape)
        )

    def local_shape(self, shape: Sequence[int]) -> tuple[int, ...]:
        """Every device's local buffer shape for the logical `shape` (the ceil lengths)."""
        return tuple(split_local_length(n, self.parts_of(i)) for i, n in enumerate(shape))

    def is_first_replica(self, k: int) -> bool:
        """Whether the device at position k has coordinate 0 on every `none` mesh dim: the
        copy of its block that stands for the logical value."""
        c = self.coords(k)
        return all(c[i] == 0 for i, a in enumerate(self.mesh_axes) if a is None)

    def rank_error(self, rank: int) -> str | None:
        if not self.is_mesh:
            if self.axis_index < rank:
                return None
            return f"is sharded on axis {self.axis_index}, out of range for rank {rank}"
        bad = [a for a in self.split_axes if not a < rank]
        if not bad:
            return None
        return (
            f"has mesh axes {mesh_axes_text(self.mesh_axes)}: tensor axis {bad[0]} is out of "
            f"range for rank {rank}"
        )

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            devices = _parse_device_list(parser)
            parser.parse_punctuation(",")
            pos = parser.pos
            if parser.parse_optional_keyword("mesh") is not None:
                parser.parse_punctuation("=")
                mesh = parser.parse_comma_separated_list(
                    parser.Delimiter.SQUARE,
                    lambda: parser.parse_integer(allow_boolean=False, context_msg=" (a mesh dim)"),
                )
                parser.parse_punctuation(",")
                parser.parse_keyword("axes")
                parser.parse_punctuation("=")
                axes = parser.parse_comma_separated_list(
                    parser.Delimiter.SQUARE, lambda: _parse_mesh_axis(parser)
                )
                problem = mesh_problem(len(devices.data), mesh, axes)
                if problem is not None:
                    parser.raise_error(f"#multi.shard: {problem}", pos, parser.pos)
                return cls(devices, mesh=mesh, axes=axes).parameters
            parser.parse_keyword("axis")
            parser.parse_punctuation("=")
            pos = parser.pos
            # `>` follows, so an integer literal cannot swallow a type (the `0xf32` problem of
            # shape dimensions); reading the sign here gives the rule's own message.
            axis = parser.parse_integer(allow_boolean=False, context_msg=" for the shard axis")
            if axis < 0:
                parser.raise_error(f"shard axis must be >= 0, found {axis}", pos, parser.pos)
        return cls(devices, axis).parameters

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            _print_device_list(printer, self.devices)
            if self.is_mesh:
                printer.print_string(
                    f", mesh = {int_list_text(self.mesh_shape)}, axes = "
                    f"{mesh_axes_text(self.mesh_axes)}"
                )
            else:
                printer.print_string(f", axis = {self.axis_index}")

    def verify(self) -> None:
        _verify_device_list("#multi.shard", self.devices)
        axes = self.mesh_axes
        if len(axes) == 1 and axes[0] is not None and axes[0] < 0:
            raise VerifyException(f"#multi.shard: axis must be >= 0, found {axes[0]}")
        problem = mesh_problem(self.num_devices, self.mesh_shape, self.mesh_axes)
        if problem is not None:
            raise VerifyException(f"#multi.shard: {problem}")


class MeshNotSupported(VerifyException):
    """A caller that handles one-axis shardings only met a device mesh (SPEC §1.1)."""

    def __init__(self, shard: ShardAttr, who: str):
        super().__init__(
            f"{who} handles one-axis shardings only, found the device mesh "
            f"mesh = {int_list_text(shard.mesh_shape)}, axes = {mesh_axes_text(shard.mesh_axes)}"
        )


def placement_on_mesh(
    devices: Sequence[str], mesh: Sequence[int], axes: Sequence[MeshAxis]
) -> OnAttr | ShardAttr:
    """The encoding of a value on a mesh with `axes`: `#multi.on` when no mesh dim splits
    anything (SPEC §1.1: a reduce over every split axis), else `#multi.shard`."""
    if all(a is None for a in axes):
        return OnAttr(devices)
    return ShardAttr(devices, mesh=mesh, axes=axes)


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


def _shard_text(shard: ShardAttr) -> str:
    """How a verifier message names a sharding: `axis 0`, or `mesh = [2, 2], axes = [0, 1]`."""
    if not shard.is_mesh:
        return f"axis {shard.axis_index}"
    return f"mesh = {int_list_text(shard.mesh_shape)}, axes = {mesh_axes_text(shard.mesh_axes)}"


@irdl_op_definition
class MultiOp(_UnaryMultiOp):
    """MULTI: per-device buffers that together form a tensor split along `axis`, or over a
    device mesh with `axes` (SPEC §1.1: the mesh is the one in the result's encoding).

    ```mlir
    %m = multi.multi %x axis 0 : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
           -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
    %g = multi.multi %y axes [0, 1] : tensor<4x3xf32, #multi.on<[4 devices]>>
           -> tensor<8x6xf32, #multi.shard<[4 devices], mesh = [2, 2], axes = [0, 1]>>
    ```
    Where mesh dims are `none`, the devices along them hold the same block; the first of
    them (coordinate 0 there) stands for it. tinygrad: `UOp(Ops.MULTI, src=(x,), arg=axis)`.
    """

    name = "multi.multi"
    axis = opt_prop_def(IntegerAttr[I64])
    axes = opt_prop_def(DenseArrayBase[I64])
    """The mesh axes, `none` stored as -1 (`array<i64: 0, -1>` in the generic form)."""

    def __init__(
        self, source: SSAValue, axis: int | Sequence[MeshAxis], result_type: Attribute
    ):
        """`axis`: one tensor axis, or the mesh axes (one entry per mesh dim; a single int
        entry is the one-axis form)."""
        if not isinstance(axis, int) and len(axis) == 1 and axis[0] is not None:
            axis = axis[0]
        if isinstance(axis, int):
            properties: dict[str, Attribute] = {"axis": IntegerAttr(axis, i64)}
        else:
            values = [-1 if a is None else a for a in axis]
            properties = {"axes": DenseArrayBase.from_list(i64, values)}
        super().__init__(operands=[source], result_types=[result_type], properties=properties)

    @property
    def mesh_axes(self) -> tuple[MeshAxis, ...]:
        """The op's axes: `(axis,)` for the one-axis form (the op must have verified)."""
        if self.axes is not None:
            return tuple(None if a == -1 else a for a in self.axes.get_values())
        assert self.axis is not None
        return (self.axis.value.data,)

    @classmethod
    def parse(cls, parser: Parser) -> MultiOp:
        def axis() -> int | list[MeshAxis]:
            if parser.parse_optional_keyword("axes") is not None:
                return parser.parse_comma_separated_list(
                    parser.Delimiter.SQUARE, lambda: _parse_mesh_axis(parser)
                )
            parser.parse_keyword("axis")
            return parse_i64(parser)

        form = parse_unary(parser, axis)
        return form.finish(cls(form.resolve(parser), form.extra, form.out_type))

    def print(self, printer: Printer) -> None:
        if self.axes is not None:
            extra = f" axes {mesh_axes_text(self.mesh_axes)}"
        else:
            extra = f" axis {self.mesh_axes[0]}"
        print_unary(printer, self, self.source, extra)

    @classmethod
    def infer_result_type(
        cls,
        source: TensorType,
        axis: int | Sequence[MeshAxis],
        length: int | Sequence[int] | None = None,
        mesh: Sequence[int] | None = None,
    ) -> TensorType:
        """The result type: `source` (placed on a tuple) as a `#multi.shard` on its devices
        along `axis`, or on the device `mesh` (the free choice; default one dim) with `axis`
        the mesh axes. The logical length of a split axis is the free choice (any L whose
        local length, SPEC §1.1, is the source's): `length` is that L for one axis, or the
        whole logical shape; None takes the even lengths."""
        on = _expect_on(cls.name, "source", source)
        axes: tuple[MeshAxis, ...] = (axis,) if isinstance(axis, int) else tuple(axis)
        if mesh is None:
            mesh = (on.num_devices,)
            if len(axes) != 1:
                raise VerifyException(
                    f"{cls.name}: axes {mesh_axes_text(axes)} need the mesh shape (one dim per "
                    "entry)"
                )
        problem = mesh_problem(on.num_devices, mesh, axes)
        if problem is not None:
            raise VerifyException(f"{cls.name}: {problem}")
        rank = len(source.get_shape())
        for a in axes:
            if a is not None and not 0 <= a < rank:
                raise VerifyException(f"{cls.name}: axis {a} is out of range for rank {rank}")
        shard = ShardAttr(on.devices, mesh=mesh, axes=axes)
        local = source.get_shape()
        if length is None:
            shape = [n * math.prod(shard.parts_of(i)) for i, n in enumerate(local)]
        elif isinstance(length, int):
            if len(shard.split_axes) != 1:
                raise VerifyException(
                    f"{cls.name}: one length {length} given for split axes "
                    f"{list(shard.split_axes)}: give the logical shape"
                )
            shape = list(local)
            shape[shard.split_axes[0]] = length
        else:
            shape = list(length)
        if len(shape) != rank:
            raise VerifyException(
                f"{cls.name}: result rank {len(shape)} differs from source rank {rank}"
            )
        for i, (s, big) in enumerate(zip(local, shape, strict=True)):
            parts = shard.parts_of(i)
            if not parts and s != big:
                raise VerifyException(
                    f"{cls.name}: dimension {i} is {big} in the result but {s} in the source"
                )
            if parts and split_local_length(big, parts) != s:
                n = math.prod(parts)
                how = f"ceil({big}/{n})" if len(parts) == 1 else f"split by {list(parts)}"
                raise VerifyException(
                    f"{cls.name}: local length {s} on axis {i} does not fit logical "
                    f"length {big} over {plural(n, 'device')} (expected "
                    f"{how} = {split_local_length(big, parts)})"
                )
        return TensorType(source.element_type, shape, shard)

    def verify_(self) -> None:
        src, res = self._types()
        if (self.axis is None) == (self.axes is None):
            raise VerifyException(f"{self.name}: needs exactly one of axis or axes")
        axes = self.mesh_axes
        on = _expect_on(self.name, "source", src)
        rank = len(src.get_shape())
        for a in axes:
            if a is not None and not 0 <= a < rank:
                raise VerifyException(f"{self.name}: axis {a} is out of range for rank {rank}")
        shard = placement_of(res)
        if not isinstance(shard, ShardAttr):
            raise VerifyException(f"{self.name}: result must be #multi.shard, found {res}")
        if shard.device_names != on.device_names:
            raise VerifyException(
                f"{self.name}: result devices {string_list(shard.device_names)} differ from "
                f"source devices {string_list(on.device_names)}"
            )
        if shard.mesh_axes != axes:
            op_axes = f"axis is {axes[0]}" if self.axes is None else f"axes are {mesh_axes_text(axes)}"
            raise VerifyException(
                f"{self.name}: result is sharded on {_shard_text(shard)}, op {op_axes}"
            )
        _same_element_type(self.name, src, res)
        self.infer_result_type(src, axes, res.get_shape(), shard.mesh_shape)


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
        problem = shard.rank_error(len(logical))
        if problem is not None:
            if not shard.is_mesh:
                problem = (
                    f"source shard axis {shard.axis_index} is out of range for rank {len(logical)}"
                )
            raise VerifyException(f"{cls.name}: {problem}")
        local = shard.local_shape(logical)
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
        want = list(want_t.get_shape())
        if list(local) != want:
            if shard.is_mesh:
                how = f"sharded on {_shard_text(shard)} (the ceil lengths of SPEC §1.1)"
            else:
                axis, n = shard.axis_index, shard.num_devices
                how = (
                    f"sharded on axis {axis} over {plural(n, 'device')} "
                    f"(ceil({logical[axis]}/{n}) = {want[axis]} rows)"
                )
            raise VerifyException(
                f"{self.name}: result shape {list(local)} is not the local shape {want} of "
                f"{list(logical)} {how}"
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
        if isinstance(dst, ShardAttr) and dst.rank_error(len(res.get_shape())) is not None:
            if dst.is_mesh:
                raise VerifyException(
                    f"{cls.name}: result {dst.rank_error(len(res.get_shape()))}: {res}"
                )
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
                problem = enc.rank_error(len(a.get_shape()))
                if problem is not None:
                    return f"{a} {problem}"
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

"""Dialect `tg`: tinygrad's movement, reduce and elementwise-helper ops on tensors.

Operands may be unplaced, placed on devices (`#multi.on`, each device's buffer is transformed
independently) or sharded (`#multi.shard`); for sharded operands the verifier checks tinygrad's
rules for the result's encoding (SPEC §3): each op's verifier computes the encoding it wants and
checks it with `_check_result_encoding`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import (
    I64,
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    BaseAttr,
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import NoMemoryEffect
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from xdsl_multi.dialects.element_types import is_bool, is_int
from xdsl_multi.dialects.multi import (
    ReduceKind,
    ShardAttr,
    parse_reduce_kind,
    placement_of,
    placement_on_mesh,
    reduce_kind_of,
    shard_bounds,
)
from xdsl_multi.dialects.syntax import (
    TypeOf,
    encoding_of,
    expect_tensor,
    int_list_text,
    no_extra,
    pairs_text,
    parse_i64,
    parse_int_list,
    parse_unary,
    parse_unary_types,
    plural,
    print_attr_dict,
    print_unary,
    print_unary_types,
)

DYNAMIC = -(2**63)
"""Marks a pad/shrink bound given by an SSA `index` operand instead of a static integer."""

_INVALID = UnitAttr()
"""`tg.pad`'s `invalid` property (attributes are immutable: one serves every pad)."""

Bound = int | SSAValue


# --------------------------------------------------------------------------------------------
# Shared checks
# --------------------------------------------------------------------------------------------


def _same_element_type(op_name: str, a: TensorType, b: TensorType) -> None:
    if a.element_type != b.element_type:
        raise VerifyException(
            f"{op_name}: element types differ: operand {a.element_type}, result {b.element_type}"
        )


def _check_result_encoding(op_name: str, src: TensorType, res: TensorType, want: Attribute | None):
    got = encoding_of(res)
    if got != want:
        raise VerifyException(
            f"{op_name}: result encoding must be {want if want is not None else 'none'} "
            f"for operand {src}, found {got if got is not None else 'none'}"
        )


def _check_same_encoding(op_name: str, src: TensorType, res: TensorType) -> None:
    """Unplaced and `#multi.on` operands keep their encoding through every tg op."""
    _check_result_encoding(op_name, src, res, encoding_of(src))


def _check_axes(op_name: str, axes: Sequence[int], rank: int, what: str = "axis") -> None:
    for a in axes:
        if not 0 <= a < rank:
            raise VerifyException(f"{op_name}: {what} {a} is out of range for rank {rank}")
    if len(set(axes)) != len(axes):
        what_plural = "axes" if what == "axis" else f"{what}s"
        raise VerifyException(f"{op_name}: {what_plural} {list(axes)} repeat")


class _UnaryTgOp(IRDLOperation):
    source = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(NoMemoryEffect())

    def _types(self) -> tuple[TensorType, TensorType]:
        src = expect_tensor(self.name, "operand", self.source.type)
        res = expect_tensor(self.name, "result", self.result.type)
        _same_element_type(self.name, src, res)
        return src, res


# --------------------------------------------------------------------------------------------
# Movement ops
# --------------------------------------------------------------------------------------------


def reshape_shard_axis(old: Sequence[int], new: Sequence[int], axis: int) -> int | None:
    """The new shard axis a': the last axis with prod(new[:a']) == prod(old[:a]), or None."""
    before = math.prod(old[:axis])
    found = None
    for a2 in range(len(new)):
        if math.prod(new[:a2]) == before:
            found = a2
    return found


def _reshape_mesh(
    op_name: str, shard: ShardAttr, old: Sequence[int], new: Sequence[int]
) -> ShardAttr:
    """The encoding of a mesh-sharded value reshaped from `old` to `new`: each split axis a
    moves to its new axis a' (`reshape_shard_axis`), which must keep its length (SPEC §3 per
    split axis; the even-split regrouping of one axis is not extended to meshes)."""
    moved: dict[int, int] = {}
    for a in shard.split_axes:
        a2 = reshape_shard_axis(old, new, a)
        if a2 is None or new[a2] != old[a] or a2 in moved.values():
            raise VerifyException(
                f"{op_name}: reshape {list(old)} -> {list(new)} of a value split on axis {a} "
                f"by mesh dims {list(shard.dims_of(a))} must keep that axis whole: no axis of "
                f"length {old[a]} starts after {plural(math.prod(old[:a]), 'element')} in "
                f"{list(new)}"
            )
        moved[a] = a2
    axes = [None if a is None else moved[a] for a in shard.mesh_axes]
    return ShardAttr(shard.devices, mesh=shard.mesh_shape, axes=axes)


@irdl_op_definition
class ReshapeOp(_UnaryTgOp):
    """RESHAPE: the same elements with a new shape.

    ```mlir
    %a = tg.reshape %x : tensor<8x4xf32> -> tensor<32xf32>
    ```
    tinygrad: `x.reshape(shape)`; on a sharded value the shard boundary must survive.
    """

    name = "tg.reshape"

    def __init__(self, source: SSAValue, result_type: Attribute):
        super().__init__(operands=[source], result_types=[result_type])

    @classmethod
    def parse(cls, parser: Parser) -> ReshapeOp:
        form = parse_unary(parser, no_extra)
        return form.finish(cls(form.resolve(parser), form.out_type))

    def print(self, printer: Printer) -> None:
        print_unary(printer, self, self.source)

    @classmethod
    def infer_result_type(cls, source: TensorType, shape: Sequence[int]) -> TensorType:
        """The result type for the new `shape` (the free choice): the encoding is kept, or for a
        sharded operand moves to the new shard axis (SPEC §3)."""
        old, new = source.get_shape(), tuple(shape)
        if math.prod(old) != math.prod(new):
            raise VerifyException(
                f"{cls.name}: cannot reshape {list(old)} ({plural(math.prod(old), 'element')}) "
                f"to {list(new)} ({plural(math.prod(new), 'element')})"
            )
        shard = placement_of(source)
        if not isinstance(shard, ShardAttr):
            return TensorType(source.element_type, new, source.encoding)
        if shard.is_mesh:
            return TensorType(source.element_type, new, _reshape_mesh(cls.name, shard, old, new))
        a, n = shard.axis_index, shard.num_devices
        a2 = reshape_shard_axis(old, new, a)
        if a2 is None:
            raise VerifyException(
                f"{cls.name}: reshape {list(old)} -> {list(new)} moves the shard boundary of "
                f"axis {a}: no new axis starts after {plural(math.prod(old[:a]), 'element')}"
            )
        allowed = new[a2] == old[a]
        if not allowed and old[a] % n == 0 and new[a2] % n == 0:
            local = list(old)
            local[a] = old[a] // n
            allowed = math.prod(local[a:]) % math.prod(new[a2 + 1 :]) == 0
        if not allowed:
            raise VerifyException(
                f"{cls.name}: reshape {list(old)} -> {list(new)} of a value sharded on axis {a} "
                f"over {plural(n, 'device')} would move elements between devices"
            )
        return TensorType(source.element_type, new, ShardAttr(shard.devices, a2))

    def verify_(self) -> None:
        src, res = self._types()
        want = self.infer_result_type(src, res.get_shape())
        _check_result_encoding(self.name, src, res, encoding_of(want))


@irdl_op_definition
class PermuteOp(_UnaryTgOp):
    """PERMUTE: reorder axes; result axis i is operand axis order[i].

    ```mlir
    %b = tg.permute %x [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
    ```
    tinygrad: `x.permute(order)`; the shard axis moves with its data.
    """

    name = "tg.permute"
    order = prop_def(DenseArrayBase[I64])

    def __init__(self, source: SSAValue, order: Sequence[int], result_type: Attribute):
        super().__init__(
            operands=[source],
            result_types=[result_type],
            properties={"order": DenseArrayBase.from_list(i64, order)},
        )

    @property
    def order_list(self) -> tuple[int, ...]:
        return self.order.get_values()

    @classmethod
    def parse(cls, parser: Parser) -> PermuteOp:
        form = parse_unary(parser, lambda: parse_int_list(parser))
        return form.finish(cls(form.resolve(parser), form.extra, form.out_type))

    def print(self, printer: Printer) -> None:
        print_unary(printer, self, self.source, " " + int_list_text(self.order_list))

    @classmethod
    def infer_result_type(cls, source: TensorType, order: Sequence[int]) -> TensorType:
        """The result type: axes reordered; a shard axis moves with its data."""
        shape = source.get_shape()
        if sorted(order) != list(range(len(shape))):
            raise VerifyException(
                f"{cls.name}: order {list(order)} is not a permutation of "
                f"{'the ' if len(shape) != 1 else ''}{plural(len(shape), 'axis', 'axes')}"
            )
        encoding: Attribute = source.encoding
        shard = placement_of(source)
        if isinstance(shard, ShardAttr):
            axes = [None if a is None else list(order).index(a) for a in shard.mesh_axes]
            encoding = ShardAttr(shard.devices, mesh=shard.mesh_shape, axes=axes)
        return TensorType(source.element_type, [shape[i] for i in order], encoding)

    def verify_(self) -> None:
        src, res = self._types()
        want = self.infer_result_type(src, self.order_list)
        if res.get_shape() != want.get_shape():
            raise VerifyException(
                f"{self.name}: result shape must be {list(want.get_shape())}, "
                f"found {list(res.get_shape())}"
            )
        _check_result_encoding(self.name, src, res, encoding_of(want))


@irdl_op_definition
class ExpandOp(_UnaryTgOp):
    """EXPAND: broadcast size-1 axes to a larger size (same rank).

    ```mlir
    %c = tg.expand %y : tensor<1x4xf32> -> tensor<8x4xf32>
    ```
    tinygrad: `x.expand(shape)`; the shard axis may not be expanded.
    """

    name = "tg.expand"

    def __init__(self, source: SSAValue, result_type: Attribute):
        super().__init__(operands=[source], result_types=[result_type])

    @classmethod
    def parse(cls, parser: Parser) -> ExpandOp:
        form = parse_unary(parser, no_extra)
        return form.finish(cls(form.resolve(parser), form.out_type))

    def print(self, printer: Printer) -> None:
        print_unary(printer, self, self.source)

    @classmethod
    def infer_result_type(cls, source: TensorType, shape: Sequence[int]) -> TensorType:
        """The result type for the expanded `shape` (the free choice); the encoding is kept."""
        old, new = source.get_shape(), tuple(shape)
        if len(old) != len(new):
            raise VerifyException(
                f"{cls.name}: expand keeps the rank: operand {list(old)}, result {list(new)}"
            )
        for i, (o, n) in enumerate(zip(old, new, strict=True)):
            if o != n and o != 1:
                raise VerifyException(
                    f"{cls.name}: axis {i} of size {o} cannot expand to {n} (only size 1 expands)"
                )
        shard = placement_of(source)
        if isinstance(shard, ShardAttr):
            for a in shard.split_axes:
                if old[a] != new[a]:
                    raise VerifyException(
                        f"{cls.name}: cannot expand the shard axis {a} from {old[a]} to {new[a]}"
                    )
        return TensorType(source.element_type, new, source.encoding)

    def verify_(self) -> None:
        src, res = self._types()
        self.infer_result_type(src, res.get_shape())
        _check_same_encoding(self.name, src, res)


class _BoundsOp(_UnaryTgOp):
    """Shared storage of per-axis [lo, hi] bounds: static integers or SSA `index` values.

    `static_bounds` holds lo0, hi0, lo1, hi1, ... with DYNAMIC where the bound is the next
    operand of `dyn_bounds`.
    """

    source = operand_def(TensorType)
    dyn_bounds = var_operand_def(IndexType)
    result = result_def(TensorType)
    static_bounds = prop_def(DenseArrayBase[I64])

    def _build(
        self,
        source: SSAValue,
        bounds: Sequence[tuple[Bound, Bound]],
        result_type: Attribute,
        properties: dict[str, Attribute],
    ) -> None:
        """Make this op (`source`, then the SSA bounds; `static_bounds` first, then
        `properties`) with `Operation.__init__` directly, as `Op.create` does: xDSL's
        `IRDLOperation.__init__` checks every argument against the op definition (~65 us a
        pad, against ~10 us), and the simplification rules build hundreds per program
        (BENCH C1's device copies ~300 each). test/test_tg_bounds_ops.py checks the
        op against the one IRDLOperation's constructor makes."""
        static, dynamic = self._split_bounds(bounds)
        Operation.__init__(
            self,
            operands=[source, *dynamic],
            result_types=[result_type],
            properties={"static_bounds": DenseArrayBase.from_list(i64, static), **properties},
        )

    @staticmethod
    def _split_bounds(bounds: Sequence[tuple[Bound, Bound]]) -> tuple[list[int], list[SSAValue]]:
        static: list[int] = []
        dynamic: list[SSAValue] = []
        for pair in bounds:
            for b in pair:
                if isinstance(b, int):
                    static.append(b)
                else:
                    static.append(DYNAMIC)
                    dynamic.append(b)
        return static, dynamic

    @property
    def bounds(self) -> list[tuple[Bound, Bound]]:
        """Per axis (lo, hi), each an int or the SSA value that gives it."""
        dyn = iter(self.dyn_bounds)
        flat: list[Bound] = [next(dyn) if v == DYNAMIC else v for v in self.static_bounds.get_values()]
        return [(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)]

    @classmethod
    def _parse_bounds(
        cls, parser: Parser
    ) -> list[tuple[int | UnresolvedOperand, int | UnresolvedOperand]]:
        def parse_bound() -> int | UnresolvedOperand:
            operand = parser.parse_optional_unresolved_operand()
            if operand is not None:
                return operand
            pos = parser.pos
            value = parse_i64(parser, context_msg=" or SSA value as bound")
            if value < 0:
                # Also keeps the DYNAMIC marker from being written as a literal.
                parser.raise_error(
                    f"{cls.name}: bound {value} is negative; static bounds are >= 0",
                    pos,
                    parser.pos,
                )
            return value

        def parse_pair() -> tuple[int | UnresolvedOperand, int | UnresolvedOperand]:
            pos = parser.pos
            pair = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parse_bound)
            if len(pair) != 2:
                parser.raise_error(
                    f"a bound is a pair [lo, hi], found {plural(len(pair), 'value')}",
                    pos,
                    parser.pos,
                )
            return pair[0], pair[1]

        return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parse_pair)

    @staticmethod
    def _resolve_bounds(
        parser: Parser, raw: Sequence[tuple[int | UnresolvedOperand, int | UnresolvedOperand]]
    ) -> list[tuple[Bound, Bound]]:
        def res(b: int | UnresolvedOperand) -> Bound:
            return b if isinstance(b, int) else parser.resolve_operand(b, IndexType())

        return [(res(lo), res(hi)) for lo, hi in raw]

    def _print_bounds(self, printer: Printer) -> None:
        printer.print_string(" [")
        for i, (lo, hi) in enumerate(self.bounds):
            if i:
                printer.print_string(", ")
            printer.print_string("[")
            if isinstance(lo, int):
                printer.print_string(str(lo))
            else:
                printer.print_operand(lo)
            printer.print_string(", ")
            if isinstance(hi, int):
                printer.print_string(str(hi))
            else:
                printer.print_operand(hi)
            printer.print_string("]")
        printer.print_string("]")

    def _check_bounds_rank(self, rank: int) -> list[tuple[Bound, Bound]]:
        static = self.static_bounds.get_values()
        n_dyn = sum(1 for v in static if v == DYNAMIC)
        if len(static) != 2 * rank:
            raise VerifyException(
                f"{self.name}: expected {plural(rank, '[lo, hi] bound')} for rank {rank}, "
                f"found {len(static) // 2}"
            )
        if n_dyn != len(self.dyn_bounds):
            raise VerifyException(
                f"{self.name}: {plural(n_dyn, 'dynamic bound')} but "
                f"{plural(len(self.dyn_bounds), 'index operand')}"
            )
        return self.bounds


def _check_bounds_count(op_name: str, bounds: Sequence[tuple[Bound, Bound]], rank: int) -> None:
    if len(bounds) != rank:
        raise VerifyException(
            f"{op_name}: expected {plural(rank, '[lo, hi] bound')} for rank {rank}, "
            f"found {len(bounds)}"
        )


def _bounds_result_shape(
    op_name: str,
    bounds: Sequence[tuple[Bound, Bound]],
    shape: Sequence[int] | None,
    size: Callable[[int, int, int], int],
) -> tuple[int, ...]:
    """The result shape of a pad or shrink: `shape` when given (the free choice, needed with
    dynamic bounds), else `size(i, lo, hi)` of each axis's static bounds."""
    if shape is not None:
        return tuple(shape)
    out: list[int] = []
    for i, (lo, hi) in enumerate(bounds):
        if not (isinstance(lo, int) and isinstance(hi, int)):
            raise VerifyException(
                f"{op_name}: axis {i} has a dynamic bound, so the result shape must be given"
            )
        out.append(size(i, lo, hi))
    return tuple(out)


def _pad_value_text(value: Attribute) -> str:
    if isinstance(value, FloatAttr):
        text = repr(float(value.value.data))
        if "e" in text and "." not in text:
            text = text.replace("e", ".0e")
        return text
    if isinstance(value, IntegerAttr):
        v = value.value.data
        if isinstance(value.type, IntegerType) and value.type.width.data == 1:
            return "true" if v else "false"
        return str(v)
    return str(value)


@irdl_op_definition
class PadOp(_BoundsOp):
    """PAD: grow each axis by [lo, hi] rows filled with `value`, or with Invalid.

    ```mlir
    %d = tg.pad %x [[1, 2], [0, 0]] value 0.0 : tensor<8x4xf32> -> tensor<11x4xf32>
    %e = tg.pad %x [[%lo, %hi], [0, 0]] invalid : tensor<4x4xf32> -> tensor<8x4xf32>
    ```
    tinygrad: `x.pad(((1, 2), (0, 0)), value=0.0)`; MULTI's migration pads with Invalid.
    """

    name = "tg.pad"
    value = opt_prop_def(Attribute)
    invalid = opt_prop_def(UnitAttr)

    def __init__(
        self,
        source: SSAValue,
        bounds: Sequence[tuple[Bound, Bound]],
        result_type: Attribute,
        value: Attribute | None = None,
    ):
        """`value` None pads with Invalid; otherwise a FloatAttr/IntegerAttr fill. Built as
        `Op.create` builds (`_BoundsOp._build`)."""
        props: dict[str, Attribute] = {}
        if value is None:
            props["invalid"] = _INVALID
        else:
            props["value"] = value
        self._build(source, bounds, result_type, props)

    @property
    def is_invalid(self) -> bool:
        return self.invalid is not None

    @classmethod
    def parse(cls, parser: Parser) -> PadOp:
        src = parser.parse_unresolved_operand()
        raw = cls._parse_bounds(parser)
        fill: int | float | bool | None = None
        fill_pos = fill_end = parser.pos
        if parser.parse_optional_keyword("invalid") is None:
            parser.parse_keyword("value", " or 'invalid'")
            fill_pos = parser.pos
            if (b := parser.parse_optional_boolean()) is not None:
                fill = b
            else:
                fill = parser.parse_number()
            fill_end = parser.pos
        attrs = parser.parse_optional_attr_dict()
        types_pos = parser.pos
        in_t, out_t = parse_unary_types(parser)
        if not isinstance(in_t, TensorType):
            parser.raise_error(f"tg.pad: operand must be a tensor, found {in_t}", types_pos)
        value: Attribute | None = None
        if fill is not None:
            try:
                value = pad_value_attr(fill, in_t.element_type)
            except OverflowError:  # too large for the float type (FloatAttr packs it)
                value = None
            if isinstance(value, FloatAttr) and not math.isfinite(value.value.data):
                value = None  # inf would print as `inf`, which does not parse back
            if value is None:
                text = str(fill).lower() if isinstance(fill, bool) else repr(fill)
                parser.raise_error(
                    f"tg.pad: fill value {text} does not fit element type {in_t.element_type}",
                    fill_pos,
                    fill_end,
                )
        bounds = cls._resolve_bounds(parser, raw)
        op = cls(parser.resolve_operand(src, in_t), bounds, out_t, value)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        self._print_bounds(printer)
        if self.value is None:
            printer.print_string(" invalid")
        else:
            printer.print_string(f" value {_pad_value_text(self.value)}")
        print_attr_dict(printer, self.attributes)
        print_unary_types(printer, self.source.type, self.result.type)

    @classmethod
    def infer_result_type(
        cls,
        source: TensorType,
        bounds: Sequence[tuple[Bound, Bound]],
        value: Attribute | None = None,
        shape: Sequence[int] | None = None,
    ) -> TensorType:
        """The result type of padding `source` by `bounds` with `value` (None: Invalid). The
        result `shape` is the free choice where a bound is dynamic; None computes it from
        static bounds. The encoding is kept; a sharded axis cannot be padded."""
        if value is not None and (
            not isinstance(value, FloatAttr | IntegerAttr) or value.type != source.element_type
        ):
            raise VerifyException(
                f"{cls.name}: fill value {value} does not match element type "
                f"{source.element_type}"
            )
        old = source.get_shape()
        _check_bounds_count(cls.name, bounds, len(old))
        for i, (lo, hi) in enumerate(bounds):
            for b in (lo, hi):
                if isinstance(b, int) and b < 0:
                    raise VerifyException(f"{cls.name}: axis {i} has negative padding {b}")
        new = _bounds_result_shape(
            cls.name, bounds, shape, lambda i, lo, hi: old[i] + lo + hi
        )
        if len(new) != len(old):
            raise VerifyException(f"{cls.name}: pad keeps the rank: {list(old)} -> {list(new)}")
        for i, (lo, hi) in enumerate(bounds):
            if isinstance(lo, int) and isinstance(hi, int) and old[i] + lo + hi != new[i]:
                raise VerifyException(
                    f"{cls.name}: axis {i}: {old[i]} + {lo} + {hi} = {old[i] + lo + hi}, "
                    f"but the result has {new[i]}"
                )
            if new[i] < old[i]:
                raise VerifyException(
                    f"{cls.name}: axis {i} shrinks from {old[i]} to {new[i]}"
                )
        shard = placement_of(source)
        if isinstance(shard, ShardAttr):
            for a in shard.split_axes:
                lo, hi = bounds[a]
                if not (isinstance(lo, int) and isinstance(hi, int)):
                    raise VerifyException(
                        f"{cls.name}: bounds on the shard axis {a} must be static"
                    )
                if (lo, hi) != (0, 0):
                    raise VerifyException(
                        f"{cls.name}: cannot pad the shard axis {a} (padding [{lo}, {hi}])"
                    )
        return TensorType(source.element_type, new, source.encoding)

    def verify_(self) -> None:
        src, res = self._types()
        if (self.value is None) == (self.invalid is None):
            raise VerifyException(f"{self.name}: needs exactly one of a fill value or 'invalid'")
        bounds = self._check_bounds_rank(len(src.get_shape()))
        self.infer_result_type(src, bounds, self.value, res.get_shape())
        _check_same_encoding(self.name, src, res)


def pad_value_attr(fill: float | bool, element_type: Attribute) -> Attribute | None:
    """The fill attribute of `tg.pad ... value V` for an element type, or None if V does not fit."""
    if isinstance(element_type, IntegerType):
        if isinstance(fill, float) and not fill.is_integer():
            return None
        v = int(fill)
        width = element_type.width.data
        if width == 1:
            return IntegerAttr(v, element_type) if v in (0, 1) else None
        if not -(2 ** (width - 1)) <= v < 2**width:
            return None
        return IntegerAttr(v, element_type)
    if isinstance(fill, bool):
        return None
    return FloatAttr(float(fill), element_type)  # type: ignore[arg-type]


def _axis_blocks(shard: ShardAttr, shape: Sequence[int], axis: int) -> list[tuple[int, int]]:
    """The distinct row ranges of tensor `axis` that the devices of `shard` hold, in device
    order (one per shard for a one-axis sharding)."""
    out: list[tuple[int, int]] = []
    for k in range(shard.num_devices):
        b = shard.block(shape, k)[axis]
        if b not in out:
            out.append(b)
    return out


@irdl_op_definition
class ShrinkOp(_BoundsOp):
    """SHRINK: keep rows [lo, hi) of each axis.

    ```mlir
    %f = tg.shrink %x [[0, 4], [1, 3]] : tensor<8x4xf32> -> tensor<4x2xf32>
    ```
    tinygrad: `x.shrink(((0, 4), (1, 3)))`. On the shard axis it keeps the whole axis or selects
    exactly one shard (the result is then the shard's data on every device).
    """

    name = "tg.shrink"

    def __init__(
        self, source: SSAValue, bounds: Sequence[tuple[Bound, Bound]], result_type: Attribute
    ):
        self._build(source, bounds, result_type, {})

    @classmethod
    def parse(cls, parser: Parser) -> ShrinkOp:
        form = parse_unary(parser, lambda: cls._parse_bounds(parser))
        bounds = cls._resolve_bounds(parser, form.extra)
        return form.finish(cls(form.resolve(parser), bounds, form.out_type))

    def print(self, printer: Printer) -> None:
        print_unary(printer, self, self.source, lambda: self._print_bounds(printer))

    def selected_shard(self) -> int | None:
        """For a sharded operand whose shard axis is cut to exactly one shard: that shard's
        position; None when the axis is kept whole or the operand is not sharded."""
        src = self.source.type
        shard = placement_of(src)
        if not isinstance(shard, ShardAttr) or not isinstance(src, TensorType) or shard.is_mesh:
            return None
        a = shard.axis_index
        lo, hi = self.bounds[a]
        length = src.get_shape()[a]
        if (lo, hi) == (0, length):
            return None
        for k in range(shard.num_devices):
            if shard_bounds(length, shard.num_devices, k) == (lo, hi) and hi > lo:
                return k
        return None

    @classmethod
    def infer_result_type(
        cls,
        source: TensorType,
        bounds: Sequence[tuple[Bound, Bound]],
        shape: Sequence[int] | None = None,
    ) -> TensorType:
        """The result type of keeping rows [lo, hi) of each axis of `source`. The result
        `shape` is the free choice where a bound is dynamic; None computes it from static
        bounds. The encoding is kept, except that selecting exactly one shard of the shard axis
        gives a `#multi.on` value on the operand's devices (SPEC §3)."""
        old = source.get_shape()
        _check_bounds_count(cls.name, bounds, len(old))
        for i, (lo, hi) in enumerate(bounds):
            if isinstance(lo, int) and not 0 <= lo <= old[i]:
                raise VerifyException(
                    f"{cls.name}: axis {i}: lower bound {lo} is outside [0, {old[i]}]"
                )
            if isinstance(hi, int) and not 0 <= hi <= old[i]:
                raise VerifyException(
                    f"{cls.name}: axis {i}: upper bound {hi} is outside [0, {old[i]}]"
                )
            if isinstance(lo, int) and isinstance(hi, int) and hi < lo:
                raise VerifyException(f"{cls.name}: axis {i}: bounds [{lo}, {hi}] are reversed")
        new = _bounds_result_shape(cls.name, bounds, shape, lambda i, lo, hi: hi - lo)
        if len(new) != len(old):
            raise VerifyException(
                f"{cls.name}: shrink keeps the rank: {list(old)} -> {list(new)}"
            )
        for i, (lo, hi) in enumerate(bounds):
            if isinstance(lo, int) and isinstance(hi, int):
                if hi - lo != new[i]:
                    raise VerifyException(
                        f"{cls.name}: axis {i}: [{lo}, {hi}] keeps {plural(hi - lo, 'row')}, "
                        f"but the result has {new[i]}"
                    )
            elif new[i] > old[i]:
                raise VerifyException(f"{cls.name}: axis {i} grows from {old[i]} to {new[i]}")
        shard = placement_of(source)
        if not isinstance(shard, ShardAttr):
            return TensorType(source.element_type, new, source.encoding)
        axes = list(shard.mesh_axes)
        for a in shard.split_axes:
            lo, hi = bounds[a]
            if not (isinstance(lo, int) and isinstance(hi, int)):
                raise VerifyException(f"{cls.name}: bounds on the shard axis {a} must be static")
            if (lo, hi) == (0, old[a]):
                continue
            owned = _axis_blocks(shard, old, a)
            if (lo, hi) not in [b for b in owned if b[1] > b[0]]:
                raise VerifyException(
                    f"{cls.name}: shrink [{lo}, {hi}] on the shard axis {a} must keep the whole "
                    f"axis [0, {old[a]}] or exactly one non-empty shard of {pairs_text(owned)}"
                )
            # One block of axis a on every device: its mesh dims now replicate it.
            axes = [None if x == a else x for x in axes]
        return TensorType(
            source.element_type, new, placement_on_mesh(shard.device_names, shard.mesh_shape, axes)
        )

    def verify_(self) -> None:
        src, res = self._types()
        bounds = self._check_bounds_rank(len(src.get_shape()))
        want = self.infer_result_type(src, bounds, res.get_shape())
        _check_result_encoding(self.name, src, res, encoding_of(want))


@irdl_op_definition
class FlipOp(_UnaryTgOp):
    """FLIP: reverse the listed axes.

    ```mlir
    %g = tg.flip %x [0] : tensor<8x4xf32>
    ```
    tinygrad: `x.flip(axis)`; flipping the shard axis is an error.
    """

    name = "tg.flip"
    axes = prop_def(DenseArrayBase[I64])

    def __init__(
        self, source: SSAValue, axes: Sequence[int], result_type: Attribute | None = None
    ):
        super().__init__(
            operands=[source],
            result_types=[source.type if result_type is None else result_type],
            properties={"axes": DenseArrayBase.from_list(i64, axes)},
        )

    @property
    def axes_list(self) -> tuple[int, ...]:
        return self.axes.get_values()

    @classmethod
    def parse(cls, parser: Parser) -> FlipOp:
        form = parse_unary(parser, lambda: parse_int_list(parser))
        return form.finish(cls(form.resolve(parser), form.extra, form.out_type))

    def print(self, printer: Printer) -> None:
        print_unary(printer, self, self.source, " " + int_list_text(self.axes_list))

    @classmethod
    def infer_result_type(cls, source: TensorType, axes: Sequence[int]) -> TensorType:
        """The result type: the operand's; the shard axis cannot be flipped."""
        _check_axes(cls.name, axes, len(source.get_shape()))
        shard = placement_of(source)
        if isinstance(shard, ShardAttr):
            for a in shard.split_axes:
                if a in axes:
                    raise VerifyException(f"{cls.name}: cannot flip the shard axis {a}")
        return source

    def verify_(self) -> None:
        src, res = self._types()
        if src != res:
            raise VerifyException(f"{self.name}: result type {res} differs from operand type {src}")
        self.infer_result_type(src, self.axes_list)


# --------------------------------------------------------------------------------------------
# Reduce, materialization, elementwise helpers
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class ReduceOp(_UnaryTgOp):
    """REDUCE_AXIS: reduce the listed axes with add, mul or max, keeping them as size 1.

    ```mlir
    %h = tg.reduce add %x [1] : tensor<8x4xf32> -> tensor<8x1xf32>
    ```
    tinygrad: `x.r(Ops.ADD, axis)`; over the shard axis it is a local reduce plus an allreduce
    and the result is on every device (`#multi.on`).
    """

    name = "tg.reduce"
    kind = prop_def(StringAttr)
    axes = prop_def(DenseArrayBase[I64])

    def __init__(
        self,
        kind: ReduceKind | str | StringAttr,
        source: SSAValue,
        axes: Sequence[int],
        result_type: Attribute,
    ):
        super().__init__(
            operands=[source],
            result_types=[result_type],
            properties={
                "kind": kind if isinstance(kind, StringAttr) else StringAttr(str(kind)),
                "axes": DenseArrayBase.from_list(i64, axes),
            },
        )

    @property
    def reduce_kind(self) -> ReduceKind:
        """The reduction (the op must have verified)."""
        return ReduceKind(self.kind.data)

    @property
    def axes_list(self) -> tuple[int, ...]:
        return self.axes.get_values()

    @classmethod
    def parse(cls, parser: Parser) -> ReduceOp:
        kind = parse_reduce_kind(parser)
        form = parse_unary(parser, lambda: parse_int_list(parser))
        return form.finish(cls(kind, form.resolve(parser), form.extra, form.out_type))

    def print(self, printer: Printer) -> None:
        axes = " " + int_list_text(self.axes_list)
        print_unary(printer, self, self.source, axes, prefix=f"{self.kind.data} ")

    @classmethod
    def infer_result_type(
        cls, kind: ReduceKind | str | StringAttr, source: TensorType, axes: Sequence[int]
    ) -> TensorType:
        """The result type: reduced axes kept as size 1; over the shard axis the result is on
        every device (`#multi.on`), otherwise the encoding is kept."""
        reduce_kind_of(cls.name, kind if isinstance(kind, StringAttr) else StringAttr(str(kind)))
        shape = source.get_shape()
        _check_axes(cls.name, axes, len(shape))
        encoding: Attribute = source.encoding
        shard = placement_of(source)
        if isinstance(shard, ShardAttr) and any(a in axes for a in shard.split_axes):
            # Reduced split axes: their mesh dims hold partial results, allreduced (SPEC §1.1).
            kept = [None if a in axes else a for a in shard.mesh_axes]
            encoding = placement_on_mesh(shard.device_names, shard.mesh_shape, kept)
        want = [1 if i in axes else d for i, d in enumerate(shape)]
        return TensorType(source.element_type, want, encoding)

    def verify_(self) -> None:
        reduce_kind_of(self.name, self.kind)  # before the element types, as it always was
        src, res = self._types()
        want = self.infer_result_type(self.kind, src, self.axes_list)
        if res.get_shape() != want.get_shape():
            raise VerifyException(
                f"{self.name}: result shape must be {list(want.get_shape())} (reduced axes kept "
                f"as 1), found {list(res.get_shape())}"
            )
        _check_result_encoding(self.name, src, res, encoding_of(want))


@irdl_op_definition
class ContiguousOp(_UnaryTgOp):
    """CONTIGUOUS: a materialization point (the value is stored; Invalid is stored as 0).

    ```mlir
    %i = tg.contiguous %x : tensor<8x4xf32>
    ```
    tinygrad: `x.contiguous()`.
    """

    name = "tg.contiguous"

    def __init__(self, source: SSAValue, result_type: Attribute | None = None):
        super().__init__(
            operands=[source], result_types=[source.type if result_type is None else result_type]
        )

    @classmethod
    def parse(cls, parser: Parser) -> ContiguousOp:
        form = parse_unary(parser, no_extra)
        return form.finish(cls(form.resolve(parser), form.out_type))

    def print(self, printer: Printer) -> None:
        print_unary(printer, self, self.source)

    @classmethod
    def infer_result_type(cls, source: TensorType) -> TensorType:
        """The result type: the operand's."""
        return source

    def verify_(self) -> None:
        src, res = self._types()
        if src != self.infer_result_type(res):
            raise VerifyException(f"{self.name}: result type {res} differs from operand type {src}")


class CmpPredicate(StrEnum):
    """The predicates of `tg.cmp` (signed for integers, ordered for floats except ne; ult ule
    ugt uge read integers as unsigned and take no floats): the values of its `predicate`
    property (a StringAttr, so the generic form stays `predicate = "lt"` and a wrong string gets
    the verifier's message)."""

    LT = "lt"
    LE = "le"
    GT = "gt"
    GE = "ge"
    EQ = "eq"
    NE = "ne"
    ULT = "ult"
    ULE = "ule"
    UGT = "ugt"
    UGE = "uge"

    @property
    def is_unsigned(self) -> bool:
        return self.value.startswith("u")

    @property
    def relation(self) -> CmpPredicate:
        """The predicate without its unsigned reading (`ult` -> `lt`)."""
        return CmpPredicate(self.value[1:]) if self.is_unsigned else self


@irdl_op_definition
class CmpOp(IRDLOperation):
    """CMPLT/CMPNE/...: elementwise comparison giving i1 with the operands' shape and encoding.

    ```mlir
    %j = tg.cmp lt %x, %x : tensor<8x4xf32> -> tensor<8x4xi1>
    ```
    tinygrad: `x < y` (Ops.CMPLT), `x != y` (Ops.CMPNE), `x == y` (Ops.CMPEQ).
    """

    name = "tg.cmp"
    predicate = prop_def(StringAttr)
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(NoMemoryEffect())

    def __init__(
        self,
        predicate: CmpPredicate | str | StringAttr,
        lhs: SSAValue,
        rhs: SSAValue,
        result_type: Attribute | None = None,
    ):
        res = result_type
        if res is None:
            res = self.infer_result_type(predicate, lhs.type, rhs.type)
        super().__init__(
            operands=[lhs, rhs],
            result_types=[res],
            properties={
                "predicate": predicate
                if isinstance(predicate, StringAttr)
                else StringAttr(str(predicate))
            },
        )

    @property
    def cmp_predicate(self) -> CmpPredicate:
        """The predicate (the op must have verified)."""
        return CmpPredicate(self.predicate.data)

    @classmethod
    def parse(cls, parser: Parser) -> CmpOp:
        pred = CmpPredicate(parser.parse_keyword_in(list(CmpPredicate)))  # lists them on error
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        types_pos = parser.pos
        in_t, out_t = parse_unary_types(parser)
        if not isinstance(in_t, TensorType):
            parser.raise_error(f"tg.cmp: operands must be tensors, found {in_t}", types_pos)
        op = cls(pred, parser.resolve_operand(lhs, in_t), parser.resolve_operand(rhs, in_t), out_t)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.predicate.data} ")
        printer.print_operand(self.lhs)
        printer.print_string(", ")
        printer.print_operand(self.rhs)
        print_attr_dict(printer, self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.lhs.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    @classmethod
    def infer_result_type(
        cls, predicate: CmpPredicate | str | StringAttr, lhs: Attribute, rhs: Attribute
    ) -> TensorType:
        """The result type: i1 with the operands' (one) shape and encoding."""
        pred = predicate.data if isinstance(predicate, StringAttr) else str(predicate)
        if pred not in tuple(CmpPredicate):
            raise VerifyException(
                f"{cls.name}: predicate '{pred}' is not one of {', '.join(CmpPredicate)}"
            )
        lhs_t = expect_tensor(cls.name, "lhs", lhs)
        rhs_t = expect_tensor(cls.name, "rhs", rhs)
        if lhs_t != rhs_t:
            raise VerifyException(f"{cls.name}: operand types differ: {lhs_t} and {rhs_t}")
        if CmpPredicate(pred).is_unsigned and not is_int(lhs_t):
            raise VerifyException(
                f"{cls.name}: unsigned predicate '{pred}' needs integer operands, found "
                f"{lhs_t.element_type}"
            )
        return TensorType(IntegerType(1), lhs_t.get_shape(), lhs_t.encoding)

    def verify_(self) -> None:
        want = self.infer_result_type(self.predicate, self.lhs.type, self.rhs.type)
        res = expect_tensor(self.name, "result", self.result.type)
        if res != want:
            raise VerifyException(f"{self.name}: result must be {want}, found {res}")


@irdl_op_definition
class WhereOp(IRDLOperation):
    """WHERE: elementwise select by an i1 condition of the same shape and encoding.

    ```mlir
    %k = tg.where %j, %x, %x : tensor<8x4xi1>, tensor<8x4xf32>
    ```
    tinygrad: `cond.where(x, y)` (Ops.WHERE).
    """

    name = "tg.where"
    cond = operand_def(TensorType)
    true_value = operand_def(VarConstraint("V", BaseAttr(TensorType)))
    false_value = operand_def(TypeOf("V", TensorType))
    result = result_def(TypeOf("V", TensorType))
    traits = traits_def(NoMemoryEffect())

    assembly_format = (
        "$cond `,` $true_value `,` $false_value attr-dict `:` type($cond) `,` type($true_value)"
    )

    def __init__(self, cond: SSAValue, true_value: SSAValue, false_value: SSAValue):
        super().__init__(
            operands=[cond, true_value, false_value], result_types=[true_value.type]
        )

    @classmethod
    def infer_result_type(
        cls,
        cond: Attribute,
        true_value: Attribute,
        false_value: Attribute,
        result: Attribute | None = None,
    ) -> TensorType:
        """The result type: the values' one type; the condition is i1 of that shape and
        encoding. `result`, when given, is the declared type to check too."""
        c = expect_tensor(cls.name, "condition", cond)
        t = expect_tensor(cls.name, "true value", true_value)
        f = expect_tensor(cls.name, "false value", false_value)
        res = t if result is None else expect_tensor(cls.name, "result", result)
        if t != f or res != t:
            raise VerifyException(
                f"{cls.name}: values and result must share one type, found {t}, {f} -> {res}"
            )
        want = TensorType(IntegerType(1), t.get_shape(), t.encoding)
        if c != want:
            raise VerifyException(f"{cls.name}: condition must be {want}, found {c}")
        return t

    def verify_(self) -> None:
        self.infer_result_type(
            self.cond.type, self.true_value.type, self.false_value.type, self.result.type
        )


@irdl_op_definition
class CastOp(_UnaryTgOp):
    """CAST: convert the element type like C (float to int truncates, nonzero to i1 is 1).

    ```mlir
    %l = tg.cast %x : tensor<8x4xf32> -> tensor<8x4xi32>
    %f = tg.cast %u unsigned : tensor<4xi32> -> tensor<4xf32>
    ```
    `unsigned` reads (or writes) the integer side as unsigned: uint -> float, float -> uint
    (saturating to [0, 2^N - 1]), and zero extension of an unsigned source in int -> int.
    tinygrad: `x.cast(dtype)` (`unsigned` for its uint8..uint64 dtypes).
    """

    name = "tg.cast"
    unsigned = opt_prop_def(UnitAttr)

    def __init__(self, source: SSAValue, result_type: Attribute, unsigned: bool = False):
        super().__init__(
            operands=[source],
            result_types=[result_type],
            properties={"unsigned": UnitAttr()} if unsigned else {},
        )

    @property
    def is_unsigned(self) -> bool:
        return self.unsigned is not None

    @classmethod
    def parse(cls, parser: Parser) -> CastOp:
        form = parse_unary(parser, lambda: parser.parse_optional_keyword("unsigned") is not None)
        return form.finish(cls(form.resolve(parser), form.out_type, form.extra))

    def print(self, printer: Printer) -> None:
        print_unary(printer, self, self.source, " unsigned" if self.is_unsigned else "", arrow=True)

    @classmethod
    def infer_result_type(cls, source: TensorType, element_type: Attribute) -> TensorType:
        """The result type: `source`'s shape and encoding with `element_type` (the free
        choice)."""
        return TensorType(element_type, source.get_shape(), source.encoding)

    def verify_(self) -> None:
        src = expect_tensor(self.name, "operand", self.source.type)
        res = expect_tensor(self.name, "result", self.result.type)
        if res != self.infer_result_type(src, res.element_type):
            raise VerifyException(
                f"{self.name}: shape and encoding must be kept: {src} -> {res}"
            )
        if self.is_unsigned and not any(
            is_int(t) and not is_bool(t) for t in (src.element_type, res.element_type)
        ):
            raise VerifyException(
                f"{self.name}: unsigned needs an integer side wider than i1 (an i1 is 0 or 1 "
                f"either way), found {src.element_type} -> {res.element_type}"
            )


THREEFRY_ROTATIONS: tuple[tuple[int, ...], ...] = ((13, 15, 26, 6), (17, 29, 16, 24))
"""tg.threefry: the left rotations of threefry2x32's rounds; group g of 4 rounds uses row g % 2."""
THREEFRY_GROUPS = 5
"""tg.threefry: 5 groups of 4 rounds (threefry2x32_20), each followed by a key injection."""
THREEFRY_PARITY = 0x1BD11BDA
"""tg.threefry: Skein's key-schedule parity: the third key word is k0 ^ k1 ^ this."""


@irdl_op_definition
class ThreefryOp(IRDLOperation):
    """THREEFRY: elementwise threefry2x32 (20 rounds) of a counter by a key, both i64.

    ```mlir
    %r = tg.threefry %x, %key : tensor<8xi64>
    ```
    tinygrad: `x.threefry(key)` (Ops.THREEFRY on uint64, decomposed by
    tinygrad/codegen/decomp/op.py `threefry2x32`), what `Tensor.rand` lowers to. Each lane is
    Random123's threefry2x32_20 with counter (low 32 bits of x, high 32 bits of x) and key (low
    32 bits of key, high 32 bits of key); the output word 0 is the result's low half, word 1
    its high half. tinygrad's uint64 is a signless i64 here. Both operands and the result
    share one type, encoding included, as every elementwise op (tinygrad broadcasts the key
    before the op, at the Tensor level).
    """

    name = "tg.threefry"
    x = operand_def(VarConstraint("T", BaseAttr(TensorType)))
    key = operand_def(TypeOf("T", TensorType))
    result = result_def(TypeOf("T", TensorType))
    traits = traits_def(NoMemoryEffect())

    assembly_format = "$x `,` $key attr-dict `:` type($x)"

    def __init__(self, x: SSAValue, key: SSAValue):
        super().__init__(operands=[x, key], result_types=[x.type])

    def verify_(self) -> None:
        x = expect_tensor(self.name, "counter", self.x.type)
        key = expect_tensor(self.name, "key", self.key.type)
        res = expect_tensor(self.name, "result", self.result.type)
        if x.element_type != i64:
            raise VerifyException(
                f"{self.name}: element type must be i64 (tinygrad's uint64), found {x}"
            )
        if key != x or res != x:
            raise VerifyException(
                f"{self.name}: counter, key and result must share one type, "
                f"found {x}, {key} -> {res}"
            )


TG = Dialect(
    "tg",
    [
        ReshapeOp,
        PermuteOp,
        ExpandOp,
        PadOp,
        ShrinkOp,
        FlipOp,
        ReduceOp,
        ContiguousOp,
        CmpOp,
        WhereOp,
        CastOp,
        ThreefryOp,
    ],
    [],
)

__all__ = [
    "DYNAMIC",
    "TG",
    "THREEFRY_GROUPS",
    "THREEFRY_PARITY",
    "THREEFRY_ROTATIONS",
    "CastOp",
    "CmpOp",
    "ContiguousOp",
    "ExpandOp",
    "FlipOp",
    "PadOp",
    "PermuteOp",
    "ReduceOp",
    "ReshapeOp",
    "ShrinkOp",
    "ThreefryOp",
    "WhereOp",
    "pad_value_attr",
    "reshape_shard_axis",
]

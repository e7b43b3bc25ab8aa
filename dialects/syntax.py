"""Parsing and printing helpers shared by the custom syntax of `multi`, `tg` and `devidx`.

Every op of these dialects reads ``<keyword-ish header> : <types>`` and most of them
``operands : T_in -> T_out``; the helpers below keep those forms in one place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from io import StringIO
from typing import Generic, TypeVar

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    MemRefType,
    NoneAttr,
    Signedness,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AttrConstraint,
    BaseAttr,
    InferenceContext,
    IntConstraint,
    VerificationContext,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

ELEMENT_TYPES_TEXT = "f32, f64, f16, bf16, i1, i8, i16, i32, i64"


def plural(n: int, word: str, words: str | None = None) -> str:
    """`1 value`, `2 values` (`words` for irregular plurals: `plural(n, "axis", "axes")`)."""
    return f"{n} {word if n == 1 else (words or word + 's')}"


def string_literal(text: str) -> str:
    """`text` as an MLIR string literal, escaped as the printer does: `"CPU:0"`."""
    out = StringIO()
    Printer(stream=out).print_string_literal(text)
    return out.getvalue()


def string_list(texts: Iterable[str]) -> str:
    """A list of names as MLIR prints it: `["CPU:0", "CPU:1"]`."""
    return "[" + ", ".join(string_literal(t) for t in texts) + "]"


def pairs_text(pairs: Iterable[tuple[int, int]]) -> str:
    """`[[0, 4], [4, 8]]`: bound pairs written as in the IR, not as Python tuples."""
    return "[" + ", ".join(f"[{a}, {b}]" for a, b in pairs) + "]"


def is_supported_element_type(t: Attribute) -> bool:
    """The element types of SPEC §1."""
    if isinstance(t, Float16Type | Float32Type | Float64Type | BFloat16Type):
        return True
    return (
        isinstance(t, IntegerType)
        and t.width.data in (1, 8, 16, 32, 64)
        and t.signedness.data == Signedness.SIGNLESS
    )


def expect_static(op_name: str, what: str, t: TensorType | MemRefType) -> None:
    """Raise a verifier error naming `t` unless it has a static shape and an element type of
    SPEC §1."""
    if any(d < 0 for d in t.get_shape()):
        raise VerifyException(f"{op_name}: {what} must have a static shape, found {t}")
    if not is_supported_element_type(t.element_type):
        raise VerifyException(
            f"{op_name}: {what} has element type {t.element_type}; "
            f"expected one of {ELEMENT_TYPES_TEXT}"
        )


class RankedEncoding:
    """A tensor encoding that constrains the rank of its tensor, which it cannot see when it is
    parsed (`#multi.shard`'s axis); `expect_tensor` asks it. Defined here so that this module
    needs no dialect."""

    def rank_error(self, rank: int) -> str | None:
        """What is wrong with this encoding on a tensor of `rank`, or None."""
        raise NotImplementedError


def expect_tensor(op_name: str, what: str, t: Attribute) -> TensorType:
    """Return `t` as a static-shaped tensor type or raise a verifier error naming it."""
    if not isinstance(t, TensorType):
        raise VerifyException(f"{op_name}: {what} must be a tensor, found {t}")
    expect_static(op_name, what, t)
    # A #multi.shard encoding cannot see the tensor's rank when it is parsed: check it here,
    # before any op-specific rule indexes the shape with the shard axis.
    if isinstance(t.encoding, RankedEncoding):
        error = t.encoding.rank_error(len(t.get_shape()))
        if error is not None:
            raise VerifyException(f"{op_name}: {what} {error}: {t}")
    return t


def encoding_of(t: TensorType) -> Attribute | None:
    """The tensor's encoding, or None when it has none."""
    return None if isinstance(t.encoding, NoneAttr) else t.encoding


def parse_operand_list(parser: Parser) -> list[UnresolvedOperand]:
    """Parse ``%a, %b, ...`` (at least one)."""
    operands = [parser.parse_unresolved_operand()]
    while parser.parse_optional_punctuation(",") is not None:
        operands.append(parser.parse_unresolved_operand())
    return operands


def parse_type_list(parser: Parser) -> list[Attribute]:
    """Parse ``T1, T2, ...`` (at least one)."""
    types = [parser.parse_type()]
    while parser.parse_optional_punctuation(",") is not None:
        types.append(parser.parse_type())
    return types


def resolve_all(
    parser: Parser,
    operands: Sequence[UnresolvedOperand],
    types: Sequence[Attribute],
    types_pos: int | None = None,
) -> list[SSAValue]:
    """Resolve operands against their written types, with a located error on a count mismatch
    (at `types_pos`, where the type list starts, when given)."""
    if len(operands) != len(types):
        parser.raise_error(
            f"expected {plural(len(operands), 'operand type')}, found {len(types)}", types_pos
        )
    return [parser.resolve_operand(o, t) for o, t in zip(operands, types, strict=True)]


def parse_unary_types(parser: Parser) -> tuple[Attribute, Attribute]:
    """Parse ``: T_in -> T_out``, or ``: T`` meaning both are T."""
    parser.parse_punctuation(":")
    in_type = parser.parse_type()
    if parser.parse_optional_punctuation("->") is None:
        return in_type, in_type
    return in_type, parser.parse_type()


I64_MIN, I64_MAX = -(2**63), 2**63 - 1


def parse_i64(parser: Parser, context_msg: str = "") -> int:
    """Parse an integer literal stored in an i64 property or array, with a located error when it
    does not fit (building the property would fail later, far from the literal)."""
    pos = parser.pos
    value = parser.parse_integer(allow_boolean=False, context_msg=context_msg)
    if not I64_MIN <= value <= I64_MAX:
        parser.raise_error(f"integer {value} does not fit in 64 bits", pos, parser.pos)
    return value


def parse_int_list(parser: Parser) -> list[int]:
    """Parse ``[1, 0, 2]`` (possibly empty)."""
    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, lambda: parse_i64(parser))


def print_int_list(printer: Printer, values: Sequence[int]) -> None:
    printer.print_string(int_list_text(values))


def print_unary_types(printer: Printer, in_type: Attribute, out_type: Attribute) -> None:
    """Print ``: T_in -> T_out``, or ``: T`` when both are the same."""
    printer.print_string(" : ")
    printer.print_attribute(in_type)
    if out_type != in_type:
        printer.print_string(" -> ")
        printer.print_attribute(out_type)


def print_attr_dict(printer: Printer, attributes: dict[str, Attribute]) -> None:
    if attributes:
        printer.print_op_attributes(attributes)


_T = TypeVar("_T")
_OpT = TypeVar("_OpT", bound=Operation)


@dataclass
class UnaryForm(Generic[_T]):
    """What `parse_unary` read: ``%source <extra> attr-dict : T_in (-> T_out)?``."""

    source: UnresolvedOperand
    extra: _T
    attributes: dict[str, Attribute]
    in_type: Attribute
    out_type: Attribute

    def resolve(self, parser: Parser) -> SSAValue:
        return parser.resolve_operand(self.source, self.in_type)

    def finish(self, op: _OpT) -> _OpT:
        """`op` with the parsed attribute dictionary added."""
        op.attributes |= self.attributes
        return op


def parse_unary(parser: Parser, extra: Callable[[], _T]) -> UnaryForm[_T]:
    """Parse the shared form of one-operand ops; `extra` reads what follows the operand (an
    integer list, `[N]`, `axis N`, bounds...)."""
    source = parser.parse_unresolved_operand()
    value = extra()
    attributes = parser.parse_optional_attr_dict()
    in_type, out_type = parse_unary_types(parser)
    return UnaryForm(source, value, attributes, in_type, out_type)


def no_extra() -> None:
    return None


def print_unary(
    printer: Printer,
    op: Operation,
    source: SSAValue,
    extra: str | Callable[[], None] = "",
    *,
    prefix: str = "",
    arrow: bool = False,
) -> None:
    """Print ``prefix %source extra attr-dict : T_in -> T_out`` (``: T`` when the types agree,
    unless `arrow`); `extra` is text or a function that prints it."""
    printer.print_string(f" {prefix}" if prefix else " ")
    printer.print_operand(source)
    if callable(extra):
        extra()
    else:
        printer.print_string(extra)
    print_attr_dict(printer, op.attributes)
    result = op.results[0].type
    if arrow:
        printer.print_string(" : ")
        printer.print_attribute(source.type)
        printer.print_string(" -> ")
        printer.print_attribute(result)
    else:
        print_unary_types(printer, source.type, result)


def int_list_text(values: Sequence[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def parse_variadic(parser: Parser) -> tuple[list[SSAValue], dict[str, Attribute], Attribute]:
    """Parse ``%a, %b attr-dict : T_a, T_b -> T_out`` (mstack, stack): the resolved operands,
    the attribute dictionary and the result type."""
    operands = parse_operand_list(parser)
    attributes = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    types_pos = parser.pos
    types = parse_type_list(parser)
    parser.parse_punctuation("->")
    out_type = parser.parse_type()
    return resolve_all(parser, operands, types, types_pos), attributes, out_type


def print_variadic(printer: Printer, op: Operation) -> None:
    """Print ``%a, %b attr-dict : T_a, T_b -> T_out``."""
    printer.print_string(" ")
    printer.print_list(op.operands, printer.print_operand)
    print_attr_dict(printer, op.attributes)
    printer.print_string(" : ")
    printer.print_list((s.type for s in op.operands), printer.print_attribute)
    printer.print_string(" -> ")
    printer.print_attribute(op.results[0].type)


@dataclass(frozen=True)
class TypeOf(AttrConstraint):
    """A type of base `base` that the declarative format infers from the `VarConstraint`
    named `name` (on the value that gives the type) without checking that the two agree: the
    op's `verify_` does, so its message (what was expected, what was found) stays the one the
    tests pin. `tg.where`: `false_value = operand_def(TypeOf("V", TensorType))`.
    """

    name: str
    base: type[Attribute]

    def verify(self, attr: Attribute, constraint_context: VerificationContext) -> None:
        BaseAttr(self.base).verify(attr, constraint_context)

    def can_infer(self, var_constraint_names: AbstractSet[str]) -> bool:
        return self.name in var_constraint_names

    def infer(self, context: InferenceContext) -> Attribute:
        attr = context.get_variable(self.name)
        assert attr is not None, self.name
        return attr

    def get_bases(self) -> set[type[Attribute]] | None:
        return {self.base}

    def mapping_type_vars(
        self, type_var_mapping: Mapping[TypeVar, AttrConstraint | IntConstraint]
    ) -> AttrConstraint:
        return self

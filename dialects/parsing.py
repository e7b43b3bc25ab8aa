"""The one MLIR parser of xdsl-multi: xDSL's, with dense float literals read as MLIR reads them.

In MLIR a hexadecimal element of a float `dense<...>` literal is the element's bit pattern
(SPEC §6): `dense<0xFF800000> : tensor<4xf32>` is -inf, in splats and in lists, for f16, bf16,
f32 and f64. xDSL 0.74 reads it as the integer 4286578688 converted to float. `MultiParser`
reads the bits (and stores them as they are: NaN payloads included). A splat is stored compact,
as its one element (dialects/splat.py): `dense<2.0> : tensor<4096x4096xf32>` is 4 bytes, not
64 MiB. Everything else is xDSL's parse.

Printing needs nothing of ours: xDSL prints inf and NaN as hex bit patterns and -0.0 as
`-0.000000e+00`, which parse back to the same bits here.

Every tool and module that reads MLIR text parses with `parse_mlir` (or a subclass of
`MultiParser`: multi-opt's `LocatingParser`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyDenseElement,
    AnyFloat,
    BytesAttr,
    ComplexType,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerType,
    MemRefType,
    ModuleOp,
    RankedStructure,
    TensorType,
    UnknownLoc,
    VectorType,
)
from xdsl.ir import Attribute, Operation, SSAValue, TypeAttribute
from xdsl.parser import AttrParser, Parser
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

from xdsl_multi.dialects.splat import splat_of_bytes


def parse_mlir(ctx: Context, text: str, name: str = "<unknown>") -> ModuleOp:
    """Parse a module (or the ops of an implicit one) with `MultiParser`."""
    return MultiParser(ctx, text, name).parse_module()


def hex_float_bits(text: str) -> int | None:
    """The integer of a hexadecimal literal (`0xFF800000`), or None for any other text."""
    if text[:2] not in ("0x", "0X"):
        return None
    return int(text, 16)


_SHAPED = frozenset({"tensor", "memref", "vector"})
"""The builtin types whose text `MultiParser` parses once per text (`parse_optional_type`)."""

_LONGEST_SHAPED = 1 << 20
"""Characters: a shaped type's text longer than this is parsed each time (a type placed on
N devices lists them all: 10 kB at N = 1024; the scan stops at the line's end anyway)."""


def shaped_type_end(text: str, start: int) -> int | None:
    """Where the type text `tensor<...>` (or memref, vector) that starts at `start`, right
    after its name, ends: just after its closing `>`, with `<>` nesting counted outside
    string literals. None when it does not open with `<` there, or does not close within
    `_LONGEST_SHAPED` characters on one line."""
    if start >= len(text) or text[start] != "<":
        return None
    depth, limit = 0, min(len(text), start + _LONGEST_SHAPED)
    for found in _TYPE_SPECIALS.finditer(text, start, limit):
        c = found.group()
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
            if depth == 0:
                return found.end()
        elif c in ('\n', '"'):  # a line end, or a string literal that does not close
            return None
    return None


_TYPE_SPECIALS = re.compile(r'[<>\n]|"(?:[^"\\\n]|\\.)*"|"')
"""What `shaped_type_end` counts: brackets and line ends outside string literals (a string
literal is one match, from its quote to its closing quote, escapes skipped; a lone quote is
one that does not close on its line)."""


_PLAIN_STRING_LIST = re.compile(r'\[\s*"[^"\\\n]*"(?:\s*,\s*"[^"\\\n]*")*\s*\]')
"""`["CPU:0", "CPU:1"]`: a bracketed list of string literals without escapes, with only
whitespace between the tokens (a comment, an escape or anything else: not matched)."""

_PLAIN_STRING = re.compile(r'"([^"\\\n]*)"')


def parse_optional_plain_string_list(parser: AttrParser) -> list[str] | None:
    """The strings of a `["a", "b"]` list at the parser's position, read from the text in one
    match and the parser moved past it; None (the parser not moved) when the text there is not
    such a list (escapes, comments, another token): then parse it token by token. A list of N
    device names is 2N + 1 tokens, which xDSL's lexer takes about 100 us each to make."""
    start = parser.pos
    found = _PLAIN_STRING_LIST.match(parser.lexer.input.content, start)
    if found is None:
        return None
    names = _PLAIN_STRING.findall(found.group())
    parser._resume_from(found.end())  # pyright: ignore[reportPrivateUsage]
    return names


_ID = r"([0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*)"
"""An SSA name after its `%`, as xDSL's lexer reads it (`MLIRLexer._suffix_id`)."""

_ONE_RESULT = re.compile(rf"%{_ID}[ \t]*=[ \t]*([a-zA-Z_][a-zA-Z0-9_$.]*)")
"""`%r = name`: an op with one result, in its custom form (a bare op name)."""

_USE = re.compile(rf"%{_ID}(#[0-9]+)?")
"""An SSA value used in an op's text (`#k`: an element of a value tuple)."""

_BLANK = re.compile(r"(?:\s|//[^\n]*)*")
"""Whitespace and comments: what may lie between an op's last token and the next one."""


@dataclass(frozen=True)
class _LineForm:
    """What a full parse made of one op line, its SSA uses taken out: the op's class,
    properties, attributes and result type, and the types of the operands (the uses, in
    order)."""

    op_type: type[Operation]
    properties: dict[str, Attribute]
    attributes: dict[str, Attribute]
    result_type: Attribute
    operand_types: tuple[Attribute, ...]


class MultiParser(Parser):
    """xDSL's parser, with hexadecimal elements of float dense literals read as bit patterns,
    and each distinct shaped type text (`tensor<256x256xf32, #s0>`) parsed once: a program
    repeats a few types hundreds of times, and a type is most of an op's parsing time.

    An op line that repeats an earlier one but for its SSA names (`%x1 = arith.mulf %x0, %c :
    tensor<...>` after `%y1 = arith.mulf %y0, %c : tensor<...>`; BENCH C1: 350 of its 357
    ops) is made again as the full parse made the first (`_LineForm`), its operands looked up
    by name: parsing is a function of the text and of the operands' types, so the same text
    with operands of the same types gives the same op. Only for a one-result op on one line,
    no regions or successors, every use of the text an operand in order, and no location;
    and again only when every operand is a defined value of the recorded type and no
    `loc(...)` follows. Anything else (an undefined, forward or mistyped operand, another
    form, another spelling) is parsed in full, so every diagnostic is xDSL's."""

    def __init__(self, ctx: Context, text: str, name: str = "<unknown>") -> None:
        super().__init__(ctx, text, name)
        self._shaped_types: dict[str, TypeAttribute] = {}
        self._line_forms: dict[tuple[str, str], _LineForm] = {}

    def parse_operation(self) -> Operation:
        token = self._current_token
        if token.kind != MLIRTokenKind.PERCENT_IDENT:
            return super().parse_operation()
        text = self.lexer.input.content
        head = _ONE_RESULT.match(text, token.span.start)
        if head is None:
            return super().parse_operation()
        end = text.find("\n", head.end())
        if end < 0:
            end = len(text)
        rest = text[head.end() : end]
        uses = _USE.findall(rest)
        if any(index for _, index in uses):
            return super().parse_operation()
        key = (head[2], _USE.sub("%", rest))
        form = self._line_forms.get(key)
        if form is not None:
            op = self._made_again(head, [name for name, _ in uses], end, form)
            if op is not None:
                return op
        op = super().parse_operation()
        if form is None and self._one_line_op(op, [name for name, _ in uses], end):
            self._line_forms[key] = _LineForm(
                type(op),
                dict(op.properties),
                dict(op.attributes),
                op.results[0].type,
                tuple(v.type for v in op.operands),
            )
        return op

    def _one_line_op(self, op: Operation, uses: list[str], end: int) -> bool:
        """Whether the full parse of a line made an op that `_made_again` can make: one
        result, no regions, successors or location, its operands the line's uses in order,
        and its text ended on that line."""
        if len(op.results) != 1 or op.regions or op.successors:
            return False
        if not isinstance(op.location, UnknownLoc) or len(op.operands) != len(uses):
            return False
        for value, name in zip(op.operands, uses, strict=True):
            found = self.ssa_values.get(name)
            if found is None or len(found) != 1 or found[0] is not value:
                return False
        start = self._current_token.span.start
        return start >= end and _BLANK.fullmatch(self.lexer.input.content, end, start) is not None

    def _made_again(
        self, head: re.Match[str], uses: list[str], end: int, form: _LineForm
    ) -> Operation | None:
        """The op of the line at `head` made as the full parse made `form`, or None (and
        nothing consumed)."""
        operands: list[SSAValue] = []
        for name, t in zip(uses, form.operand_types, strict=True):
            found = self.ssa_values.get(name)
            if found is None or len(found) != 1:
                return None
            value = found[0]
            if value.type is not t and value.type != t:
                return None
            operands.append(value)
        self._resume_from(end)
        after = self._current_token
        if after.kind == MLIRTokenKind.BARE_IDENT and after.text == "loc":
            self._resume_from(head.start())
            return None
        last = len(self.lexer.input.content[head.start() : end].rstrip()) + head.start()
        self._read_up_to(Span(last - 1, last, self.lexer.input))
        self._get_op_by_name(head[2])  # as the full parse does (a subclass may record it)
        op = form.op_type.create(
            operands=operands,
            result_types=[form.result_type],
            properties=dict(form.properties),
            attributes=dict(form.attributes),
        )
        self._register_ssa_definition(
            head[1], op.results, Span(head.start(), head.end(1), self.lexer.input)
        )
        return op

    def _read_up_to(self, last: Span[str]) -> None:
        """A line was made again: the parser moved past text that ends at `last` (for a
        subclass that tracks the last token read; `last` is the line's last character, which
        no diagnostic reads before the next op's first token is consumed)."""

    def parse_optional_type(self) -> TypeAttribute | None:
        token = self._current_token
        if token.kind != MLIRTokenKind.BARE_IDENT or token.text not in _SHAPED:
            return super().parse_optional_type()
        text = self.lexer.input.content
        end = shaped_type_end(text, token.span.end)
        if end is None:
            return super().parse_optional_type()
        key = text[token.span.start : end]
        found = self._shaped_types.get(key)
        if found is not None:
            self._resume_from(end)
            return found
        parsed = super().parse_optional_type()
        # keep it only when the parse read exactly that text (aliases cannot be redefined, so
        # the same text is the same type further on)
        if parsed is not None and not text[end : self._current_token.span.start].strip():
            self._shaped_types[key] = parsed
        return parsed

    def parse_dense_int_or_fp_elements_attr(self, type):  # xDSL declares a long type
        start, given = self._current_token.span.start, type
        self.parse_punctuation("<", " in dense attribute")
        if self._current_token.kind in (MLIRTokenKind.GREATER, MLIRTokenKind.STRING_LIT):
            self._resume_from(start)  # empty, or a "0x..." string of raw bytes: xDSL's
            return super().parse_dense_int_or_fp_elements_attr(type)
        elements, shape = self._parse_tensor_literal()
        self.parse_punctuation(">", " in dense attribute")
        if type is None:
            self.parse_punctuation(":", " in dense attribute")
            type = self._parse_dense_literal_type()
        element = type.element_type
        if isinstance(element, ComplexType):
            self._resume_from(start)
            return super().parse_dense_int_or_fp_elements_attr(given)
        type_shape = list(type.get_shape())
        if shape and type_shape != shape:
            self.raise_error(
                f"Shape mismatch in dense literal. Expected {type_shape} shape from the type, "
                f"but got {shape} shape."
            )
        if isinstance(element, AnyFloat):
            data = self._float_bytes(elements, element)
        else:
            values = [e.to_type(self, element) for e in elements]
            one_type = TensorType(element, [len(values)])
            data = DenseIntOrFPElementsAttr.from_list(one_type, values).data.data
        if not shape:  # a splat: its one element (compact, dialects/splat.py)
            return splat_of_bytes(type, data)
        return DenseIntOrFPElementsAttr(type, BytesAttr(data))

    def _parse_dense_literal_type(self) -> RankedStructure[AnyDenseElement]:
        """xDSL's check of a dense literal's type (a static tensor, vector or memref of
        integers, index, floats or complex numbers), with its messages, by `isinstance`:
        xDSL builds the `base(RankedStructure[...])` constraint anew for every literal, about
        15 ms each (most of W1's parse once its splats were compact)."""
        type = self.expect(self.parse_optional_type, "Dense attribute must be typed!")
        if not (
            isinstance(type, TensorType | VectorType | MemRefType)
            and isinstance(type.element_type, IntegerType | IndexType | AnyFloat | ComplexType)
        ):
            self.raise_error(
                "Expected memref, vector or tensor type of "
                "integer, index, float, or complex type"
            )
        if any(dim == DYNAMIC_INDEX for dim in type.get_shape()):
            self.raise_error("Dense literal attribute should have a static shape.")
        return type

    def _float_bytes(self, elements: list[Parser._TensorLiteralElement], t: AnyFloat) -> bytes:
        """The packed elements: a hexadecimal one is its bits, any other its value rounded."""
        width = t.compile_time_size
        if not any(hex_float_bits(e.span.text.lstrip("-")) is not None for e in elements):
            return t.pack([e.to_float(self) for e in elements])
        parts: list[bytes] = []
        for e in elements:
            text = e.span.text
            bits = hex_float_bits(text.lstrip("-"))
            if bits is None:
                parts.append(t.pack([e.to_float(self)]))
                continue
            if text.startswith("-"):
                self.raise_error(
                    "hexadecimal float literal should not have a leading minus",
                    at_position=e.span,
                )
            if bits >= 1 << (8 * width):
                self.raise_error(
                    f"hexadecimal float constant {text} out of range for type {t}",
                    at_position=e.span,
                )
            parts.append(bits.to_bytes(width, "little"))
        return b"".join(parts)

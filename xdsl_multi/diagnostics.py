"""Compiler-style diagnostics for the command-line tools and the Python API (api.py).

xDSL's parser does not record where an op came from, and its verifier reports a failing op by
printing the whole module. This module gives every parsed op a `FileLineColLoc`, verifies op by
op, and renders one short message per failure:

    file.mlir:12:5: error: arith.addf: <what the verifier said>
      %0 = arith.addf %a, %b : f32
      ^

It also checks the module-level placement rules of SPEC §1 after the op verifiers
(`verify_module_devices`), and turns nesting, size and memory limits of the parser into
diagnostics. Used by multi-opt, multi-run and `xdsl_multi.compile`: nothing here prints or
exits.
"""

from __future__ import annotations

import bisect
import math
import re
import traceback
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from types import TracebackType

from xdsl.context import Context
from xdsl.dialects.builtin import (
    FileLineColLoc,
    IntAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    UnknownLoc,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.parser import Parser
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    MultipleSpansParseError,
    ParseError,
    PassFailedException,
)
from xdsl.utils.lexer import Span, Token
from xdsl.utils.mlir_lexer import MLIRTokenKind

from xdsl_multi.dialects.multi import PlacementError, verify_module_devices
from xdsl_multi.dialects.parsing import MultiParser

EXIT_ERROR = 1
"""The input (or the command line) is wrong: parse, verifier and pass-rejection errors."""
EXIT_INTERNAL = 2
"""A bug in a pass, a verifier, a parser or a target: a Python exception escaped it."""

STDIN_NAME = "<stdin>"

MAX_TENSOR_ELEMENTS = 2**40
"""Larger tensor types are rejected while parsing: no device holds them, and byte sizes
computed from them would overflow 64 bits in lowered code."""
MAX_DENSE_ELEMENTS = 2**24
"""xDSL expands a dense literal (a splat too) to a Python list of every element while parsing,
about 90 bytes each; larger literals are rejected before that happens."""
MAX_QUOTED_LINE = 200
"""Longer source lines are quoted under a diagnostic as a window around the column."""
_BOM = "\ufeff"


@dataclass(frozen=True)
class SourcePos:
    """A place in a source text; line and col are 1-based, col counts code points."""

    file: str
    line: int
    col: int
    length: int = 1
    """How many characters the caret line marks."""


@dataclass
class CompileError(Exception):
    """One diagnostic, ready to render. Raised inside the tools, rendered once at the top."""

    message: str
    pos: SourcePos | None = None
    exit_code: int = EXIT_ERROR
    notes: list[str] = field(default_factory=list[str])
    python_traceback: str | None = None
    """The formatted traceback of the exception behind an internal error (--show-traceback)."""
    source: SourceFile | None = None
    """The text `pos` points into, when it is not the input file (e.g. the `-p` argument)."""
    is_parse_error: bool = False
    op: Operation | None = None
    """The op the diagnostic is about, when it has no place in a text (a built module)."""

    def __str__(self) -> str:
        return self.message


class SourceFile:
    """The text of one input, for line/column lookups and for quoting source lines."""

    def __init__(self, name: str, text: str) -> None:
        self.name = name
        self.text = text
        self._line_starts = [0, *(m.end() for m in re.finditer("\n", text))]

    @classmethod
    def from_bytes(cls, name: str, data: bytes) -> SourceFile:
        """Decode an input file: UTF-8, with a leading byte order mark dropped (as compilers
        and editors do, so columns on line 1 count from the first visible character)."""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise CompileError(f"input file '{name}' is not UTF-8 text: {e}") from None
        return cls(name, text.removeprefix(_BOM))

    def pos_at(self, offset: int, length: int = 1) -> SourcePos:
        """The line and column of a 0-based code-point offset into the text."""
        line = bisect.bisect_right(self._line_starts, offset)
        return SourcePos(self.name, line, offset - self._line_starts[line - 1] + 1, length)

    def offset_of(self, line: int, col: int) -> int:
        """The 0-based offset of a 1-based line and column."""
        return self._line_starts[line - 1] + col - 1

    def line_text(self, line: int) -> str | None:
        if not 1 <= line <= len(self._line_starts):
            return None
        start = self._line_starts[line - 1]
        end = self._line_starts[line] - 1 if line < len(self._line_starts) else len(self.text)
        return self.text[start:end].removesuffix("\r")


def render(error: CompileError, tool: str, source: SourceFile | None) -> str:
    """`file:line:col: error: message`, the quoted source line and a caret, then notes."""
    pos = error.pos
    source = error.source or source
    if pos is None:
        head = f"{tool}: error: {error.message}"
    else:
        head = f"{pos.file}:{pos.line}:{pos.col}: error: {error.message}"
    lines = [head]
    if pos is not None and source is not None and pos.file == source.name:
        text = source.line_text(pos.line)
        if text is not None:
            lines += _quote(text, pos)
    lines += [f"note: {note}" for note in error.notes]
    if error.python_traceback:
        lines.append(error.python_traceback.rstrip("\n"))
    return "\n".join(lines) + "\n"


def _quote(text: str, pos: SourcePos) -> list[str]:
    """The source line and the caret line under `pos`. A line longer than MAX_QUOTED_LINE is
    cut to a window around the column, with `...` where text is left out."""
    start, end, col = 0, len(text), pos.col - 1
    if len(text) > MAX_QUOTED_LINE:
        start = max(0, min(col - MAX_QUOTED_LINE // 2, len(text) - MAX_QUOTED_LINE))
        end = start + MAX_QUOTED_LINE
    head = "..." if start > 0 else ""
    tail = "..." if end < len(text) else ""
    lead = " " * len(head) + "".join("\t" if c == "\t" else " " for c in text[start:col])
    width = max(1, min(pos.length, end - col))
    return [head + text[start:end] + tail, lead + "^" + "~" * (width - 1)]


# ---------------------------------------------------------------------------------------------
# Parsing with locations
# ---------------------------------------------------------------------------------------------


class LocatingParser(MultiParser):
    """A MultiParser (dialects/parsing.py) that gives each op without an explicit `loc(...)`
    the position where its text starts (its first result name, or its name), as a
    `FileLineColLoc` in the original file, and each block argument the position of its name.

    It also turns a verifier error raised while an op is being parsed (xDSL's declarative
    assembly formats check the op's constraints before building it) into a diagnostic at the
    op that names it, and rejects tensor types and dense literals too large to handle."""

    def __init__(self, ctx: Context, text: str, name: str, line_offset: int = 0) -> None:
        self._source = SourceFile(name, text)
        self._file_attr = StringAttr(name)
        self._line_offset = line_offset
        self._op_names: list[str] = []
        """The names of the ops being parsed, outermost first."""
        self._last_span: Span[str] | None = None
        """The last token consumed."""
        super().__init__(ctx, text, name)

    def _location(self, offset: int) -> FileLineColLoc:
        pos = self._source.pos_at(offset)
        return FileLineColLoc(
            self._file_attr, IntAttr(pos.line + self._line_offset), IntAttr(pos.col)
        )

    def parse_operation(self) -> Operation:
        start = self._current_token.span.start
        depth = len(self._op_names)
        try:
            op = super().parse_operation()
        except DiagnosticException as e:
            if depth >= len(self._op_names) or _raised_by_attribute(e):
                raise  # an attribute or type that does not verify: located where it ends
            name = self._op_names[depth]
            message = _message_of(e)
            if (what := _constraint_being_checked(e)) is not None:
                message = f"{what} does not verify: {message}"
            pos = self._source.pos_at(start)
            raise CompileError(
                op_message_for(name, message),
                SourcePos(pos.file, pos.line + self._line_offset, pos.col, pos.length),
                is_parse_error=True,
            ) from e
        finally:
            del self._op_names[depth:]
        if isinstance(op.location, UnknownLoc):
            op.location = self._location(start)
        return op

    def _get_op_by_name(self, name: str) -> type[Operation]:
        op_type = super()._get_op_by_name(name)
        self._op_names.append(name)
        return op_type

    def _register_ssa_definition(
        self, name: str, values: Sequence[SSAValue], span: Span[str]
    ) -> None:
        super()._register_ssa_definition(name, values, span)
        for value in values:
            # xDSL sets an explicit `loc(...)` of an argument after registering it.
            if isinstance(value, BlockArgument) and isinstance(value.location, UnknownLoc):
                value.location = self._location(span.start)

    def _parse_tensor_attrs(self) -> Attribute:
        start = self._current_token.span.start
        t = super()._parse_tensor_attrs()
        if isinstance(t, TensorType) and all(d >= 0 for d in t.get_shape()):
            count = math.prod(t.get_shape())
            if count > MAX_TENSOR_ELEMENTS:
                self.raise_error(
                    f"tensor type {t} has {count} elements, more than the {MAX_TENSOR_ELEMENTS} "
                    "(2^40) supported",
                    start,
                    self._last_end(),
                )
        return t

    def parse_dense_int_or_fp_elements_attr(self, type):  # xDSL declares a long type
        """MultiParser's (hex float elements are bit patterns, a splat is packed once), with
        a value that does not fit its element type as a located diagnostic (xDSL's packing
        raises a ValueError)."""
        start = self._current_token.span.start
        try:
            return super().parse_dense_int_or_fp_elements_attr(type)
        except ValueError as e:
            self.raise_error(f"dense literal: {e}", start, self._last_end())

    def _parse_dense_literal_type(self):  # xDSL declares a long return type
        start = self._current_token.span.start
        t = super()._parse_dense_literal_type()
        count = math.prod(t.get_shape())
        if count > MAX_DENSE_ELEMENTS:
            self.raise_error(
                f"constant too large: a dense literal of type {t} has {count} elements; "
                f"multi-opt handles at most {MAX_DENSE_ELEMENTS} (2^24) elements per literal",
                start,
                self._last_end(),
            )
        return t

    def _consume_token(
        self, expected_kind: MLIRTokenKind | None = None
    ) -> Token[MLIRTokenKind, str]:
        self._last_span = self._current_token.span
        return super()._consume_token(expected_kind)

    def _read_up_to(self, last: Span[str]) -> None:
        self._last_span = last

    def _last_end(self) -> int:
        return self._last_span.end if self._last_span is not None else self.pos

    def current_pos(self) -> SourcePos:
        span = self._current_token.span
        return self.span_pos(span)

    def last_token_pos(self) -> SourcePos:
        """The last token consumed (the current one before the first): where the text of an
        attribute that turns out not to verify ends. The current token may belong to the next
        op, lines further on."""
        return self.span_pos(self._last_span or self._current_token.span)

    def span_pos(self, span: Span[str] | Span[bytes]) -> SourcePos:
        pos = self._source.pos_at(span.start, max(1, span.end - span.start))
        return SourcePos(pos.file, pos.line + self._line_offset, pos.col, pos.length)


def _raised_by_attribute(e: BaseException) -> bool:
    """Whether an exception was raised while an attribute or type was built (its verifier runs
    in `__post_init__`), rather than by a check of an op."""
    return any(isinstance(f.get("self"), Attribute) for f in _frames(e.__traceback__))


def _constraint_being_checked(e: BaseException) -> str | None:
    """`result 'result'` (or operand, property, attribute) when the exception comes from the
    constraint checks xDSL's declarative assembly format runs on a parsed op (the loop
    variables of `FormatProgram.resolve_constraint_variables` tell which def failed)."""
    for f in _frames(e.__traceback__):
        if "op_def" not in f or "state" not in f:
            continue
        for key, kind in (
            ("attr_name", "attribute"),
            ("prop_name", "property"),
            ("result_def", "result"),
            ("operand_def", "operand"),
        ):
            if key in f:
                name = f.get(key) if key.endswith("_name") else f.get("_")
                return f"{kind} '{name}'" if isinstance(name, str) else kind
    return None


def parse_module(
    ctx: Context,
    text: str,
    name: str,
    line_offset: int = 0,
    allow_implicit_module: bool = True,
) -> ModuleOp:
    """Parse MLIR text with op locations; every failure becomes a CompileError."""
    try:
        parser = LocatingParser(ctx, text, name, line_offset)
    except ParseError as e:  # the lexer reads the first token in the constructor
        source = SourceFile(name, text)
        pos = source.pos_at(e.span.start, max(1, e.span.end - e.span.start))
        raise CompileError(
            e.msg,
            SourcePos(pos.file, pos.line + line_offset, pos.col, pos.length),
            is_parse_error=True,
        ) from e
    try:
        return parser.parse_module(allow_implicit_module)
    except CompileError:
        raise
    except ParseError as e:
        if e.msg.startswith("values used but not defined") and (
            undefined := _first_undefined_use(parser)
        ):
            # xDSL reports this at the end of the input; point at the first use instead.
            name, user = undefined
            raise CompileError(
                f"value %{name} is used but not defined", op_pos(user), is_parse_error=True
            ) from e
        notes: list[str] = []
        if isinstance(e, MultipleSpansParseError):
            notes = [
                f"{_pos_str(parser.span_pos(span))}: {msg or ''}".rstrip(": ")
                for span, msg in e.refs
            ]
        raise CompileError(e.msg, parser.span_pos(e.span), notes=notes, is_parse_error=True) from e
    except DiagnosticException as e:
        # An attribute or type whose parameters do not verify raises once its text is read.
        raise CompileError(_message_of(e), parser.last_token_pos(), is_parse_error=True) from e
    except RecursionError as e:
        raise CompileError(
            "input nests too deeply: the parser ran out of stack here",
            parser.current_pos(),
            is_parse_error=True,
        ) from e
    except MemoryError as e:
        raise CompileError(
            "input too large: out of memory while parsing here",
            parser.current_pos(),
            is_parse_error=True,
        ) from e
    except Exception as e:
        raise internal_error("internal error while parsing", e, parser.current_pos()) from e


def _first_undefined_use(parser: Parser) -> tuple[str, Operation] | None:
    for name, values in parser.forward_ssa_references.items():
        for value in values.values():
            for use in value.uses:
                return name, use.operation
    return None


def _pos_str(pos: SourcePos) -> str:
    return f"{pos.file}:{pos.line}:{pos.col}"


def _message_of(e: BaseException) -> str:
    """The exception's message without xDSL's __notes__ (which hold the printed module)."""
    return str(e).strip() or type(e).__name__


# ---------------------------------------------------------------------------------------------
# Verification with locations
# ---------------------------------------------------------------------------------------------


def op_pos(op: Operation | None) -> SourcePos | None:
    """The FileLineColLoc of `op`, or of its nearest ancestor that has one."""
    while op is not None:
        loc = op.location
        if isinstance(loc, FileLineColLoc):
            return SourcePos(loc.filename.data, loc.line.data, loc.column.data)
        op = op.parent_op()
    return None


def _check_regions_not_empty(op: Operation) -> None:
    """The one check Block.verify makes that Operation.verify(verify_nested_ops=False) skips."""
    if op.has_trait(NoTerminator):
        return
    for region in op.regions:
        if len(region.blocks) == 1 and region.block.first_op is None:
            raise _EmptyBlock(
                f"Operation {op.name} contains empty block in single-block region that "
                "expects at least a terminator"
            )


class _EmptyBlock(DiagnosticException):
    pass


def verify_ops(module: Operation) -> None:
    """Verify every op (pre-order), then the module-level placement rules of SPEC §1
    (`verify_module_devices`); raise a CompileError for the first failure."""
    op: Operation | None = None
    try:
        for op in module.walk():
            try:
                op.verify(verify_nested_ops=False)
                _check_regions_not_empty(op)
            except DiagnosticException as e:
                raise CompileError(op_message(op, _message_of(e)), op_pos(op), op=op) from e
            except RecursionError:
                raise
            except Exception as e:
                raise internal_error(
                    f"internal error in the verifier of '{op.name}'", e, op_pos(op)
                ) from e
        op = module
        try:
            verify_module_devices(module)
        except PlacementError as e:
            raise CompileError(
                _message_of(e), value_pos(e.arg) or op_pos(e.op), op=e.op
            ) from e
    except RecursionError as e:
        raise CompileError(
            "input nests too deeply: the verifier ran out of stack", op_pos(op)
        ) from e


def value_pos(value: SSAValue | None) -> SourcePos | None:
    """The FileLineColLoc of a block argument (multi-opt's parser records them)."""
    loc = value.location if isinstance(value, BlockArgument) else None
    if isinstance(loc, FileLineColLoc):
        return SourcePos(loc.filename.data, loc.line.data, loc.column.data)
    return None


def op_message(op: Operation, message: str) -> str:
    """One line: the op name (unless the message starts with it), then the message, whose lines
    (xDSL's constraint messages put the detail on a second line) are joined by spaces."""
    return op_message_for(op.name, message)


def op_message_for(op_name: str, message: str) -> str:
    """`op_message` for an op known by its name only."""
    message = " ".join(line.strip() for line in message.splitlines() if line.strip())
    return message if message.startswith(op_name) else f"{op_name}: {message}"


# ---------------------------------------------------------------------------------------------
# Exceptions from passes and other code
# ---------------------------------------------------------------------------------------------


def _frames(tb: TracebackType | None) -> Iterator[dict[str, object]]:
    """The locals of each frame of a traceback, innermost first."""
    frames: list[dict[str, object]] = []
    while tb is not None:
        frames.append(tb.tb_frame.f_locals)
        tb = tb.tb_next
    return reversed(frames)


def op_from_traceback(e: BaseException) -> Operation | None:
    """The op an exception was raised about, as far as its traceback tells: the innermost frame
    whose `self` or `op` is an Operation (`op.emit_error(...)`, a pattern's
    `match_and_rewrite(self, op, rewriter)`, a verifier)."""
    for frame_locals in _frames(e.__traceback__):
        for name in ("self", "op"):
            candidate = frame_locals.get(name)
            if isinstance(candidate, Operation):
                return candidate
    return None


def internal_error(what: str, e: BaseException, pos: SourcePos | None = None) -> CompileError:
    """`what: ExcType: message` with exit code 2, keeping the traceback for --show-traceback."""
    return CompileError(
        f"{what}: {type(e).__name__}: {_message_of(e)}",
        pos,
        exit_code=EXIT_INTERNAL,
        python_traceback="".join(traceback.format_exception(type(e), e, e.__traceback__)),
    )


def run_pass(name: str, apply: Callable[[], None]) -> None:
    """Run one pass of the pipeline (`apply()`, the pass named `name` with its options), with
    its failures as diagnostics: a pass rejecting its input (PassFailedException) is exit code
    1 at the op, any other exception an internal error (exit code 2)."""
    try:
        apply()
    except PassFailedException as e:
        raise CompileError(
            f"pass '{name}' failed: {str(e).strip()}", op_pos(op_from_traceback(e))
        ) from e
    except Exception as e:
        raise internal_error(
            f"internal error in pass '{name}'", e, op_pos(op_from_traceback(e))
        ) from e


_ARG_SPEC_LOC = re.compile(r"^pass-pipeline:(\d+):(\d+)$")


def arg_spec_error(e: ArgSpecParseError, option: str, text: str) -> CompileError:
    """Turn xDSL's ArgSpecParseError (its message embeds a quoted span) into a diagnostic that
    points into the option's text, e.g. `<-p>:1:13: error: ...`."""
    lines = str(e).splitlines()
    for i, line in enumerate(lines):
        if (m := _ARG_SPEC_LOC.match(line)) is not None:
            message = " ".join(s.strip() for s in lines[i + 3 :] if s.strip())
            source = SourceFile(f"<{option}>", text)
            offset = source.offset_of(int(m.group(1)), int(m.group(2)))
            return CompileError(
                f"malformed {option}: {message or 'syntax error'}",
                source.pos_at(offset),
                source=source,
            )
    return CompileError(f"malformed {option}: {' '.join(lines)}")

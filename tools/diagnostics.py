"""Compiler-style diagnostics for the command-line tools.

xDSL's parser does not record where an op came from, and its verifier reports a failing op by
printing the whole module. This module gives every parsed op a `FileLineColLoc`, verifies op by
op, and renders one short message per failure:

    file.mlir:12:5: error: arith.addf: <what the verifier said>
      %0 = arith.addf %a, %b : f32
      ^

Used by multi-opt (and meant for multi-run): nothing here prints or exits.
"""

from __future__ import annotations

import bisect
import re
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import TracebackType

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    MultipleSpansParseError,
    ParseError,
)
from xdsl.utils.lexer import Span

EXIT_ERROR = 1
"""The input (or the command line) is wrong: parse, verifier and pass-rejection errors."""
EXIT_INTERNAL = 2
"""A bug in a pass, a verifier, a parser or a target: a Python exception escaped it."""

STDIN_NAME = "<stdin>"


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

    def __str__(self) -> str:
        return self.message


class SourceFile:
    """The text of one input, for line/column lookups and for quoting source lines."""

    def __init__(self, name: str, text: str) -> None:
        self.name = name
        self.text = text
        self._line_starts = [0, *(m.end() for m in re.finditer("\n", text))]

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
            lead = "".join("\t" if c == "\t" else " " for c in text[: pos.col - 1])
            width = max(1, min(pos.length, len(text) - (pos.col - 1)))
            lines += [text, lead + "^" + "~" * (width - 1)]
    lines += [f"note: {note}" for note in error.notes]
    if error.python_traceback:
        lines.append(error.python_traceback.rstrip("\n"))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# Parsing with locations
# ---------------------------------------------------------------------------------------------


class LocatingParser(Parser):
    """A Parser that gives each op without an explicit `loc(...)` the position where its text
    starts (its first result name, or its name), as a `FileLineColLoc` in the original file."""

    def __init__(self, ctx: Context, text: str, name: str, line_offset: int = 0) -> None:
        super().__init__(ctx, text, name)
        self._source = SourceFile(name, text)
        self._file_attr = StringAttr(name)
        self._line_offset = line_offset

    def parse_operation(self) -> Operation:
        start = self._current_token.span.start
        op = super().parse_operation()
        if isinstance(op.location, UnknownLoc):
            pos = self._source.pos_at(start)
            op.location = FileLineColLoc(
                self._file_attr, IntAttr(pos.line + self._line_offset), IntAttr(pos.col)
            )
        return op

    def current_pos(self) -> SourcePos:
        span = self._current_token.span
        return self.span_pos(span)

    def span_pos(self, span: Span[str] | Span[bytes]) -> SourcePos:
        pos = self._source.pos_at(span.start, max(1, span.end - span.start))
        return SourcePos(pos.file, pos.line + self._line_offset, pos.col, pos.length)


def parse_module(
    ctx: Context,
    text: str,
    name: str,
    line_offset: int = 0,
    allow_implicit_module: bool = True,
) -> ModuleOp:
    """Parse MLIR text with op locations; every failure becomes a CompileError."""
    parser = LocatingParser(ctx, text, name, line_offset)
    try:
        return parser.parse_module(allow_implicit_module)
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
        # An attribute or type whose parameters do not verify raises while being built.
        raise CompileError(_message_of(e), parser.current_pos(), is_parse_error=True) from e
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
    """Verify every op (pre-order); raise a CompileError for the first one that fails."""
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
            _check_regions_not_empty(op)
        except DiagnosticException as e:
            raise CompileError(op_message(op, _message_of(e)), op_pos(op)) from e
        except Exception as e:
            raise internal_error(
                f"internal error in the verifier of '{op.name}'", e, op_pos(op)
            ) from e


def op_message(op: Operation, message: str) -> str:
    """One line: the op name (unless the message starts with it), then the message, whose lines
    (xDSL's constraint messages put the detail on a second line) are joined by spaces."""
    message = " ".join(line.strip() for line in message.splitlines() if line.strip())
    return message if message.startswith(op.name) else f"{op.name}: {message}"


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

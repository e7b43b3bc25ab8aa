"""`--verify-diagnostics` as in mlir-opt (SPEC §6).

An input states the diagnostics it expects in comments:

    %0 = arith.addf %a, %b : f64   // expected-error {{operand is used with type f64}}
    // expected-error @+1 {{does not verify}}
    %1 = "arith.addf"(%a, %c) : (f32, f64) -> f32

`expected-error`, `expected-warning`, `expected-note` (and `expected-remark`), each with an
optional line designator: `@+N` / `@-N` (N lines below / above the comment's line), `@above`
(the nearest line above that holds no designator), `@below` (the nearest such line below);
without one, the comment's own line. Every expectation must be met by a diagnostic of that kind
at that line whose message contains the text between `{{` and the last `}}`; every diagnostic
must meet an expectation. With `--split-input-file` each chunk is checked on its own.
`expectations` and `check_chunk` return what does not match, as diagnostics of their own (`file:line:col: error:
unexpected error: ...`, `... error: expected error "..." was not produced`); multi-opt prints
them and exits with code 1.

A diagnostic here is a CompileError (always an error) and its notes; a note that starts with
`file:line:col:` is at that line, any other at its error's line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xdsl_multi.diagnostics import CompileError, SourceFile, SourcePos

_DESIGNATOR = re.compile(
    r"expected-(?P<kind>error|warning|note|remark)"
    r"(?P<where>\s*@\S*)?\s*(?P<body>\{\{.*)?$"
)
_OFFSET = re.compile(r"@(?:[+-]\d+|above|below)")
_NOTE_POS = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<message>.*)$", re.DOTALL)


@dataclass(frozen=True)
class Expected:
    """One `expected-KIND @WHERE {{text}}` comment: what it expects at which line."""

    kind: str
    text: str
    line: int
    pos: SourcePos
    """Where the comment is, for the report when nothing meets it."""


@dataclass(frozen=True)
class Produced:
    """One diagnostic the chunk produced."""

    kind: str
    message: str
    pos: SourcePos | None


def expectations(
    source: SourceFile, text: str, line_offset: int
) -> tuple[list[Expected], list[CompileError]]:
    """The expectations written in a chunk (`text`, which starts after `line_offset` lines of
    `source`), and a diagnostic at each malformed one."""
    lines = text.split("\n")
    found: list[Expected] = []
    malformed: list[CompileError] = []
    below: list[tuple[str, str, SourcePos]] = []
    last_plain: int | None = None
    for i, line_text in enumerate(lines):
        line = line_offset + i + 1
        match = _DESIGNATOR.search(line_text)
        if match is None:
            found += [Expected(kind, body, line, pos) for kind, body, pos in below]
            below.clear()
            last_plain = line
            continue
        pos = SourcePos(source.name, line, match.start() + 1, len("expected-") + len(match["kind"]))
        body = match["body"]
        if body is None or "}}" not in body:
            malformed.append(
                CompileError(f"expected-{match['kind']} needs its text in {{{{...}}}}", pos)
            )
            continue
        message = body[2 : body.rindex("}}")]
        where = (match["where"] or "").strip()
        if where and _OFFSET.fullmatch(where) is None:
            malformed.append(
                CompileError(
                    f"expected-{match['kind']}: unknown line designator '{where}' "
                    "(expected @+N, @-N, @above or @below)",
                    pos,
                )
            )
            continue
        if where == "@below":
            below.append((match["kind"], message, pos))
            continue
        if where == "@above":
            if last_plain is None:
                malformed.append(
                    CompileError(f"expected-{match['kind']} @above: no line above", pos)
                )
                continue
            target = last_plain
        else:
            target = line + (int(where[1:]) if where else 0)
        if not line_offset < target <= line_offset + len(lines):
            malformed.append(
                CompileError(
                    f"expected-{match['kind']} {where}: line {target} is outside the chunk", pos
                )
            )
            continue
        found.append(Expected(match["kind"], message, target, pos))
    malformed += [CompileError(f"expected-{k} @below: no line below", p) for k, _, p in below]
    return found, malformed


def produced(error: CompileError | None) -> list[Produced]:
    """The diagnostics of a chunk's error (none when the chunk went through)."""
    if error is None:
        return []
    found = [Produced("error", error.message, error.pos)]
    for note in error.notes:
        m = _NOTE_POS.match(note)
        if m is not None and m["line"].isdigit():
            pos = SourcePos(m["file"], int(m["line"]), int(m["col"]))
            found.append(Produced("note", m["message"], pos))
        else:
            found.append(Produced("note", note, error.pos))
    return found


def check_chunk(expected: list[Expected], diagnostics: list[Produced]) -> list[CompileError]:
    """Each diagnostic against the expectations at its line; the mismatches, in line order."""
    unmet = list(expected)
    problems: list[CompileError] = []
    for d in diagnostics:
        meets = next(
            (
                e
                for e in unmet
                if d.pos is not None
                and e.kind == d.kind
                and e.line == d.pos.line
                and e.text in d.message
            ),
            None,
        )
        if meets is not None:
            unmet.remove(meets)
        else:
            problems.append(CompileError(f"unexpected {d.kind}: {d.message}", d.pos))
    for e in unmet:
        problems.append(CompileError(f'expected {e.kind} "{e.text}" was not produced', e.pos))
    return sorted(problems, key=lambda p: (p.pos.line, p.pos.col) if p.pos else (0, 0))

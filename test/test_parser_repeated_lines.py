"""The parser makes an op line that repeats an earlier one but for its SSA names again from
what the full parse made (dialects/parsing.py `MultiParser`, issue 14: C1's parse): the same
module, locations included, and the same diagnostics as the full parse, on real programs and
on lines that must fall back; and the path is taken."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from xdsl.parser import Parser
from xdsl.printer import Printer

from xdsl_multi.diagnostics import CompileError, parse_module
from xdsl_multi.dialects import make_context
from xdsl_multi.dialects.parsing import MultiParser

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = [
    "bench/programs/c1_chain.mlir",
    "bench/programs/w2_layernorm.mlir",
    "bench/programs/w5_megatron_mlp.mlir",
    "examples/layernorm.mlir",
    "examples/dp_mlp.mlir",
]

T = "tensor<4x8xf32, #s0>"
HEAD = f"""#s0 = #multi.shard<["CPU:0", "CPU:1"], axis = 0>
module attributes {{multi.devices = ["CPU:0", "CPU:1"]}} {{
  func.func @main(%x: {T}, %y: tensor<4x4xf32, #s0>) -> {T} {{
    %a = arith.mulf %x, %x : {T}
    %b = arith.addf %a, %x : {T}
"""
TAIL = f"""    func.return %b : {T}
  }}
}}
"""
LINES = {
    "plain": f"    %c = arith.subf %b, %a : {T}\n",
    "duplicate name": f"    %a = arith.subf %b, %a : {T}\n",
    "undefined operand": f"    %c = arith.subf %b, %nope : {T}\n",
    "forward reference": f"    %c = arith.subf %b, %e : {T}\n    %e = arith.addf %a, %a : {T}\n",
    "operand of another type": f"    %c = arith.subf %b, %y : {T}\n",
    "location after": f'    %c = arith.subf %b, %a : {T}\n        loc("here.py":3:4)\n',
    "location on the line": f'    %c = arith.subf %b, %a : {T} loc("f":1:1)\n',
    "attributes": f"    %c = arith.subf %b, %a {{x = 1}} : {T}\n",
    "fastmath": f"    %c = arith.subf %b, %a fastmath<fast> : {T}\n",
    "other type text": "    %c = arith.subf %b, %a : tensor<4x8xf32,#s0>\n",
    "tuple operand": f"    %c = arith.subf %b#0, %a : {T}\n",
    "integer op on floats": f"    %c = arith.addi %b, %a : {T}\n    %d = arith.addi %b, %a : {T}\n",
    "comment": f"    %c = arith.subf %b, %a : {T} // %a again\n",
    "two ops on a line": f"    %c = arith.subf %b, %a : {T} %d = arith.addf %c, %a : {T}\n",
    "type on the next line": f"    %c = arith.subf %b, %a :\n      {T}\n",
    "reduce": f"    %c = tg.reduce add %b [1] : {T} -> tensor<4x1xf32, #s0>\n",
    "reduce of another type": f"    %c = tg.reduce add %b [1] : {T} -> tensor<4x1xf32, #s0>\n"
    f"    %d = tg.reduce add %y [1] : {T} -> tensor<4x1xf32, #s0>\n",
    "reduce over a bad axis": f"    %c = tg.reduce add %b [5] : {T} -> tensor<4x1xf32, #s0>\n",
    "expand": "    %s = tg.reduce add %b [1] : tensor<4x8xf32, #s0> -> tensor<4x1xf32, #s0>\n"
    f"    %c = tg.expand %s : tensor<4x1xf32, #s0> -> {T}\n",
    "constant": f"    %c = arith.constant dense<1.5> : {T}\n",
    "same operand twice": f"    %c = arith.mulf %b, %b : {T}\n",
}


def outcome(text: str) -> str:
    try:
        module = parse_module(make_context(), text, "in.mlir")
    except CompileError as e:
        return f"error {e} at {e.pos}"
    out = io.StringIO()
    Printer(stream=out, print_debuginfo=True).print_op(module)
    return out.getvalue()


def full_parse_outcome(text: str, monkeypatch: pytest.MonkeyPatch) -> str:
    with monkeypatch.context() as m:
        m.setattr(MultiParser, "parse_operation", Parser.parse_operation)
        return outcome(text)


@pytest.mark.parametrize("path", PROGRAMS)
def test_programs_parse_as_in_full(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (ROOT / path).read_text()
    assert outcome(text) == full_parse_outcome(text, monkeypatch)


@pytest.mark.parametrize("name", LINES)
def test_lines_parse_and_fail_as_in_full(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # each line twice: the second sees the op and type text the first taught the fast path
    again = LINES[name].replace("%c =", "%c2 =").replace("%d =", "%d2 =").replace("%s =", "%s2 =")
    text = HEAD + LINES[name] + again.replace("%s [1]", "%s2 [1]").replace("%s :", "%s2 :") + TAIL
    assert outcome(text) == full_parse_outcome(text, monkeypatch)


def test_a_chain_is_made_again_not_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    """C1: all but the first of each kind of line (and the function) are made again."""
    made: list[str] = []
    again = MultiParser._made_again  # pyright: ignore[reportPrivateUsage]

    def counting(self, head, uses, end, form):  # type: ignore[no-untyped-def]
        op = again(self, head, uses, end, form)
        if op is not None:
            made.append(op.name)
        return op

    monkeypatch.setattr(MultiParser, "_made_again", counting)
    parse_module(make_context(), (ROOT / "bench/programs/c1_chain.mlir").read_text(), "c1")
    assert len(made) > 340, len(made)
    assert {"tg.reduce", "tg.expand", "arith.mulf", "arith.maximumf"} <= set(made)

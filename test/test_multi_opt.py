"""multi-opt's handling of failing passes: exit codes and messages (docs/decisions.md).

The lit tests in test/lit/tools/ cover what can be triggered from the command line; the
passes here fail on purpose, so they are registered in-process on a MultiOptMain subclass.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects import arith, builtin
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.utils.exceptions import PassFailedException

from xdsl_multi.tools.multi_opt import MultiOptMain, run_multi_opt


class _DivideByZeroOnAddf(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AddfOp, rewriter: PatternRewriter) -> None:
        raise ZeroDivisionError("division by zero")


@dataclass(frozen=True)
class CrashPass(ModulePass):
    """A pass with a bug: a Python exception escapes a rewrite pattern."""

    name = "test-crash"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PatternRewriteWalker(_DivideByZeroOnAddf()).rewrite_module(op)


@dataclass(frozen=True)
class RejectAddfPass(ModulePass):
    """A pass that rejects its input the documented way, naming the op."""

    name = "test-reject"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for inner in op.walk():
            if isinstance(inner, arith.AddfOp):
                message = "addf is not supported"
                inner.emit_error(message, PassFailedException(message))


@dataclass(frozen=True)
class RejectWithoutOpPass(ModulePass):
    name = "test-reject-module"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        raise PassFailedException("nothing to do here")


@dataclass(frozen=True)
class BreakIRPass(ModulePass):
    """A pass with a bug: it leaves IR that does not verify (an f64 operand of an f32 addf)."""

    name = "test-break-ir"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for inner in op.walk():
            if isinstance(inner, arith.AddfOp):
                f64_arg = next(a for a in inner.parent_block().args if a.type == builtin.f64)  # type: ignore[union-attr]
                inner.operands[1] = f64_arg


@dataclass(frozen=True)
class UnlistDevicesPass(ModulePass):
    """A pass with a bug: it sets a `multi.devices` that leaves out a device the module uses."""

    name = "test-unlist-devices"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        op.attributes["multi.devices"] = builtin.ArrayAttr([builtin.StringAttr("CPU:9")])


class _TestMain(MultiOptMain):
    def register_all_passes(self) -> None:
        super().register_all_passes()
        passes = (CrashPass, RejectAddfPass, RejectWithoutOpPass, BreakIRPass, UnlistDevicesPass)
        for pass_class in passes:
            self.register_pass(pass_class.name, lambda c=pass_class: c)


PROGRAM = """\
func.func @f(%a: f32, %b: f64) -> f32 {
  %0 = arith.addf %a, %a : f32
  func.return %0 : f32
}
"""


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "prog.mlir"
    path.write_text(PROGRAM)
    return path


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run_multi_opt(list(args), main_class=_TestMain)
    out, err = capsys.readouterr()
    return code, out, err


def test_exception_in_pass_is_internal_error_at_op(capsys, program: Path) -> None:
    code, out, err = _run(capsys, str(program), "-p", "test-crash")
    assert code == 2
    assert out == ""
    first = err.splitlines()[0]
    assert first == (
        f"{program}:2:3: error: internal error in pass 'test-crash': "
        "ZeroDivisionError: division by zero"
    )
    assert "Traceback" not in err
    assert "--show-traceback" in err


def test_show_traceback(capsys, program: Path) -> None:
    code, _, err = _run(capsys, str(program), "-p", "test-crash", "--show-traceback")
    assert code == 2
    assert "Traceback (most recent call last)" in err
    assert "ZeroDivisionError" in err


def test_pass_failed_exception_is_user_error_at_op(capsys, program: Path) -> None:
    code, out, err = _run(capsys, str(program), "-p", "test-reject")
    assert code == 1
    assert out == ""
    assert err.splitlines() == [
        f"{program}:2:3: error: pass 'test-reject' failed: addf is not supported",
        "  %0 = arith.addf %a, %a : f32",
        "  ^",
    ]


def test_pass_failed_exception_without_op(capsys, program: Path) -> None:
    code, _, err = _run(capsys, str(program), "-p", "test-reject-module")
    assert code == 1
    assert err == "multi-opt: error: pass 'test-reject-module' failed: nothing to do here\n"


def test_invalid_ir_after_pass_names_the_pass(capsys, program: Path) -> None:
    code, _, err = _run(capsys, str(program), "-p", "test-break-ir")
    assert code == 2
    assert err.splitlines()[0].startswith(
        f"{program}:2:3: error: pass 'test-break-ir' produced invalid IR: arith.addf: "
    )


def test_module_level_rules_are_checked_after_each_pass(capsys, tmp_path: Path) -> None:
    """SPEC §1's `multi.devices` rule is part of the verification after a pass too."""
    path = tmp_path / "placed.mlir"
    path.write_text('func.func @f(%a: tensor<4xf32, #multi.on<["CPU:0"]>>) {\n  func.return\n}\n')
    code, _, err = _run(capsys, str(path), "-p", "test-unlist-devices")
    assert code == 2
    assert err.splitlines()[0] == (
        f"{path}:1:14: error: pass 'test-unlist-devices' produced invalid IR: func.func @f: "
        'argument 0 (%a): tensor<4xf32, #multi.on<["CPU:0"]>> uses device "CPU:0", which the '
        """module's multi.devices ["CPU:9"] does not list"""
    )


def test_verify_diagnostics_reports_pass_failure_inline(capsys, tmp_path: Path) -> None:
    """A pass's rejection is a diagnostic like any other: met by an expected-error, exit 0."""
    path = tmp_path / "expected.mlir"
    path.write_text(
        PROGRAM.replace(": f32\n", ": f32 // expected-error {{addf is not supported}}\n", 1)
    )
    code, out, err = _run(capsys, str(path), "-p", "test-reject", "--verify-diagnostics")
    assert code == 0
    assert f"{path}:2:3: error: pass 'test-reject' failed" in out
    assert err == ""


def test_verify_diagnostics_fails_on_an_unexpected_pass_failure(capsys, program: Path) -> None:
    code, _, err = _run(capsys, str(program), "-p", "test-reject", "--verify-diagnostics")
    assert code == 1
    assert err.startswith(
        f"{program}:2:3: error: unexpected error: pass 'test-reject' failed: addf is not supported"
    )


def test_verify_diagnostics_does_not_hide_internal_errors(capsys, program: Path) -> None:
    code, _, err = _run(capsys, str(program), "-p", "test-crash", "--verify-diagnostics")
    assert code == 2
    assert "internal error in pass 'test-crash'" in err


def test_no_output_file_when_a_pass_fails(capsys, program: Path, tmp_path: Path) -> None:
    target = tmp_path / "out.mlir"
    code, _, _ = _run(capsys, str(program), "-p", "test-crash", "-o", str(target))
    assert code == 2
    assert not target.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["prog.mlir"]


def test_output_file_replaced_atomically_keeps_mode(capsys, program: Path, tmp_path: Path) -> None:
    target = tmp_path / "out.mlir"
    target.write_text("old")
    target.chmod(0o640)
    code, out, _ = _run(capsys, str(program), "-o", str(target))
    assert code == 0
    assert out == ""
    assert "arith.addf" in target.read_text()
    assert target.stat().st_mode & 0o777 == 0o640


def test_splat_literals_parse_to_what_xdsl_parses() -> None:
    """multi-opt's parser stores a splat dense literal as its one packed element (xDSL packs
    every element of it: dialects/splat.py); expanded, the attribute is the one xDSL's own
    parser makes, for every element kind, it prints as xDSL's does, and non-splat literals are
    xDSL's own parse (hex float elements aside: below)."""
    from xdsl.dialects.test import Test
    from xdsl.parser import Parser

    from xdsl_multi.diagnostics import LocatingParser
    from xdsl_multi.dialects import make_context
    from xdsl_multi.dialects.splat import expanded

    text = (
        'builtin.module { "test.op"() {a = dense<[1.0, 2.0]> : tensor<2xf32>, '
        "b = dense<-3> : tensor<2x2xi8>, c = dense<true> : tensor<3xi1>, "
        'd = dense<"0x0000803F"> : tensor<2xf32>, e = dense<> : tensor<0xf32>, '
        "f = dense<1.5> : tensor<2xbf16>, h = dense<7> : tensor<2xindex>, "
        "i = dense<-0.0> : tensor<3xf64>, j = dense<0xFF> : tensor<2xi32>, "
        "k = dense<255> : tensor<4xui8>} : () -> () }"
    )
    ctx = make_context()
    ctx.load_dialect(Test)
    ours = list(LocatingParser(ctx, text, "t.mlir").parse_module().walk())[1]
    theirs = list(Parser(ctx, text).parse_module().walk())[1]
    assert {k: expanded(v) for k, v in ours.attributes.items()} == theirs.attributes
    assert [str(v) for v in ours.attributes.values()] == [
        str(v) for v in theirs.attributes.values()
    ]


HEX_FLOATS = [
    # (element type, bit patterns: -inf, +inf, NaN, -0.0, 1.0), MLIR's reading of `0x...`
    ("f16", "e", [0xFC00, 0x7C00, 0x7E00, 0x8000, 0x3C00]),
    ("bf16", None, [0xFF80, 0x7F80, 0x7FC0, 0x8000, 0x3F80]),
    ("f32", "f", [0xFF800000, 0x7F800000, 0x7FC00000, 0x80000000, 0x3F800000]),
    ("f64", "d", [0xFFF0 << 48, 0x7FF0 << 48, 0x7FF8 << 48, 1 << 63, 0x3FF0 << 48]),
]


@pytest.mark.parametrize("element, code, bits", HEX_FLOATS, ids=[h[0] for h in HEX_FLOATS])
def test_hex_float_dense_literals_are_bit_patterns(element: str, code: str | None, bits) -> None:
    """SPEC §6: a hexadecimal element of a float dense literal is its bits (MLIR), in a list
    and in a splat, and the printed module parses back to the same bits."""
    import struct

    from xdsl.printer import Printer

    from xdsl_multi.diagnostics import parse_module
    from xdsl_multi.dialects import make_context
    from xdsl_multi.dialects.parsing import parse_mlir
    from xdsl_multi.dialects.splat import expanded

    width = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8}[element]
    listed = ", ".join(hex(b) for b in bits)
    text = (
        f"%l = arith.constant dense<[{listed}]> : tensor<{len(bits)}x{element}>\n"
        f"%s = arith.constant dense<{hex(bits[0])}> : tensor<3x{element}>\n"
    )
    want_list = b"".join(b.to_bytes(width, "little") for b in bits)
    want_splat = bits[0].to_bytes(width, "little") * 3
    for module in (parse_mlir(make_context(), text), parse_module(make_context(), text, "t")):
        ops = list(module.ops)
        assert ops[0].value.data.data == want_list
        assert expanded(ops[1].value).data.data == want_splat  # stored compact: splat.py
        printed = StringIO()
        Printer(stream=printed).print_op(module)
        again = list(parse_mlir(make_context(), printed.getvalue()).ops)
        assert again[0].value.data.data == want_list, printed.getvalue()
        assert expanded(again[1].value).data.data == want_splat
    if code is not None:  # the bits mean -inf, +inf, NaN, -0.0, 1.0
        values = struct.unpack(f"<{len(bits)}{code}", want_list)
        assert values[0] == -math.inf and values[1] == math.inf and math.isnan(values[2])
        assert values[3] == 0.0 and math.copysign(1.0, values[3]) == -1.0 and values[4] == 1.0


@pytest.mark.parametrize(
    "literal, message",
    [
        (
            "dense<-0x3F800000> : tensor<2xf32>",
            "hexadecimal float literal should not have a leading minus",
        ),
        (
            "dense<[0x1, 0x1FFFF]> : tensor<2xf16>",
            "hexadecimal float constant 0x1FFFF out of range for type f16",
        ),
    ],
)
def test_bad_hex_float_literal_is_a_located_diagnostic(literal: str, message: str) -> None:
    from xdsl_multi.diagnostics import CompileError, parse_module
    from xdsl_multi.dialects import make_context

    with pytest.raises(CompileError) as info:
        parse_module(make_context(), f"%c = arith.constant {literal}\n", "t.mlir")
    assert info.value.message == message
    assert info.value.pos is not None and info.value.pos.line == 1


def test_version_names_xdsl_multi_and_xdsl(capsys) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as info:
        run_multi_opt(["--version"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert (
        out == f"multi-opt {version('xdsl-multi')} (xdsl-multi), built on xdsl {version('xdsl')}\n"
    )


@pytest.mark.parametrize(
    "tool, args, option",
    [
        ("multi-opt", ["--verify-diag"], "--verify-diag"),
        ("multi-opt", ["--split-input"], "--split-input"),
        ("multi-run", ["--random-input"], "--random-input"),
        ("multi-run", ["--show-shard"], "--show-shard"),
    ],
)
def test_abbreviated_options_are_refused(
    capsys, program: Path, tool: str, args: list[str], option: str
) -> None:
    """An option is taken by its full name only (argparse would take a prefix silently)."""
    from xdsl_multi.tools.multi_run import run_multi_run

    runner = run_multi_opt if tool == "multi-opt" else run_multi_run
    assert runner([str(program), *args]) == 1
    err = capsys.readouterr().err
    assert f"unrecognized arguments: {option} (see {tool} --help)" in err


def test_requires_python_is_what_xdsl_needs() -> None:
    """pyproject's requires-python is no lower than xdsl 0.74's (3.11)."""
    import tomllib
    from importlib.metadata import metadata

    root = Path(__file__).resolve().parent.parent
    ours = tomllib.loads((root / "pyproject.toml").read_text())["project"]["requires-python"]
    assert ours == metadata("xdsl")["Requires-Python"] == ">=3.11"

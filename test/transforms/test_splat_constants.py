"""Splat constants stay one element from parse to kernel (dialects/splat.py, issue 14).

`dense<2.0> : tensor<4096x4096xf32>` is parsed, narrowed per device, simplified, specialized
and formed into kernels without the 64 MiB that xDSL's expanded form holds; the interpreter
reads it as a broadcast view; it prints as before; the compiled program gives numpy's values
at every level, for every element type."""

from __future__ import annotations

import cProfile
import pstats
import tracemalloc
from collections.abc import Callable
from io import StringIO
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp
from xdsl.dialects.test import Test
from xdsl.printer import Printer

from xdsl_multi.compile_cache import module_key
from xdsl_multi.dialects import make_context
from xdsl_multi.dialects.parsing import parse_mlir
from xdsl_multi.dialects.splat import expanded, is_compact_splat, splat_value
from xdsl_multi.pipeline import lower_for_runtime
from xdsl_multi.runtime.interpreter.interpreter import run_module
from xdsl_multi.runtime.program import Program

W1 = Path(__file__).parents[2] / "bench" / "programs" / "w1_elementwise.mlir"

S0 = '#multi.shard<["CPU:0", "CPU:1"], axis = 0>'


def parse(text: str) -> ModuleOp:
    return parse_mlir(make_context(), text)


def printed(module: ModuleOp) -> str:
    out = StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


def dense_constants(module: ModuleOp) -> list[DenseIntOrFPElementsAttr]:
    return [
        op.value
        for op in module.walk()
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, DenseIntOrFPElementsAttr)
    ]


def splat_program(element: str, literal: str) -> str:
    """A program on 2 devices that adds (or, for i1, selects with) a sharded splat of
    `element`, returns the splat itself and reduces it along the unsharded axis."""
    x = f"tensor<8x6x{element}, {S0}>"
    c = f"tensor<8x6x{element}, {S0}>"
    r = f"tensor<8x1x{element}, {S0}>"
    if element == "i1":
        x = f"tensor<8x6xf32, {S0}>"
        body = (
            f"    %c = arith.constant dense<{literal}> : {c}\n"
            f"    %z = arith.constant dense<0.0> : {x}\n"
            f"    %y = tg.where %c, %x, %z : {c}, {x}\n"
            f"    %r = tg.reduce max %c [1] : {c} -> {r}\n"
        )
    else:
        add = "arith.addi" if element.startswith("i") else "arith.addf"
        body = (
            f"    %c = arith.constant dense<{literal}> : {c}\n"
            f"    %y = {add} %x, %c : {c}\n"
            f"    %r = tg.reduce add %c [1] : {c} -> {r}\n"
        )
    return (
        f"#s0 = {S0}\n"
        'module attributes {multi.devices = ["CPU:0", "CPU:1"]} {\n'
        f"  func.func @main(%x: {x}) -> ({x}, {c}, {r}) {{\n{body}"
        f"    func.return %y, %c, %r : {x}, {c}, {r}\n  }}\n}}\n"
    )


SPLATS = [
    # (element type, literal, numpy dtype of the constant, its value)
    ("f32", "2.5", np.float32, 2.5),
    ("f64", "-0.75", np.float64, -0.75),
    ("i32", "-7", np.int32, -7),
    ("i1", "true", np.bool_, True),
    ("bf16", "1.5", np.float32, 1.5),  # bf16 arrays are float32 (SPEC §6)
]


def expected(element: str, x: np.ndarray, value: object, dtype: type) -> list[np.ndarray]:
    c = np.full((8, 6), value, dtype)
    if element == "i1":
        return [np.where(c, x, np.float32(0)), c, c.max(axis=1, keepdims=True)]
    return [x + c, c, c.sum(axis=1, keepdims=True, dtype=dtype)]


@pytest.mark.parametrize("mode", ["specialized", "spmd"])
@pytest.mark.parametrize(
    ("element", "literal", "dtype", "value"), SPLATS, ids=[s[0] for s in SPLATS]
)
def test_splats_stay_compact_and_give_numpys_values_at_every_level(
    element: str, literal: str, dtype: type, value: object, mode: str
) -> None:
    """At the multi level and after each pass to the kernel level, every splat constant is one
    element and the interpreter gives numpy's values; the compiled program gives them too."""
    text = splat_program(element, literal)
    x_dtype = np.float32 if element in ("i1", "bf16") else dtype
    x = (np.arange(48).reshape(8, 6) % 5 - 2).astype(x_dtype)
    want = expected(element, x, value, dtype)
    module = parse(text)
    levels: list[str] = ["multi"]

    def check(level: str) -> None:
        constants = dense_constants(module)
        assert constants or level == "form-kernels", level  # kernels hold the splat's scalar
        assert all(is_compact_splat(c) for c in constants), (level, constants)
        for got, w in zip(run_module(module, [x]), want, strict=True):
            np.testing.assert_array_equal(np.asarray(got), w, err_msg=level)

    def each_pass(name: str, apply: Callable[[], None]) -> None:
        if "convert-to-llvm" not in levels:  # the interpreter runs every level to kernels
            check(levels[-1])
        apply()
        levels.append(name.split("{")[0])

    lower_for_runtime(module, each_pass, spmd=mode == "spmd")
    assert "form-kernels" in levels
    with Program(module) as program:
        got = program([x])
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


def test_w1_parses_and_forms_kernels_without_the_splats_bytes() -> None:
    """W1's four 4096x4096 f32 splats (64 MiB each when expanded) take less than a 16th of
    one of them from parse through form-kernels (about 0.4 MiB in all), and its program key (module_key) is cheap and
    tells splats of other values and types apart."""
    text = W1.read_text()

    def to_kernels(name: str, apply: Callable[[], None]) -> None:
        if "llvm" not in name:
            apply()

    small = parse(text.replace("4096x4096", "8x8"))  # imports every pass before measuring
    module_key(small)
    lower_for_runtime(small, to_kernels)
    tracemalloc.start()
    try:
        module = parse(text)
        key = module_key(module)
        lower_for_runtime(module, to_kernels)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20, f"peak {peak / 2**20:.1f} MiB"
    others = [
        text.replace("dense<2.0>", "dense<2.5>"),
        text.replace("dense<0.0>", "dense<-0.0>"),
        text.replace("xf32", "xf64"),
    ]
    keys = {key, *(module_key(parse(t)) for t in others)}
    assert len(keys) == 4
    assert module_key(parse(text)) == key


@pytest.mark.parametrize(
    ("literal", "type_text", "value"),
    [
        ("2.000000e+00", "tensor<4096x4096xf32>", 2.0),
        ("-0.000000e+00", "tensor<3x5xf64>", -0.0),
        ("-7", "tensor<1024x4xi32>", -7),
        ("true", "tensor<9xi1>", -1),
        ("0xff80", "tensor<2x2xbf16>", float("-inf")),
        ("-3", "tensor<16x16xindex>", -3),
        ("7", "tensor<4xi8>", 7),
    ],
)
def test_splat_literals_round_trip_as_one_element(
    literal: str, type_text: str, value: object
) -> None:
    """A splat literal of any element type is stored as one element, reads back its value,
    prints exactly as the expanded attribute prints, and parses back to the same attribute."""
    text = f'"test.op"() {{v = dense<{literal}> : {type_text}}} : () -> ()'
    ctx = make_context()
    ctx.load_dialect(Test)
    from_text = parse_mlir(ctx, f"builtin.module {{ {text} }}")
    (attr,) = (op.attributes["v"] for op in from_text.walk() if "v" in op.attributes)
    assert isinstance(attr, DenseIntOrFPElementsAttr)
    assert len(attr.data.data) == attr.get_element_type().compile_time_size
    assert splat_value(attr) == value
    assert str(attr) == str(expanded(attr)) == f"dense<{literal}> : {type_text}"
    again = parse_mlir(ctx, printed(from_text))
    (back,) = (op.attributes["v"] for op in again.walk() if "v" in op.attributes)
    assert back == attr


def test_dense_literal_types_are_checked_without_building_constraints() -> None:
    """A dense literal's type is checked by `isinstance`: xDSL builds an irdl constraint
    (`base(RankedStructure[...])`, about 150 `irdl_to_attr_constraint` calls) for each
    literal, most of W1's parse once its splats were compact."""
    text = W1.read_text()
    ctx = make_context()
    parse_mlir(ctx, text)
    profile = cProfile.Profile()
    profile.enable()
    parse_mlir(ctx, text)
    profile.disable()
    calls = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    built = sum(v[1] for (_, _, name), v in calls.items() if name == "irdl_to_attr_constraint")
    assert built == 0

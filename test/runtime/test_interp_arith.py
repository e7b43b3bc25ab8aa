"""arith on tensors and scalars against numpy and Python integers.

Expected values are written from the definitions (two's complement wrapping, C division, IEEE
rules), element by element in Python where that is clearest; never from the interpreter's code.
"""

from __future__ import annotations

import math
import operator

import numpy as np
import pytest
from interp_ir import binary, func, module, parse, rng, run1, unary

from xdsl_multi.runtime.interpreter.interpreter import run_module

INT_DTYPES = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64}
FLOAT_DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64}


def wrap(v: int, w: int) -> int:
    """v modulo 2**w as a signed w-bit integer."""
    v &= (1 << w) - 1
    return v - (1 << w) if v >= 1 << (w - 1) else v


def bf16(x: np.ndarray) -> np.ndarray:
    """Round to bf16 (8 significant bits, ties to even) by frexp/ldexp in float64."""
    x = np.asarray(x, np.float64)
    m, e = np.frexp(x)
    return np.ldexp(np.rint(m * 256.0) / 256.0, e).astype(np.float32)


def int_inputs(dtype: type, n: int = 48, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    info = np.iinfo(dtype)
    special = np.array([0, 1, -1, info.min, info.max, info.min + 1, 7, -7, 3, -3], dtype)
    r = rng(seed)
    a = np.concatenate([special, r.integers(info.min, info.max, n, endpoint=True, dtype=dtype)])
    b = np.concatenate(
        [special[::-1], r.integers(info.min, info.max, n, endpoint=True, dtype=dtype)]
    )
    return a, b


def per_element(fn, a: np.ndarray, b: np.ndarray, dtype: type) -> np.ndarray:
    return np.array([fn(int(x), int(y)) for x, y in zip(a, b, strict=True)], dtype)


# ---------------------------------------------------------------------------------------------
# Floats
# ---------------------------------------------------------------------------------------------

FLOAT_BINARY = {
    "arith.addf": operator.add,
    "arith.subf": operator.sub,
    "arith.mulf": operator.mul,
    "arith.divf": operator.truediv,
}


@pytest.mark.parametrize("op", sorted(FLOAT_BINARY))
@pytest.mark.parametrize("elem", sorted(FLOAT_DTYPES))
def test_float_binary_on_tensors(op: str, elem: str) -> None:
    dtype = FLOAT_DTYPES[elem]
    a = rng(1).standard_normal((3, 5)).astype(dtype)
    b = rng(2).standard_normal((3, 5)).astype(dtype)
    got = run1(module(binary(op, f"tensor<3x5x{elem}>")), a, b)
    assert got.dtype == dtype
    want = FLOAT_BINARY[op](a, b)  # numpy computes in the dtype and rounds once
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("op", sorted(FLOAT_BINARY))
def test_float_binary_bf16_rounds_every_result(op: str) -> None:
    a = bf16(rng(3).standard_normal(64))
    b = bf16(rng(4).standard_normal(64))
    got = run1(module(binary(op, "tensor<64xbf16>")), a, b)
    want = bf16(FLOAT_BINARY[op](a.astype(np.float64), b.astype(np.float64)))
    np.testing.assert_array_equal(got, want)


def test_bf16_rounding_ties_to_even() -> None:
    # 1 + 2**-8 lies halfway between 1 and 1 + 2**-7: even is 1. 1 + 3 * 2**-8 lies halfway
    # between 1 + 2**-7 (odd) and 1 + 2**-6 (even).
    a = np.array([1.0, 1.0, 1.0, 0.0], np.float32)
    b = np.array([2**-8, 3 * 2**-8, 2**-7 + 2**-9, 0.0], np.float32)
    got = run1(module(binary("arith.addf", "tensor<4xbf16>")), a, b)
    np.testing.assert_array_equal(got, [1.0, 1.015625, 1.0078125, 0.0])


def test_bf16_input_is_rounded() -> None:
    x = np.array([1.00390625, 3.14159], np.float32)
    got = run1(module(unary("arith.negf", "tensor<2xbf16>")), x)
    np.testing.assert_array_equal(got, -bf16(x))


@pytest.mark.parametrize("elem", sorted(FLOAT_DTYPES))
def test_float_binary_on_scalars(elem: str) -> None:
    dtype = FLOAT_DTYPES[elem]
    m = parse(module(binary("arith.subf", elem)))
    (got,) = run_module(m, [dtype(1.5), dtype(0.25)])
    assert got.shape == () and got.dtype == dtype and got == dtype(1.25)


def test_max_min_nan_and_signed_zero() -> None:
    nan = np.nan
    a = np.array([1.0, nan, 2.0, -0.0, 0.0, -3.0], np.float32)
    b = np.array([2.0, 1.0, nan, 0.0, -0.0, -4.0], np.float32)
    ty = "tensor<6xf32>"
    cases = {
        "arith.maximumf": (
            [2.0, nan, nan, 0.0, 0.0, -3.0],
            [False, False, False, False, False, False],
        ),
        "arith.minimumf": (
            [1.0, nan, nan, -0.0, -0.0, -4.0],
            [False, False, False, True, True, False],
        ),
        "arith.maxnumf": ([2.0, 1.0, 2.0, 0.0, 0.0, -3.0], [False] * 6),
        "arith.minnumf": (
            [1.0, 1.0, 2.0, -0.0, -0.0, -4.0],
            [False, False, False, True, True, False],
        ),
    }
    for op, (want, negative) in cases.items():
        got = run1(module(binary(op, ty)), a, b)
        np.testing.assert_array_equal(got, np.array(want, np.float32), err_msg=op)
        np.testing.assert_array_equal(np.signbit(got) & (got == 0), negative, err_msg=op)


def test_negf_and_division_by_zero() -> None:
    a = np.array([1.0, -1.0, 0.0, 2.0], np.float32)
    b = np.array([0.0, 0.0, 0.0, -0.0], np.float32)
    got = run1(module(binary("arith.divf", "tensor<4xf32>")), a, b)
    np.testing.assert_array_equal(got, [np.inf, -np.inf, np.nan, -np.inf])
    got = run1(module(unary("arith.negf", "tensor<4xf32>")), a)
    np.testing.assert_array_equal(np.signbit(got), [True, False, True, True])


# ---------------------------------------------------------------------------------------------
# Integers
# ---------------------------------------------------------------------------------------------


def _trunc_div(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


INT_SIGNED = {
    "arith.addi": lambda x, y: x + y,
    "arith.subi": lambda x, y: x - y,
    "arith.muli": lambda x, y: x * y,
    "arith.divsi": lambda x, y: 0 if y == 0 else _trunc_div(x, y),
    "arith.remsi": lambda x, y: 0 if y == 0 else x - _trunc_div(x, y) * y,
    "arith.floordivsi": lambda x, y: 0 if y == 0 else x // y,
    "arith.ceildivsi": lambda x, y: 0 if y == 0 else -((-x) // y),
    "arith.maxsi": max,
    "arith.minsi": min,
    "arith.andi": lambda x, y: x & y,
    "arith.ori": lambda x, y: x | y,
    "arith.xori": lambda x, y: x ^ y,
}


@pytest.mark.parametrize("op", sorted(INT_SIGNED))
@pytest.mark.parametrize("elem", sorted(INT_DTYPES))
def test_signed_integer_ops(op: str, elem: str) -> None:
    dtype = INT_DTYPES[elem]
    w = np.iinfo(dtype).bits
    a, b = int_inputs(dtype)
    got = run1(module(binary(op, f"tensor<{a.size}x{elem}>")), a, b)
    want = per_element(lambda x, y: wrap(INT_SIGNED[op](x, y), w), a, b, dtype)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == dtype


INT_UNSIGNED = {
    "arith.divui": lambda x, y: 0 if y == 0 else x // y,
    "arith.remui": lambda x, y: 0 if y == 0 else x % y,
    "arith.ceildivui": lambda x, y: 0 if y == 0 else -((-x) // y),
    "arith.maxui": max,
    "arith.minui": min,
}


@pytest.mark.parametrize("op", sorted(INT_UNSIGNED))
@pytest.mark.parametrize("elem", ["i8", "i32", "i64"])
def test_unsigned_integer_ops(op: str, elem: str) -> None:
    dtype = INT_DTYPES[elem]
    w = np.iinfo(dtype).bits
    a, b = int_inputs(dtype, seed=5)
    got = run1(module(binary(op, f"tensor<{a.size}x{elem}>")), a, b)
    mod = 1 << w
    want = per_element(lambda x, y: wrap(INT_UNSIGNED[op](x % mod, y % mod), w), a, b, dtype)
    np.testing.assert_array_equal(got, want)


def _shifts(x: int, s: int, w: int) -> dict[str, int]:
    s %= 1 << w  # the amount is read as unsigned
    return {
        "arith.shli": wrap(x << s, w) if s < w else 0,
        "arith.shrui": wrap((x % (1 << w)) >> s, w) if s < w else 0,
        "arith.shrsi": x >> s if s < w else (-1 if x < 0 else 0),
    }


@pytest.mark.parametrize("op", ["arith.shli", "arith.shrui", "arith.shrsi"])
@pytest.mark.parametrize("elem", ["i8", "i16", "i32", "i64"])
def test_shifts_including_out_of_range_amounts(op: str, elem: str) -> None:
    dtype = INT_DTYPES[elem]
    w = np.iinfo(dtype).bits
    a = np.array([1, -1, 5, -128, 127, 3, -77, 64, 9, -9, 1, -1], dtype)
    b = np.array([0, 1, 2, 3, w - 1, w, w + 3, -1, 1, 4, 2 * w, w - 1], dtype)
    got = run1(module(binary(op, f"tensor<12x{elem}>")), a, b)
    want = per_element(lambda x, s: _shifts(x, s, w)[op], a, b, dtype)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    "op", ["arith.addi", "arith.muli", "arith.andi", "arith.ori", "arith.xori"]
)
def test_i1_arithmetic_is_modulo_2(op: str) -> None:
    a = np.array([False, False, True, True])
    b = np.array([False, True, False, True])
    got = run1(module(binary(op, "tensor<4xi1>")), a, b)
    bits = {
        "arith.addi": operator.add,
        "arith.muli": operator.mul,
        "arith.andi": operator.and_,
        "arith.ori": operator.or_,
        "arith.xori": operator.xor,
    }[op]
    np.testing.assert_array_equal(got, [bool(bits(int(x), int(y)) % 2) for x, y in zip(a, b)])
    assert got.dtype == np.bool_


def test_index_arithmetic_on_scalars() -> None:
    body = """
    %c3 = arith.constant 3 : index
    %m = arith.muli %a, %c3 : index
    %s = arith.subi %m, %b : index
    %q = arith.divsi %s, %c3 : index
    %r = arith.remsi %s, %c3 : index
    %f = arith.floordivsi %s, %c3 : index
    %c = arith.ceildivsi %s, %c3 : index
    """
    text = module(
        func(
            [("a", "index"), ("b", "index")],
            body,
            [("q", "index"), ("r", "index"), ("f", "index"), ("c", "index")],
        )
    )
    m = parse(text)
    for a, b in [(2, 13), (5, 1), (0, 0), (-4, 2)]:
        s = 3 * a - b
        got = [int(v) for v in run_module(m, [np.int64(a), np.int64(b)])]
        assert got == [_trunc_div(s, 3), s - _trunc_div(s, 3) * 3, s // 3, -((-s) // 3)], (a, b)


# ---------------------------------------------------------------------------------------------
# Comparisons, select, constants
# ---------------------------------------------------------------------------------------------

CMPI = {
    "eq": lambda x, y, w: x == y,
    "ne": lambda x, y, w: x != y,
    "slt": lambda x, y, w: x < y,
    "sle": lambda x, y, w: x <= y,
    "sgt": lambda x, y, w: x > y,
    "sge": lambda x, y, w: x >= y,
    "ult": lambda x, y, w: x % (1 << w) < y % (1 << w),
    "ule": lambda x, y, w: x % (1 << w) <= y % (1 << w),
    "ugt": lambda x, y, w: x % (1 << w) > y % (1 << w),
    "uge": lambda x, y, w: x % (1 << w) >= y % (1 << w),
}


@pytest.mark.parametrize("pred", sorted(CMPI))
def test_cmpi_on_scalars(pred: str) -> None:
    m = parse(
        module(
            func([("a", "i8"), ("b", "i8")], f"%r = arith.cmpi {pred}, %a, %b : i8", [("r", "i1")])
        )
    )
    for x, y in [(1, 2), (2, 1), (-1, 1), (1, -1), (5, 5), (-128, 127)]:
        (got,) = run_module(m, [np.int8(x), np.int8(y)])
        assert got.dtype == np.bool_ and bool(got) == CMPI[pred](x, y, 8), (pred, x, y)


CMPF = [
    "false",
    "oeq",
    "ogt",
    "oge",
    "olt",
    "ole",
    "one",
    "ord",
    "ueq",
    "ugt",
    "uge",
    "ult",
    "ule",
    "une",
    "uno",
    "true",
]


@pytest.mark.parametrize("pred", CMPF)
def test_cmpf_on_scalars(pred: str) -> None:
    m = parse(
        module(
            func(
                [("a", "f32"), ("b", "f32")], f"%r = arith.cmpf {pred}, %a, %b : f32", [("r", "i1")]
            )
        )
    )
    rel = {
        "eq": operator.eq,
        "gt": operator.gt,
        "ge": operator.ge,
        "lt": operator.lt,
        "le": operator.le,
        "ne": operator.ne,
    }
    for x, y in [(1.0, 2.0), (2.0, 1.0), (3.0, 3.0), (math.nan, 1.0), (1.0, math.nan)]:
        (got,) = run_module(m, [np.float32(x), np.float32(y)])
        unordered = math.isnan(x) or math.isnan(y)
        if pred in ("false", "true"):
            want = pred == "true"
        elif pred in ("ord", "uno"):
            want = unordered == (pred == "uno")
        elif pred[0] == "o":
            want = not unordered and rel[pred[1:]](x, y)
        else:
            want = unordered or rel[pred[1:]](x, y)
        assert bool(got) == want, (pred, x, y)


def test_select_scalar_condition_on_tensors_and_scalars() -> None:
    body = """
    %r = arith.select %c, %a, %b : tensor<3xf32>
    %s = arith.select %c, %x, %y : i32
    """
    m = parse(
        module(
            func(
                [
                    ("c", "i1"),
                    ("a", "tensor<3xf32>"),
                    ("b", "tensor<3xf32>"),
                    ("x", "i32"),
                    ("y", "i32"),
                ],
                body,
                [("r", "tensor<3xf32>"), ("s", "i32")],
            )
        )
    )
    a, b = np.ones(3, np.float32), np.zeros(3, np.float32)
    r, s = run_module(m, [np.bool_(True), a, b, np.int32(4), np.int32(5)])
    np.testing.assert_array_equal(r, a)
    assert s == 4
    r, s = run_module(m, [np.bool_(False), a, b, np.int32(4), np.int32(5)])
    np.testing.assert_array_equal(r, b)
    assert s == 5


def test_constants() -> None:
    body = """
    %f = arith.constant dense<1.5> : tensor<2x3xf32>
    %g = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf64>
    %i = arith.constant dense<[-1, 2, 300]> : tensor<3xi16>
    %b = arith.constant dense<[true, false]> : tensor<2xi1>
    %h = arith.constant dense<[0.1, 2.5]> : tensor<2xbf16>
    %p = arith.constant dense<[0.1, 2.5]> : tensor<2xf16>
    %x = arith.constant dense<7> : tensor<2xindex>
    %s = arith.constant -3 : i8
    %t = arith.constant true
    %n = arith.constant 42 : index
    %y = arith.constant 2.25 : f64
    """
    results = [
        ("f", "tensor<2x3xf32>"),
        ("g", "tensor<2x3xf64>"),
        ("i", "tensor<3xi16>"),
        ("b", "tensor<2xi1>"),
        ("h", "tensor<2xbf16>"),
        ("p", "tensor<2xf16>"),
        ("x", "tensor<2xindex>"),
        ("s", "i8"),
        ("t", "i1"),
        ("n", "index"),
        ("y", "f64"),
    ]
    out = run_module(parse(module(func([], body, results))), [])
    want = [
        np.full((2, 3), 1.5, np.float32),
        np.arange(1, 7, dtype=np.float64).reshape(2, 3),
        np.array([-1, 2, 300], np.int16),
        np.array([True, False]),
        bf16(np.array([0.1, 2.5])),
        np.array([0.1, 2.5], np.float16),
        np.array([7, 7], np.int64),
        np.int8(-3),
        np.bool_(True),
        np.int64(42),
        np.float64(2.25),
    ]
    for (name, _), g, w in zip(results, out, want, strict=True):
        assert g.dtype == np.asarray(w).dtype, name
        np.testing.assert_array_equal(g, w, err_msg=name)


# ---------------------------------------------------------------------------------------------
# Conversions
# ---------------------------------------------------------------------------------------------


def _convert(op: str, src: str, dst: str, values: list[object], src_dtype: type) -> list[object]:
    m = parse(module(unary(op, src, dst)))
    return [run_module(m, [src_dtype(v)])[0][()] for v in values]


def test_integer_extensions_and_truncation() -> None:
    vals = [0, 1, -1, 127, -128, 77]
    assert _convert("arith.extsi", "i8", "i32", vals, np.int8) == vals
    assert _convert("arith.extui", "i8", "i32", vals, np.int8) == [v % 256 for v in vals]
    wide = [0, 255, 256, -129, 70000, -1]
    assert _convert("arith.trunci", "i32", "i8", wide, np.int32) == [wrap(v, 8) for v in wide]
    assert _convert("arith.trunci", "i32", "i1", [0, 1, 2, 3], np.int32) == [
        False,
        True,
        False,
        True,
    ]
    assert _convert("arith.extsi", "i1", "i32", [False, True], np.bool_) == [0, -1]
    assert _convert("arith.extui", "i1", "i32", [False, True], np.bool_) == [0, 1]
    assert _convert("arith.index_cast", "index", "i8", [300, -1], np.int64) == [44, -1]
    assert _convert("arith.index_cast", "i16", "index", [-5, 300], np.int16) == [-5, 300]


def test_int_float_conversions() -> None:
    assert _convert("arith.sitofp", "i32", "f32", [-3, 16777217], np.int32) == [-3.0, 16777216.0]
    assert _convert("arith.uitofp", "i8", "f32", [-1, 5], np.int8) == [255.0, 5.0]
    assert _convert("arith.sitofp", "i1", "f32", [True], np.bool_) == [-1.0]
    # truncation toward zero; saturation and NaN -> 0 are this interpreter's choice
    got = _convert("arith.fptosi", "f32", "i8", [2.7, -2.7, 1000.0, -1000.0, math.nan], np.float32)
    assert got == [2, -2, 127, -128, 0]
    got = _convert("arith.fptoui", "f32", "i8", [2.7, 200.0, 300.0, -5.0], np.float32)
    assert got == [2, wrap(200, 8), wrap(255, 8), 0]
    got = _convert("arith.fptosi", "f64", "i64", [1e30, -1e30, -9.0], np.float64)
    assert got == [2**63 - 1, -(2**63), -9]


def test_float_width_conversions_on_tensors() -> None:
    x = rng(6).standard_normal(16).astype(np.float32)
    got = run1(module(unary("arith.truncf", "tensor<16xf32>", "tensor<16xf16>")), x)
    np.testing.assert_array_equal(got, x.astype(np.float16))
    got = run1(module(unary("arith.truncf", "tensor<16xf32>", "tensor<16xbf16>")), x)
    np.testing.assert_array_equal(got, bf16(x))
    got = run1(module(unary("arith.extf", "tensor<16xf32>", "tensor<16xf64>")), x)
    np.testing.assert_array_equal(got, x.astype(np.float64))


def test_bitcast() -> None:
    x = np.array([1.0, -2.5, 0.0], np.float32)
    got = run1(module(unary("arith.bitcast", "tensor<3xf32>", "tensor<3xi32>")), x)
    np.testing.assert_array_equal(got, np.array([0x3F800000, -0x3FE00000, 0], np.int32))
    back = run1(module(unary("arith.bitcast", "tensor<3xi32>", "tensor<3xf32>")), got)
    np.testing.assert_array_equal(back, x)
    h = run1(module(unary("arith.bitcast", "tensor<3xbf16>", "tensor<3xi16>")), x)
    np.testing.assert_array_equal(h, np.array([0x3F80, 0xC020 - 0x10000, 0], np.int16))

"""math ops against Python's `math` module (float64, element by element) and exact integer
definitions."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pytest
from interp_ir import binary, func, module, parse, rng, run1, unary

from xdsl_multi.runtime.interpreter.interpreter import run_module


def _round_half_away(x: float) -> float:
    """Exact decimal rounding, ties away from zero (floor(x + 0.5) is wrong for 0.5 - 2**-54)."""
    return float(Decimal(x).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def _u(lo: float, hi: float, n: int = 40, seed: int = 0) -> np.ndarray:
    return rng(seed).uniform(lo, hi, n)


# op -> (reference on one float, input generator)
UNARY = {
    "math.absf": (abs, lambda: _u(-5, 5)),
    "math.acos": (math.acos, lambda: _u(-1, 1)),
    "math.acosh": (math.acosh, lambda: _u(1, 9)),
    "math.asin": (math.asin, lambda: _u(-1, 1)),
    "math.asinh": (math.asinh, lambda: _u(-9, 9)),
    "math.atan": (math.atan, lambda: _u(-9, 9)),
    "math.atanh": (math.atanh, lambda: _u(-0.99, 0.99)),
    "math.cbrt": (math.cbrt, lambda: _u(-30, 30)),
    "math.ceil": (math.ceil, lambda: _u(-5, 5)),
    "math.cos": (math.cos, lambda: _u(-7, 7)),
    "math.cosh": (math.cosh, lambda: _u(-5, 5)),
    "math.erf": (math.erf, lambda: np.concatenate([_u(-6, 6), [0.0, 2.4999, 2.5, -2.5, 30.0]])),
    "math.exp": (math.exp, lambda: _u(-10, 10)),
    "math.exp2": (lambda x: 2.0**x, lambda: _u(-10, 10)),
    "math.expm1": (math.expm1, lambda: np.concatenate([_u(-3, 3), [1e-10, -1e-12]])),
    "math.floor": (math.floor, lambda: _u(-5, 5)),
    "math.log": (math.log, lambda: _u(0.01, 100)),
    "math.log10": (math.log10, lambda: _u(0.01, 100)),
    "math.log1p": (math.log1p, lambda: np.concatenate([_u(-0.9, 5), [1e-12]])),
    "math.log2": (math.log2, lambda: _u(0.01, 100)),
    "math.round": (
        _round_half_away,
        lambda: np.array([0.5, 1.5, 2.5, -0.5, -2.5, 2.4, -2.6, 0.49999999999999994]),
    ),
    "math.roundeven": (round, lambda: np.array([0.5, 1.5, 2.5, -0.5, -2.5, 2.4, -2.6, 3.5])),
    "math.rsqrt": (lambda x: 1.0 / math.sqrt(x), lambda: _u(0.01, 100)),
    "math.sin": (math.sin, lambda: _u(-7, 7)),
    "math.sinh": (math.sinh, lambda: _u(-5, 5)),
    "math.sqrt": (math.sqrt, lambda: _u(0, 100)),
    "math.tan": (math.tan, lambda: _u(-1.5, 1.5)),
    "math.tanh": (math.tanh, lambda: _u(-5, 5)),
    "math.trunc": (math.trunc, lambda: _u(-5, 5)),
}


@pytest.mark.parametrize("op", sorted(UNARY))
@pytest.mark.parametrize("elem", ["f32", "f64"])
def test_float_unary(op: str, elem: str) -> None:
    ref, gen = UNARY[op]
    dtype = np.float32 if elem == "f32" else np.float64
    x = gen().astype(dtype)
    got = run1(module(unary(op, f"tensor<{x.size}x{elem}>")), x)
    assert got.dtype == dtype
    want = np.array([float(ref(float(v))) for v in x])
    rtol = 1e-6 if elem == "f32" else 1e-13
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * 1e-3, err_msg=op)


def test_float_unary_on_scalar_f16_and_bf16() -> None:
    m = parse(module(unary("math.exp", "f16")))
    (got,) = run_module(m, [np.float16(1.0)])
    assert got.dtype == np.float16 and got == np.float16(math.e)
    got = run1(module(unary("math.sqrt", "tensor<2xbf16>")), np.array([2.0, 9.0], np.float32))
    np.testing.assert_array_equal(got, [1.4140625, 3.0])  # sqrt(2) rounded to 8 bits


BINARY = {
    "math.atan2": (math.atan2, lambda: (_u(-3, 3, seed=1), _u(-3, 3, seed=2))),
    "math.copysign": (math.copysign, lambda: (_u(-3, 3, seed=1), np.array([-0.0, 0.0] * 20))),
    "math.powf": (math.pow, lambda: (_u(0.1, 4, seed=1), _u(-3, 3, seed=2))),
}


@pytest.mark.parametrize("op", sorted(BINARY))
def test_float_binary(op: str) -> None:
    ref, gen = BINARY[op]
    a, b = gen()
    got = run1(module(binary(op, f"tensor<{a.size}xf64>")), a, b)
    want = [ref(float(x), float(y)) for x, y in zip(a, b, strict=True)]
    np.testing.assert_allclose(got, want, rtol=1e-13)


def test_fma() -> None:
    a, b, c = (rng(s).standard_normal(20).astype(np.float32) for s in (1, 2, 3))
    text = module(
        func(
            [("a", "tensor<20xf32>"), ("b", "tensor<20xf32>"), ("c", "tensor<20xf32>")],
            "%r = math.fma %a, %b, %c : tensor<20xf32>",
            [("r", "tensor<20xf32>")],
        )
    )
    got = run1(text, a, b, c)
    want = np.array([float(x) * float(y) + float(z) for x, y, z in zip(a, b, c)], np.float32)
    np.testing.assert_array_equal(got, want)


def test_fpowi() -> None:
    text = module(
        func(
            [("a", "tensor<4xf32>"), ("b", "tensor<4xi32>")],
            "%r = math.fpowi %a, %b : tensor<4xf32>, tensor<4xi32>",
            [("r", "tensor<4xf32>")],
        )
    )
    got = run1(text, np.array([2, 3, 0.5, -2], np.float32), np.array([3, -2, 2, 3], np.int32))
    np.testing.assert_allclose(got, [8.0, 1 / 9, 0.25, -8.0], rtol=1e-7)


def _bits(v: int, w: int) -> str:
    return format(v % (1 << w), f"0{w}b")


@pytest.mark.parametrize("elem,w", [("i8", 8), ("i32", 32), ("i64", 64)])
def test_bit_counts_and_absi(elem: str, w: int) -> None:
    dtype = {8: np.int8, 32: np.int32, 64: np.int64}[w]
    info = np.iinfo(dtype)
    x = np.array([0, 1, -1, 6, info.min, info.max, 40, -40], dtype)
    ty = f"tensor<8x{elem}>"
    cases = {
        "math.ctlz": lambda v: len(_bits(v, w)) - len(_bits(v, w).lstrip("0")),
        "math.cttz": lambda v: len(_bits(v, w)) - len(_bits(v, w).rstrip("0")),
        "math.ctpop": lambda v: _bits(v, w).count("1"),
        "math.absi": lambda v: abs(v) if v != info.min else info.min,
    }
    for op, ref in cases.items():
        got = run1(module(unary(op, ty)), x)
        np.testing.assert_array_equal(got, [ref(int(v)) for v in x], err_msg=op)


def test_ipowi_wraps_and_negative_exponents() -> None:
    a = np.array([2, 3, -2, 2, 1, -1, -1, 5, 0, 7], np.int8)
    b = np.array([3, 5, 7, 9, -3, -3, -4, -1, -2, 0], np.int8)
    got = run1(module(binary("math.ipowi", "tensor<10xi8>")), a, b)

    def ref(x: int, e: int) -> int:
        if e < 0:
            return 1 if x == 1 else (-1 if e % 2 else 1) if x == -1 else 0
        v = (x**e) % 256
        return v - 256 if v >= 128 else v

    np.testing.assert_array_equal(got, [ref(int(x), int(e)) for x, e in zip(a, b)])


def test_math_on_scalar_in_a_function() -> None:
    text = module(func([("x", "f64")], "%r = math.erf %x : f64", [("r", "f64")]))
    (got,) = run_module(parse(text), [np.float64(0.5)])
    assert abs(float(got) - math.erf(0.5)) < 1e-15

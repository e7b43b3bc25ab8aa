"""tg ops on plain tensors against numpy written from their definitions (SPEC §3)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from interp_ir import func, module, parse, rng, run, run1, t

from xdsl_multi.runtime.interpreter.interpreter import InterpreterError, run_module


def one_op(line: str, args: list[tuple[str, str]], result: str) -> str:
    return module(func(args, line, [("r", result)]))


X = np.arange(24, dtype=np.float32).reshape(4, 6)


def test_reshape_permute_expand_flip() -> None:
    got = run1(
        one_op(
            "%r = tg.reshape %x : tensor<4x6xf32> -> tensor<2x12xf32>",
            [("x", t([4, 6]))],
            t([2, 12]),
        ),
        X,
    )
    np.testing.assert_array_equal(got, X.reshape(2, 12))
    y = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    got = run1(
        one_op(
            "%r = tg.permute %x [2, 0, 1] : tensor<2x3x4xi32> -> tensor<4x2x3xi32>",
            [("x", t([2, 3, 4], "i32"))],
            t([4, 2, 3], "i32"),
        ),
        y,
    )
    assert got[3, 1, 2] == y[1, 2, 3]  # result axis i is operand axis order[i]
    np.testing.assert_array_equal(got, y.transpose(2, 0, 1))
    row = np.arange(6, dtype=np.float32).reshape(1, 6)
    got = run1(
        one_op(
            "%r = tg.expand %x : tensor<1x6xf32> -> tensor<4x6xf32>", [("x", t([1, 6]))], t([4, 6])
        ),
        row,
    )
    np.testing.assert_array_equal(got, np.repeat(row, 4, axis=0))
    assert got.flags.writeable
    got = run1(one_op("%r = tg.flip %x [0, 1] : tensor<4x6xf32>", [("x", t([4, 6]))], t([4, 6])), X)
    np.testing.assert_array_equal(got, X[::-1, ::-1])


def test_shrink_static_and_dynamic() -> None:
    got = run1(
        one_op(
            "%r = tg.shrink %x [[1, 3], [2, 6]] : tensor<4x6xf32> -> tensor<2x4xf32>",
            [("x", t([4, 6]))],
            t([2, 4]),
        ),
        X,
    )
    np.testing.assert_array_equal(got, X[1:3, 2:6])
    text = one_op(
        "%r = tg.shrink %x [[%lo, %hi], [0, 6]] : tensor<4x6xf32> -> tensor<2x6xf32>",
        [("x", t([4, 6])), ("lo", "index"), ("hi", "index")],
        t([2, 6]),
    )
    m = parse(text)
    for lo in range(3):
        (got,) = run_module(m, [X, np.int64(lo), np.int64(lo + 2)])
        np.testing.assert_array_equal(got, X[lo : lo + 2])
    with pytest.raises(InterpreterError, match=r"tg.shrink.*axis 0: bounds \[3, 5\]"):
        run_module(m, [X, np.int64(3), np.int64(5)])


@pytest.mark.parametrize(
    "elem,literal,fill",
    [("f32", "2.5", 2.5), ("i32", "-7", -7), ("i1", "true", True), ("f16", "0.0", 0.0)],
)
def test_pad_with_a_value(elem: str, literal: str, fill: object) -> None:
    dtype = {"f32": np.float32, "i32": np.int32, "i1": np.bool_, "f16": np.float16}[elem]
    x = (np.arange(6).reshape(2, 3) % 2).astype(dtype)
    line = (
        f"%r = tg.pad %x [[1, 2], [0, 1]] value {literal} : {t([2, 3], elem)} -> {t([5, 4], elem)}"
    )
    got = run1(one_op(line, [("x", t([2, 3], elem))], t([5, 4], elem)), x)
    want = np.full((5, 4), fill, dtype)
    want[1:3, 0:3] = x
    np.testing.assert_array_equal(got, want)
    assert got.dtype == dtype


def test_pad_invalid_is_stored_as_zero_and_poisons() -> None:
    """Invalid padding reads back as 0, and `pad(x) + 1` is still 0 there (invalid + 1 is
    invalid), whereas a value pad gives 1 + fill."""
    body = """
    %p = tg.pad %x [[%lo, 1], [0, 0]] invalid : tensor<2x3xf32> -> tensor<5x3xf32>
    %v = tg.pad %x [[%lo, 1], [0, 0]] value 3.0 : tensor<2x3xf32> -> tensor<5x3xf32>
    %one = arith.constant dense<1.0> : tensor<5x3xf32>
    %p1 = arith.addf %p, %one : tensor<5x3xf32>
    %v1 = arith.addf %v, %one : tensor<5x3xf32>
    """
    text = module(
        func(
            [("x", t([2, 3])), ("lo", "index")],
            body,
            [("p", t([5, 3])), ("p1", t([5, 3])), ("v1", t([5, 3]))],
        )
    )
    x = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    p, p1, v1 = run(text, x, np.int64(2))
    want = np.zeros((5, 3), np.float32)
    want[2:4] = x
    np.testing.assert_array_equal(p, want)
    np.testing.assert_array_equal(p1, np.where(want != 0, want + 1, 0))
    np.testing.assert_array_equal(v1, np.where(want != 0, want + 1, 4.0))
    with pytest.raises(InterpreterError, match=r"tg.pad.*padding \[3, 1\] of 2 rows"):
        run(text, x, np.int64(3))


@pytest.mark.parametrize("kind", ["add", "mul", "max"])
@pytest.mark.parametrize("axes", [[0], [1], [0, 2], [0, 1, 2]])
def test_reduce_f32(kind: str, axes: list[int]) -> None:
    x = rng(7).standard_normal((3, 4, 5)).astype(np.float32)
    shape = [1 if i in axes else d for i, d in enumerate(x.shape)]
    line = f"%r = tg.reduce {kind} %x {axes} : {t([3, 4, 5])} -> {t(shape)}"
    got = run1(one_op(line, [("x", t([3, 4, 5]))], t(shape)), x)
    fn = {"add": np.sum, "mul": np.prod, "max": np.max}[kind]
    want = fn(x.astype(np.float64), axis=tuple(axes), keepdims=True)
    np.testing.assert_allclose(got, want, rtol=1e-5)


@pytest.mark.parametrize("kind", ["add", "mul", "max"])
def test_reduce_integers_wrap(kind: str) -> None:
    x = np.array([[100, 100, 100], [-128, -1, 5]], np.int8)
    line = f"%r = tg.reduce {kind} %x [1] : tensor<2x3xi8> -> tensor<2x1xi8>"
    got = run1(one_op(line, [("x", t([2, 3], "i8"))], t([2, 1], "i8")), x)

    def wrap(v: int) -> int:
        return (v + 128) % 256 - 128

    ref = {"add": sum, "mul": math.prod, "max": max}[kind]
    np.testing.assert_array_equal(got[:, 0], [wrap(ref(int(v) for v in row)) for row in x])


def test_reduce_i1() -> None:
    x = np.array([[True, True, False], [True, True, True], [False, False, False]])
    want = {"add": [0, 1, 0], "mul": [0, 1, 0], "max": [1, 1, 0]}  # add is parity (mod 2)
    for kind, w in want.items():
        line = f"%r = tg.reduce {kind} %x [1] : tensor<3x3xi1> -> tensor<3x1xi1>"
        got = run1(one_op(line, [("x", t([3, 3], "i1"))], t([3, 1], "i1")), x)
        np.testing.assert_array_equal(got[:, 0], np.array(w, bool), err_msg=kind)


def test_reduce_f16_accumulates_precisely() -> None:
    x = np.full((1, 4096), 1.0, np.float16)  # in f16 a running sum would stop at 2048
    line = "%r = tg.reduce add %x [1] : tensor<1x4096xf16> -> tensor<1x1xf16>"
    got = run1(one_op(line, [("x", t([1, 4096], "f16"))], t([1, 1], "f16")), x)
    assert got[0, 0] == 4096


def test_contiguous() -> None:
    got = run1(one_op("%r = tg.contiguous %x : tensor<4x6xf32>", [("x", t([4, 6]))], t([4, 6])), X)
    np.testing.assert_array_equal(got, X)


CMP = {
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "eq": np.equal,
    "ne": np.not_equal,
}


@pytest.mark.parametrize("pred", sorted(CMP))
def test_cmp_floats_ordered_except_ne(pred: str) -> None:
    nan = math.nan
    a = np.array([1.0, 2.0, 2.0, nan, 1.0, nan, -0.0], np.float32)
    b = np.array([2.0, 1.0, 2.0, 1.0, nan, nan, 0.0], np.float32)
    line = f"%r = tg.cmp {pred} %a, %b : tensor<7xf32> -> tensor<7xi1>"
    got = run1(one_op(line, [("a", t([7])), ("b", t([7]))], t([7], "i1")), a, b)
    pyop = {
        "lt": float.__lt__,
        "le": float.__le__,
        "gt": float.__gt__,
        "ge": float.__ge__,
        "eq": float.__eq__,
        "ne": float.__ne__,
    }[pred]
    np.testing.assert_array_equal(got, [pyop(float(x), float(y)) for x, y in zip(a, b)])


@pytest.mark.parametrize("pred", sorted(CMP))
def test_cmp_integers_signed(pred: str) -> None:
    a = np.array([-1, 5, 3, -128], np.int8)
    b = np.array([1, 5, -3, 127], np.int8)
    line = f"%r = tg.cmp {pred} %a, %b : tensor<4xi8> -> tensor<4xi1>"
    got = run1(one_op(line, [("a", t([4], "i8")), ("b", t([4], "i8"))], t([4], "i1")), a, b)
    np.testing.assert_array_equal(got, CMP[pred]([-1, 5, 3, -128], [1, 5, -3, 127]))


def test_where() -> None:
    c = np.array([True, False, True, False])
    a, b = np.arange(4, dtype=np.int32), -np.arange(4, dtype=np.int32)
    line = "%r = tg.where %c, %a, %b : tensor<4xi1>, tensor<4xi32>"
    got = run1(
        one_op(
            line, [("c", t([4], "i1")), ("a", t([4], "i32")), ("b", t([4], "i32"))], t([4], "i32")
        ),
        c,
        a,
        b,
    )
    np.testing.assert_array_equal(got, [0, -1, 2, -3])


CASTS = [
    # (src, dst, input, expected)  C semantics
    (
        "f32",
        "i32",
        [2.7, -2.7, 0.5, -0.5, 3e9, -3e9, math.nan],
        [2, -2, 0, 0, 2**31 - 1, -(2**31), 0],
    ),
    ("f32", "i8", [127.9, -128.9, 200.0], [127, -128, 127]),
    ("i32", "f32", [16777217, -3, 7], [16777216.0, -3.0, 7.0]),
    ("f32", "i1", [0.0, -0.0, 0.1, math.nan, -2.0], [False, False, True, True, True]),
    ("i32", "i1", [0, 1, -1, 256], [False, True, True, True]),
    ("i1", "f32", [True, False], [1.0, 0.0]),
    ("i1", "i32", [True, False], [1, 0]),
    ("i32", "i8", [300, -129, 5], [44, 127, 5]),
    ("i8", "i64", [-5, 127], [-5, 127]),
    ("f64", "f32", [1.0 + 2**-30, 0.1], [1.0, np.float32(0.1)]),
    ("f32", "bf16", [1.0 + 2**-9, 3.0], [1.0, 3.0]),
    ("f32", "f16", [65504.0, 1e6], [65504.0, math.inf]),
]


@pytest.mark.parametrize("src,dst,values,want", CASTS, ids=[f"{s}-{d}" for s, d, *_ in CASTS])
def test_cast_like_c(src: str, dst: str, values: list[object], want: list[object]) -> None:
    dtypes = {
        "f32": np.float32,
        "f64": np.float64,
        "f16": np.float16,
        "bf16": np.float32,
        "i32": np.int32,
        "i8": np.int8,
        "i64": np.int64,
        "i1": np.bool_,
    }
    n = len(values)
    line = f"%r = tg.cast %x : {t([n], src)} -> {t([n], dst)}"
    got = run1(one_op(line, [("x", t([n], src))], t([n], dst)), np.array(values, dtypes[src]))
    assert got.dtype == dtypes[dst]
    np.testing.assert_array_equal(got, np.array(want, dtypes[dst]))

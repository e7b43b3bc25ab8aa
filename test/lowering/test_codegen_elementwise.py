"""convert-to-llvm + JIT on every scalar arith and math op of the kernel contract, for every
element type: one kernel per element type (one output per op), run on arrays with special
values (NaN, infinities, signed zeros, INT_MIN, division by 0 and -1, shifts past the width)
and compared with the reference interpreter running the same ops on tensors, or, for the ops
xDSL 0.74 accepts only on scalars (comparisons, select, int/float casts), with the
interpreter's own element functions (runtime/interpreter/numerics.py)."""

from __future__ import annotations

import numpy as np
import pytest
from interp_ir import parse as parse_program
from kernel_jit import DTYPES, Snippet, aligned, aligned_copy, compile_text, elementwise, round_bf16

from xdsl_multi.lowering.jit import KernelCache
from xdsl_multi.runtime.interpreter import numerics as nx
from xdsl_multi.runtime.interpreter.interpreter import run_module

N = 64


@pytest.fixture(scope="module")
def cache() -> KernelCache:
    return KernelCache(disk=False)


# ---------------------------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------------------------


def _float_inputs(t: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    special = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 2.5, np.inf, -np.inf, np.nan, 1e-3, 0.75]
    a = np.concatenate([special, rng.normal(0, 2, N - len(special))])
    b = np.concatenate([[np.nan, 0.0, -0.0, 2.0, np.inf], rng.normal(0, 2, N - 5)])
    c = rng.uniform(-3, 3, N)
    arrays = [x.astype(DTYPES[t]) for x in (a, b, c)]
    if t == "bf16":
        arrays = [round_bf16(x) for x in arrays]
    return arrays[0], arrays[1], arrays[2]


def _int_inputs(t: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(2)
    dtype = DTYPES[t]
    if t == "i1":
        a, b, c = (rng.integers(0, 2, N).astype(bool) for _ in range(3))
        return a, b, c
    info = np.iinfo(dtype)
    width = dtype.itemsize * 8
    a_special = [0, 1, -1, 7, -7, info.min, info.max, info.min, 100 % info.max, -100 % info.min]
    b_special = [0, 0, 0, -1, 2, -1, -1, 1, 3, -3]
    a = np.concatenate([a_special, rng.integers(info.min, info.max, N - 10, endpoint=True)])
    b = np.concatenate([b_special, rng.integers(-20, 20, N - 10)])
    c = rng.integers(0, width + 4, N)  # shift amounts, some past the width
    return a.astype(dtype), b.astype(dtype), c.astype(dtype)


# ---------------------------------------------------------------------------------------------
# Snippets
# ---------------------------------------------------------------------------------------------

_FLOAT_ARITH = ["addf", "subf", "mulf", "divf", "maximumf", "minimumf", "maxnumf", "minnumf"]
_MATH_UNARY = [
    "absf", "ceil", "floor", "trunc", "round", "roundeven", "exp", "exp2", "expm1", "log",
    "log2", "log10", "log1p", "sqrt", "rsqrt", "sin", "cos", "tan", "tanh", "atan", "asin",
    "acos", "sinh", "cosh", "asinh", "acosh", "atanh", "erf", "cbrt",
]  # fmt: skip
_CMPF = ["oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule",
         "une", "uno", "false", "true"]  # fmt: skip
_CMPI = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
_INT_ARITH = [
    "addi", "subi", "muli", "divsi", "divui", "remsi", "remui", "floordivsi", "ceildivsi",
    "ceildivui", "maxsi", "minsi", "maxui", "minui", "andi", "ori", "xori",
]  # fmt: skip


def _cmpf_oracle(pred: str):
    return lambda a, b, c: nx.cmpf(pred, a, b)


def _width(t: str) -> int:
    return 1 if t == "i1" else DTYPES[t].itemsize * 8


def float_snippets(t: str) -> list[Snippet]:
    s = [Snippet(f"%r = arith.{op} %a, %b : {{T}}") for op in _FLOAT_ARITH]
    s.append(Snippet("%r = arith.negf %a : {T}"))
    s += [Snippet(f"%r = math.{op} %a : {{T}}") for op in _MATH_UNARY]
    s += [Snippet(f"%r = math.{op} %a, %b : {{T}}") for op in ("powf", "copysign", "atan2")]
    s.append(Snippet("%r = math.fma %a, %b, %c : {T}"))
    s.append(Snippet("%n = arith.constant 3 : i32\n%r = math.fpowi %a, %n : {T}, i32"))
    s += [
        Snippet(f"%r = arith.cmpf {p}, %a, %b : {{T}}", "i1", _cmpf_oracle(p), f"cmpf {p}")
        for p in _CMPF
    ]
    s.append(
        Snippet(
            "%p = arith.cmpf olt, %a, %b : {T}\n%r = arith.select %p, %a, %c : {T}",
            oracle=lambda a, b, c: np.where(a < b, a, c),
            label="select",
        )
    )
    for kind, signed in (("fptosi", True), ("fptoui", False)):
        for w in (8, 32, 64):
            s.append(
                Snippet(
                    f"%r = arith.{kind} %a : {{T}} to i{w}",
                    f"i{w}",
                    lambda a, b, c, w=w, signed=signed: nx.float_to_int(a, w, signed),
                    f"{kind} i{w}",
                )
            )
    return s


_FLOAT_CASTS: dict[str, list[Snippet]] = {
    "f32": [
        Snippet("%r = arith.extf %a : f32 to f64", "f64"),
        Snippet("%r = arith.truncf %a : f32 to f16", "f16"),
        Snippet("%r = arith.truncf %a : f32 to bf16", "bf16"),
        Snippet("%r = arith.bitcast %a : f32 to i32", "i32"),
    ],
    "f64": [
        Snippet("%r = arith.truncf %a : f64 to f32", "f32"),
        Snippet("%r = arith.truncf %a : f64 to f16", "f16"),
        Snippet("%r = arith.truncf %a : f64 to bf16", "bf16"),
        Snippet("%r = arith.bitcast %a : f64 to i64", "i64"),
    ],
    "f16": [
        Snippet("%r = arith.extf %a : f16 to f32", "f32"),
        Snippet("%r = arith.extf %a : f16 to f64", "f64"),
        Snippet("%r = arith.bitcast %a : f16 to i16", "i16"),
    ],
    "bf16": [
        Snippet("%r = arith.extf %a : bf16 to f32", "f32"),
        Snippet("%r = arith.extf %a : bf16 to f64", "f64"),
        Snippet("%r = arith.bitcast %a : bf16 to i16", "i16"),
    ],
}


def _to_float(t: str, signed: bool, width: int):
    def oracle(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
        x = (nx.as_signed if signed else nx.as_unsigned)(a, width)
        if t == "bf16":
            return round_bf16(x.astype(np.float32))
        return x.astype(DTYPES[t])

    return oracle


def _resize(dst: str, signed: bool, width: int):
    def oracle(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
        x = (nx.as_signed if signed else nx.as_unsigned)(a, width)
        return nx.wrap_int(x.astype(np.int64) if x.dtype != np.uint64 else x, _width(dst))

    return oracle


def int_snippets(t: str) -> list[Snippet]:
    w = _width(t)
    s = [Snippet(f"%r = arith.{op} %a, %b : {{T}}") for op in _INT_ARITH]
    if t != "i1":
        s += [Snippet(f"%r = arith.{op} %a, %c : {{T}}") for op in ("shli", "shrsi", "shrui")]
        s += [Snippet(f"%r = math.{op} %a : {{T}}") for op in ("absi", "ctlz", "cttz", "ctpop")]
        s += [Snippet(f"%r = math.ipowi %a, {e} : {{T}}") for e in ("%b", "%c")]
    s += [
        Snippet(
            f"%r = arith.cmpi {p}, %a, %b : {{T}}",
            "i1",
            lambda a, b, c, p=p: nx.cmpi(p, a, b, w),
            f"cmpi {p}",
        )
        for p in _CMPI
    ]
    s.append(
        Snippet(
            "%p = arith.cmpi slt, %a, %b : {T}\n%r = arith.select %p, %a, %c : {T}",
            oracle=lambda a, b, c: np.where(nx.cmpi("slt", a, b, w), a, c),
            label="select",
        )
    )
    for f in ("f32", "f64", "f16", "bf16"):
        for kind, signed in (("sitofp", True), ("uitofp", False)):
            s.append(
                Snippet(
                    f"%r = arith.{kind} %a : {{T}} to {f}",
                    f,
                    _to_float(f, signed, w),
                    f"{kind} {f}",
                )
            )
    for dst in ("i16", "i64"):
        if _width(dst) > w:
            for kind, signed in (("extsi", True), ("extui", False)):
                s.append(
                    Snippet(
                        f"%r = arith.{kind} %a : {{T}} to {dst}",
                        dst,
                        _resize(dst, signed, w),
                        f"{kind} {dst}",
                    )
                )
    if w > 8:
        s.append(
            Snippet("%r = arith.trunci %a : {T} to i8", "i8", _resize("i8", True, w), "trunci")
        )
    if t != "i1":
        s.append(
            Snippet(
                "%x = arith.index_cast %a : {T} to index\n"
                "%y = arith.muli %x, %x : index\n"
                "%r = arith.index_cast %y : index to {T}",
                oracle=lambda a, b, c: nx.wrap_int(a.astype(np.int64) * a.astype(np.int64), w),
                label="index_cast",
            )
        )
    if t == "i32":
        s.append(Snippet("%r = arith.bitcast %a : i32 to f32", "f32"))
    if t == "i16":
        s.append(Snippet("%r = arith.bitcast %a : i16 to bf16", "bf16"))
        s.append(Snippet("%r = arith.bitcast %a : i16 to f16", "f16"))
    return s


# ---------------------------------------------------------------------------------------------
# Running and comparing
# ---------------------------------------------------------------------------------------------

_INTERPRETER_ZERO_SIGN = {"math.round", "math.erf"}
"""Ops for which the interpreter gives +0.0 where C and LLVM give -0.0 (round(-0.3),
erf(-0.0)): the values are compared, not the sign of zero."""

_RTOL = {"f32": 1e-5, "f64": 1e-12, "f16": 2e-3, "bf16": 1e-2}


def _compare(label: str, got: np.ndarray, want: np.ndarray, result_type: str) -> None:
    want = np.asarray(want).astype(got.dtype) if result_type != "i1" else np.asarray(want)
    if result_type in _RTOL:
        tol = _RTOL[result_type]
        with np.errstate(invalid="ignore"):
            got64, want64 = got.astype(np.float64), want.astype(np.float64)
        np.testing.assert_allclose(
            got64,
            want64,
            rtol=tol,
            atol=tol * 1e-3,
            equal_nan=True,
            err_msg=label,
        )
        if label.split(": ")[1] in _INTERPRETER_ZERO_SIGN:
            return
        # the sign of a zero is part of the answer
        same = (got == want) & (got == 0)
        np.testing.assert_array_equal(np.signbit(got[same]), np.signbit(want[same]), label)
    else:
        np.testing.assert_array_equal(got, want, err_msg=label)


def _run(cache: KernelCache, t: str, snippets: list[Snippet], inputs: tuple[np.ndarray, ...]):
    kernel_text, program = elementwise(f"ew_{t}", N, t, snippets, {})
    kernels = compile_text(kernel_text, cache)
    result_types = [s.result.format(T=t) for s in snippets]
    outs = [aligned(N, DTYPES[r]) for r in result_types]
    a, b, c = (aligned_copy(x) for x in inputs)
    kernels[f"ew_{t}"](a, b, c, *outs)
    expected = iter(run_module(parse_program(program), list(inputs)) if program else [])
    for snippet, r, got in zip(snippets, result_types, outs):
        if snippet.oracle is None:
            want = next(expected)
        else:
            with np.errstate(all="ignore"):
                want = snippet.oracle(*inputs)
        _compare(f"{t}: {snippet.name()}", got, want, r)


@pytest.mark.parametrize("t", ["f32", "f64", "f16", "bf16"])
def test_float_ops(cache: KernelCache, t: str) -> None:
    _run(cache, t, float_snippets(t) + _FLOAT_CASTS[t], _float_inputs(t))


@pytest.mark.parametrize("t", ["i1", "i8", "i16", "i32", "i64"])
def test_integer_ops(cache: KernelCache, t: str) -> None:
    _run(cache, t, int_snippets(t), _int_inputs(t))

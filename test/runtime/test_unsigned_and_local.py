"""Unsigned integers (tg.cmp ult..uge, tg.cast unsigned, arith.divui/remui/shrui/bitcast on
tensors) and multi.local at every level (SPEC §2, §3): numpy gives the expected values, the
reference interpreter runs the multi-level program and the module after every pass (both
modes, pipeline_check), and the compiled threads backend runs it specialized and in SPMD mode.
The inputs tell signed from unsigned: -1 as u32 is 4294967295, INT_MIN as u32 is 2^31, shifts
of negative numbers, amounts >= 32, floats above 2^31 and out of the u8 range."""

from __future__ import annotations

import numpy as np
import pytest
from compiled_runs import MODES, lowered
from pipeline_check import check_program_on, compare

from xdsl_multi.runtime.program import Program

S2 = '#multi.shard<["CPU:0", "CPU:1"], axis = 0>'


def t(shape: str, enc: str = S2) -> str:
    return f"tensor<{shape}, {enc}>"


UNSIGNED = f"""
module attributes {{multi.devices = ["CPU:0", "CPU:1"]}} {{
  func.func @main(%a: {t("5xi32")}, %b: {t("5xi32")}, %f: {t("5xf32")}, %c: {t("5xi8")},
                  %g: {t("5xf64")}, %h: {t("5xf16")})
      -> ({t("5xi1")}, {t("5xi1")}, {t("5xi1")}, {t("5xi1")}, {t("5xf32")}, {t("5xi8")},
          {t("5xi32")}, {t("5xi64")}, {t("5xi32")}, {t("5xi32")}, {t("5xi32")}, {t("5xi32")},
          {t("5xi32")}, {t("5xi32")}, {t("5xi64")}, {t("5xi16")}, {t("5xf32")}) {{
    %ult = tg.cmp ult %a, %b : {t("5xi32")} -> {t("5xi1")}
    %ule = tg.cmp ule %a, %b : {t("5xi32")} -> {t("5xi1")}
    %ugt = tg.cmp ugt %a, %b : {t("5xi32")} -> {t("5xi1")}
    %uge = tg.cmp uge %a, %b : {t("5xi32")} -> {t("5xi1")}
    %u2f = tg.cast %a unsigned : {t("5xi32")} -> {t("5xf32")}
    %f2u8 = tg.cast %f unsigned : {t("5xf32")} -> {t("5xi8")}
    %f2u32 = tg.cast %f unsigned : {t("5xf32")} -> {t("5xi32")}
    %z64 = tg.cast %a unsigned : {t("5xi32")} -> {t("5xi64")}
    %z32 = tg.cast %c unsigned : {t("5xi8")} -> {t("5xi32")}
    %s32 = tg.cast %c : {t("5xi8")} -> {t("5xi32")}
    %q = arith.divui %a, %b : {t("5xi32")}
    %r = arith.remui %a, %b : {t("5xi32")}
    %sh = arith.shrui %a, %b : {t("5xi32")}
    %af = arith.bitcast %a : {t("5xi32")} to {t("5xf32")}
    %back = arith.bitcast %af : {t("5xf32")} to {t("5xi32")}
    %gi = arith.bitcast %g : {t("5xf64")} to {t("5xi64")}
    %hi = arith.bitcast %h : {t("5xf16")} to {t("5xi16")}
    %hu = tg.cast %hi unsigned : {t("5xi16")} -> {t("5xf32")}
    func.return %ult, %ule, %ugt, %uge, %u2f, %f2u8, %f2u32, %z64, %z32, %s32, %q, %r, %sh,
        %back, %gi, %hi, %hu
      : {t("5xi1")}, {t("5xi1")}, {t("5xi1")}, {t("5xi1")}, {t("5xf32")}, {t("5xi8")},
        {t("5xi32")}, {t("5xi64")}, {t("5xi32")}, {t("5xi32")}, {t("5xi32")}, {t("5xi32")},
        {t("5xi32")}, {t("5xi32")}, {t("5xi64")}, {t("5xi16")}, {t("5xf32")}
  }}
}}
"""


def unsigned_case() -> tuple[list[np.ndarray], list[np.ndarray]]:
    a = np.array([-1, -8, 7, -(2**31), 100], np.int32)
    b = np.array([3, 1, -1, 35, 0], np.int32)
    f = np.array([1.7, -2.5, 300.0, 3.0e9, np.nan], np.float32)
    c = np.array([-1, -128, 5, 127, 0], np.int8)
    g = np.array([1.0, -0.0, -2.5, np.inf, 1e300], np.float64)
    h = np.array([1.0, -0.0, -2.0, 65504.0, np.inf], np.float16)
    au, bu = a.view(np.uint32), b.view(np.uint32)
    nonzero = np.where(bu == 0, np.uint32(1), bu)

    def float_to_uint(x: np.ndarray, bits: int) -> np.ndarray:
        v = np.nan_to_num(np.clip(np.trunc(x.astype(np.float64)), 0, 2.0**bits - 1), nan=0.0)
        return v.astype(np.uint64).astype(f"uint{bits}").view(f"int{bits}")

    want = [
        au < bu, au <= bu, au > bu, au >= bu,
        au.astype(np.float32),
        float_to_uint(f, 8), float_to_uint(f, 32),
        au.astype(np.int64),
        c.view(np.uint8).astype(np.int32), c.astype(np.int32),
        np.where(bu == 0, 0, au // nonzero).astype(np.uint32).view(np.int32),
        np.where(bu == 0, 0, au % nonzero).astype(np.uint32).view(np.int32),
        np.where(bu >= 32, 0, au >> np.minimum(bu, 31)).astype(np.uint32).view(np.int32),
        a,
        g.view(np.int64), h.view(np.int16),
        h.view(np.uint16).astype(np.float32),
    ]
    # The values that tell signed from unsigned, spelled out.
    assert want[4][0] == np.float32(4294967295.0) and want[7][3] == 2**31
    assert want[12][0] == 536870911 and want[12][2] == 0 and want[5][2] == -1  # 255 as i8
    return [a, b, f, c, g, h], want


D3 = '["CPU:0", "CPU:1", "CPU:2"]'
S3 = f"#multi.shard<{D3}, axis = 0>"
ON3 = f"#multi.on<{D3}>"
S20 = '#multi.shard<["CPU:2", "CPU:0"], axis = 0>'
ON20 = '#multi.on<["CPU:2", "CPU:0"]>'

LOCAL = f"""
module attributes {{multi.devices = {D3}}} {{
  func.func @main(%x: tensor<7x2xf32, {S3}>, %k: tensor<5xi32, {S20}>)
      -> (tensor<3x2xf32, {ON3}>, tensor<1x2xf32, {ON3}>, tensor<3xf32, {ON20}>) {{
    %sq = arith.mulf %x, %x : tensor<7x2xf32, {S3}>
    %l = multi.local %sq : tensor<7x2xf32, {S3}> -> tensor<3x2xf32, {ON3}>
    %one = arith.constant dense<1.0> : tensor<3x2xf32, {ON3}>
    %y = arith.addf %l, %one : tensor<3x2xf32, {ON3}>
    %s = tg.reduce add %l [0] : tensor<3x2xf32, {ON3}> -> tensor<1x2xf32, {ON3}>
    %kl = multi.local %k : tensor<5xi32, {S20}> -> tensor<3xi32, {ON20}>
    %ku = tg.cast %kl unsigned : tensor<3xi32, {ON20}> -> tensor<3xf32, {ON20}>
    func.return %y, %s, %ku : tensor<3x2xf32, {ON3}>, tensor<1x2xf32, {ON3}>, tensor<3xf32, {ON20}>
  }}
}}
"""


def local_case() -> tuple[list[np.ndarray], list[np.ndarray]]:
    x = np.arange(14, dtype=np.float32).reshape(7, 2) - 5
    k = np.array([-1, 2, 3, -2, 9], np.int32)
    sq = x * x
    # 7 rows over 3 devices: 3-row buffers, rows 0-2, 3-5 and 6; the two rows past 7 are
    # Invalid: +1 leaves them Invalid (stored as 0), the reduce skips them.
    buffers = np.zeros((3, 3, 2), np.float32)
    valid = np.zeros((3, 3, 2), bool)
    for dev, (lo, hi) in enumerate([(0, 3), (3, 6), (6, 7)]):
        buffers[dev, : hi - lo] = sq[lo:hi]
        valid[dev, : hi - lo] = True
    y = np.where(valid, buffers + 1, 0).astype(np.float32)
    s = buffers.sum(axis=1, keepdims=True)
    # 5 rows over CPU:2, CPU:0: CPU:2 holds rows 0-2, CPU:0 rows 3-4 and one Invalid row.
    ku = np.zeros((2, 3), np.float32)
    ku[0] = k[:3].view(np.uint32)
    ku[1, :2] = k[3:].view(np.uint32)
    assert ku[0, 0] == np.float32(4294967295.0)
    return [x, k], [y, s, ku]


CASES = {"unsigned": (UNSIGNED, unsigned_case), "local": (LOCAL, local_case)}


@pytest.mark.parametrize("name", CASES)
def test_interpreter_at_every_level_matches_numpy(name: str) -> None:
    text, case = CASES[name]
    inputs, want = case()
    check_program_on(text, "naive", 0, inputs, f"\n--- {name}", want=want)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", CASES)
def test_compiled_threads_matches_numpy(name: str, mode: str) -> None:
    text, case = CASES[name]
    inputs, want = case()
    with Program(lowered(text, mode)) as program:
        got = program(inputs)
    diff = compare(got, want)
    assert diff is None, diff

"""The Invalid rules of SPEC §4, each observed on the devidx (SPMD) level.

Each test runs an SPMD program on N devices; results are `#multi.on` in the logical signature, so
every device's instance is visible (stacked). An Invalid lane that reaches a result reads as 0.
Where a rule is a rewrite, both sides are run and must agree, and the values are checked against
numpy.
"""

from __future__ import annotations

import numpy as np
from interp_ir import devs, func, module, on, rng, run, t

N = 3


def spmd(
    args: list[tuple[str, str]],
    body: str,
    results: list[tuple[str, str]],
    logical_args: list[str],
    logical_results: list[str],
    n: int = N,
) -> str:
    """An SPMD module whose logical signature is given (e.g. results on every device)."""
    names = ", ".join(f'"{d}"' for d in devs(n))
    sig = f"({', '.join(logical_args)}) -> ({', '.join(logical_results)})"
    return module(
        func(args, body, results), attrs=f"multi.devices = [{names}], multi.signature = {sig}"
    )


def everywhere(shape: list[int], elem: str = "f32", n: int = N) -> str:
    return t(shape, elem, on(n))


PRELUDE = """
%d = devidx.device_num : index
%c0 = arith.constant 0 : index
%c1 = arith.constant 1 : index
%is0 = arith.cmpi eq, %d, %c0 : index
"""


def test_rule1_invalid_poisons_elementwise_ops() -> None:
    """f(select(c, x, inv)) = select(c, f(x), inv)."""
    ty = t([4])
    lhs = (
        PRELUDE
        + f"""
    %inv = devidx.invalid : {ty}
    %s = arith.select %is0, %x, %inv : {ty}
    %one = arith.constant dense<1.0> : {ty}
    %r = arith.addf %s, %one : {ty}
    """
    )
    rhs = (
        PRELUDE
        + f"""
    %inv = devidx.invalid : {ty}
    %one = arith.constant dense<1.0> : {ty}
    %f = arith.addf %x, %one : {ty}
    %r = arith.select %is0, %f, %inv : {ty}
    """
    )
    x = np.arange(4, dtype=np.float32)
    outs = [
        run(spmd([("x", ty)], body, [("r", ty)], [ty], [everywhere([4])]), x)[0]
        for body in (lhs, rhs)
    ]
    want = np.stack([x + 1, np.zeros(4), np.zeros(4)]).astype(np.float32)  # not 1 on devices 1, 2
    for got in outs:
        np.testing.assert_array_equal(got, want)


def test_rule2_reduce_reads_invalid_as_the_identity() -> None:
    """reduce(select(c, x, inv)) = reduce(select(c, x, identity)); an all-Invalid range gives
    the identity, and the result is valid."""
    ty = t([2, 3])
    body = (
        PRELUDE
        + f"""
    %inv = devidx.invalid : {ty}
    %s = arith.select %is0, %x, %inv : {ty}
    %a = tg.reduce add %s [1] : {ty} -> {t([2, 1])}
    %m = tg.reduce mul %s [1] : {ty} -> {t([2, 1])}
    %x1 = tg.reduce max %s [1] : {ty} -> {t([2, 1])}
    %ii = devidx.invalid : {t([2, 3], "i32")}
    %im = tg.reduce max %ii [0, 1] : {t([2, 3], "i32")} -> {t([1, 1], "i32")}
    """
    )
    outs = [("a", t([2, 1])), ("m", t([2, 1])), ("x1", t([2, 1])), ("im", t([1, 1], "i32"))]
    text = spmd(
        [("x", ty)],
        body,
        outs,
        [ty],
        [everywhere([2, 1]), everywhere([2, 1]), everywhere([2, 1]), everywhere([1, 1], "i32")],
    )
    x = rng(0).uniform(1, 2, (2, 3)).astype(np.float32)
    a, m, mx, im = run(text, x)
    for got, ref, identity in ((a, np.sum, 0.0), (m, np.prod, 1.0), (mx, np.max, -np.inf)):
        np.testing.assert_allclose(got[0], ref(x, axis=1, keepdims=True), rtol=1e-6)
        np.testing.assert_array_equal(got[1:], np.full((2, 2, 1), identity, np.float32))
    np.testing.assert_array_equal(im, np.full((N, 1, 1), np.iinfo(np.int32).min))


def test_rule2_only_the_reduced_range_changes() -> None:
    """Rows padded Invalid by device-dependent bounds count as the identity in a reduction over
    them; a reduction along the other axis keeps them Invalid (stored as 0)."""
    ty = t([2, 3])
    body = (
        PRELUDE
        + f"""
    %lo = arith.muli %d, %c1 : index
    %two = arith.constant 2 : index
    %hi = arith.subi %two, %d : index
    %p = tg.pad %x [[%lo, %hi], [0, 0]] invalid : {ty} -> {t([4, 3])}
    %over = tg.reduce max %p [0] : {t([4, 3])} -> {t([1, 3])}
    %along = tg.reduce add %p [1] : {t([4, 3])} -> {t([4, 1])}
    """
    )
    text = spmd(
        [("x", ty)],
        body,
        [("over", t([1, 3])), ("along", t([4, 1]))],
        [ty],
        [everywhere([1, 3]), everywhere([4, 1])],
    )
    x = -rng(1).uniform(1, 2, (2, 3)).astype(np.float32)  # negative: padding 0 would win a max
    over, along = run(text, x)
    np.testing.assert_array_equal(over, np.stack([x.max(0, keepdims=True)] * N))
    for d in range(N):
        want = np.zeros((4, 1), np.float32)
        want[d : d + 2] = x.sum(1, keepdims=True)
        np.testing.assert_allclose(along[d], want, rtol=1e-6)


def test_rule3_stored_invalid_reads_back_as_zero() -> None:
    """After a materialization (contiguous, fetch) Invalid lanes are valid zeros: + 1 gives 1
    there; without it they stay Invalid and + 1 gives Invalid (0 in the result)."""
    ty = t([3])
    body = (
        PRELUDE
        + f"""
    %inv = devidx.invalid : {ty}
    %s = arith.select %is0, %x, %inv : {ty}
    %one = arith.constant dense<1.0> : {ty}
    %stored = tg.contiguous %s : {ty}
    %a = arith.addf %stored, %one : {ty}
    %b = arith.addf %s, %one : {ty}
    %f = devidx.fetch %s from %c1 : {ty}
    %g = arith.addf %f, %one : {ty}
    """
    )
    text = spmd([("x", ty)], body, [("a", ty), ("b", ty), ("g", ty)], [ty], [everywhere([3])] * 3)
    x = np.array([5.0, 6.0, 7.0], np.float32)
    a, b, g = run(text, x)
    np.testing.assert_array_equal(a, np.stack([x + 1, np.ones(3), np.ones(3)]))
    np.testing.assert_array_equal(b, np.stack([x + 1, np.zeros(3), np.zeros(3)]))
    np.testing.assert_array_equal(g, np.ones((N, 3)))  # device 1's instance was Invalid


def test_rule4_pad_value_fills_valid_lanes_and_pad_invalid_does_not() -> None:
    """Device d pads [d, 2 - d] rows: `value 5.0` gives valid 5s (so + 1 is 6), `invalid` gives
    Invalid (+ 1 stays Invalid, stored 0), and a bool pad `value false` fills false."""
    ty, bt = t([2]), t([2], "i1")
    body = (
        PRELUDE
        + f"""
    %c2 = arith.constant 2 : index
    %hi = arith.subi %c2, %d : index
    %pv = tg.pad %x [[%d, %hi]] value 5.0 : {ty} -> {t([4])}
    %pi = tg.pad %x [[%d, %hi]] invalid : {ty} -> {t([4])}
    %one = arith.constant dense<1.0> : {t([4])}
    %v1 = arith.addf %pv, %one : {t([4])}
    %i1 = arith.addf %pi, %one : {t([4])}
    %pb = tg.pad %b [[%d, %hi]] value false : {bt} -> {t([4], "i1")}
    """
    )
    outs = [("v1", t([4])), ("i1", t([4])), ("pb", t([4], "i1"))]
    text = spmd(
        [("x", ty), ("b", bt)],
        body,
        outs,
        [ty, bt],
        [everywhere([4]), everywhere([4]), everywhere([4], "i1")],
    )
    x = np.array([10.0, 20.0], np.float32)
    v1, i1, pb = run(text, x, np.array([True, True]))
    for d in range(N):
        rows = slice(d, d + 2)
        want_v = np.full(4, 6.0, np.float32)
        want_v[rows] = x + 1
        want_i = np.zeros(4, np.float32)
        want_i[rows] = x + 1
        want_b = np.zeros(4, bool)
        want_b[rows] = True
        np.testing.assert_array_equal(v1[d], want_v)
        np.testing.assert_array_equal(i1[d], want_i)
        np.testing.assert_array_equal(pb[d], want_b)


def test_rule5_nested_select_on_the_same_condition() -> None:
    """select(c, select(c, t, f), f2) = select(c, t, f2), with Invalid operands."""
    ty = t([2])
    common = (
        PRELUDE
        + f"""
    %inv = devidx.invalid : {ty}
    """
    )
    lhs = (
        common
        + f"""
    %in = arith.select %is0, %a, %inv : {ty}
    %r = arith.select %is0, %in, %b : {ty}
    """
    )
    rhs = common + f"%r = arith.select %is0, %a, %b : {ty}"
    a, b = np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0], np.float32)
    outs = [
        run(spmd([("a", ty), ("b", ty)], body, [("r", ty)], [ty, ty], [everywhere([2])]), a, b)[0]
        for body in (lhs, rhs)
    ]
    for got in outs:
        np.testing.assert_array_equal(got, np.stack([a, b, b]))


def test_rule6_index_of_stack() -> None:
    """index(stack(v0..vn), k) = vk for a constant k; for d it is nested selects ending in
    Invalid (devices past the stack get Invalid, stored 0)."""
    ty = t([2])
    st = t([2, 2])
    stack = f"%st = devidx.stack %a, %b : {ty}, {ty} -> {st}\n"
    by_k = PRELUDE + stack + f"%r = devidx.index %st[%c1] : {st} -> {ty}"
    by_d = PRELUDE + stack + f"%r = devidx.index %st[%d] : {st} -> {ty}"
    selects = (
        PRELUDE
        + f"""
    %inv = devidx.invalid : {ty}
    %is1 = arith.cmpi eq, %d, %c1 : index
    %inner = arith.select %is1, %b, %inv : {ty}
    %r = arith.select %is0, %a, %inner : {ty}
    """
    )
    a, b = np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0], np.float32)

    def go(body: str) -> np.ndarray:
        return run(
            spmd([("a", ty), ("b", ty)], body, [("r", ty)], [ty, ty], [everywhere([2])]), a, b
        )[0]

    np.testing.assert_array_equal(go(by_k), np.stack([b, b, b]))
    want = np.stack([a, b, np.zeros(2, np.float32)])
    np.testing.assert_array_equal(go(by_d), want)
    np.testing.assert_array_equal(go(selects), want)

"""The multi level: multi ops, every copy kind, allreduce, sharded tg/arith ops, uneven shards.

Logical arrays (SPEC §6): a shard value is its full array; a many-device `#multi.on` value has a
leading device axis; a one-device value is its buffer.
"""

from __future__ import annotations

import numpy as np
import pytest
from interp_ir import devs, func, module, on, parse, rng, run, run1, shard, t

from xdsl_multi.runtime.interpreter.interpreter import InterpreterError, InterpStats, run_module


def bounds(length: int, n: int) -> list[tuple[int, int]]:
    """Shard rows per position, written from SPEC §1."""
    s = -(-length // n)
    return [(min(k * s, length), min((k + 1) * s, length)) for k in range(n)]


def test_shard_bounds_examples_from_the_spec() -> None:
    assert [hi - lo for lo, hi in bounds(7, 3)] == [3, 3, 1]
    assert [hi - lo for lo, hi in bounds(4, 3)] == [2, 2, 0]


@pytest.mark.parametrize("n,rows", [(1, 5), (2, 8), (3, 7), (3, 4), (4, 8), (8, 3)])
def test_multi_concatenates_the_valid_rows(n: int, rows: int) -> None:
    s = -(-rows // n)
    text = module(
        func(
            [("x", t([s, 2], enc=on(n)))],
            f"%m = multi.multi %x axis 0 : {t([s, 2], enc=on(n))} -> {t([rows, 2], enc=shard(n))}",
            [("m", t([rows, 2], enc=shard(n)))],
        )
    )
    buffers = rng(n).standard_normal((n, s, 2)).astype(np.float32)
    got = run1(text, buffers if n > 1 else buffers[0])
    want = np.concatenate([buffers[k, : hi - lo] for k, (lo, hi) in enumerate(bounds(rows, n))])
    np.testing.assert_array_equal(got, want)


def test_multi_on_axis_1() -> None:
    text = module(
        func(
            [("x", t([2, 3], enc=on(3)))],
            f"%m = multi.multi %x axis 1 : {t([2, 3], enc=on(3))} -> {t([2, 7], enc=shard(3, 1))}",
            [("m", t([2, 7], enc=shard(3, 1)))],
        )
    )
    buffers = np.arange(18, dtype=np.float32).reshape(3, 2, 3)
    got = run1(text, buffers)
    np.testing.assert_array_equal(
        got, np.concatenate([buffers[0], buffers[1], buffers[2][:, :1]], 1)
    )


def test_mselect_and_mstack() -> None:
    b = t([2, 2], "i32", on(3))
    one2, one0 = t([2, 2], "i32", on(["CPU:2"])), t([2, 2], "i32", on(["CPU:0"]))
    two = t([2, 2], "i32", on(["CPU:2", "CPU:0"]))
    body = f"""
    %s = multi.mselect %x[2] : {b} -> {one2}
    %a = multi.mselect %x[0] : {b} -> {one0}
    %st = multi.mstack %s, %a : {one2}, {one0} -> {two}
    """
    text = module(func([("x", b)], body, [("s", one2), ("st", two)]))
    x = np.arange(12, dtype=np.int32).reshape(3, 2, 2)
    s, st = run(text, x)
    np.testing.assert_array_equal(s, x[2])
    np.testing.assert_array_equal(st, np.stack([x[2], x[0]]))


# ---------------------------------------------------------------------------------------------
# multi.copy: every kind
# ---------------------------------------------------------------------------------------------


def copy_module(src: str, dst: str) -> str:
    return module(func([("x", src)], f"%c = multi.copy %x : {src} -> {dst}", [("c", dst)]))


def full(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    return rng(seed).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("rows", [8, 7, 4])
def test_copy_to_one_gathers_a_shard_value(rows: int) -> None:
    x = full((rows, 3))
    got = run1(copy_module(t([rows, 3], enc=shard(3)), t([rows, 3], enc=on(["CPU:1"]))), x)
    np.testing.assert_array_equal(got, x)


def test_copy_to_one_from_one_and_from_many() -> None:
    x = full((4, 3))
    got = run1(copy_module(t([4, 3], enc=on(["CPU:0"])), t([4, 3], enc=on(["CPU:1"]))), x)
    np.testing.assert_array_equal(got, x)
    many = full((3, 4, 3))
    got = run1(copy_module(t([4, 3], enc=on(3)), t([4, 3], enc=on(["CPU:2"]))), many)
    np.testing.assert_array_equal(got, many[0])  # the FIRST buffer


def test_copy_broadcast() -> None:
    x = full((5, 2))
    got = run1(copy_module(t([5, 2], enc=shard(2)), t([5, 2], enc=on(4))), x)
    np.testing.assert_array_equal(got, np.stack([x] * 4))
    got = run1(copy_module(t([5, 2], enc=on(["CPU:3"])), t([5, 2], enc=on(3))), x)
    np.testing.assert_array_equal(got, np.stack([x] * 3))
    many = full((2, 5, 2))
    got = run1(copy_module(t([5, 2], enc=on(2)), t([5, 2], enc=on(3))), many)
    np.testing.assert_array_equal(got, np.stack([many[0]] * 3))


def test_copy_permute_moves_buffer_i_to_device_i() -> None:
    many = full((3, 2, 2))
    got = run1(
        copy_module(t([2, 2], enc=on(3)), t([2, 2], enc=on(["CPU:5", "CPU:4", "CPU:3"]))), many
    )
    np.testing.assert_array_equal(got, many)


@pytest.mark.parametrize("rows", [8, 7, 4])
def test_copy_scatter(rows: int) -> None:
    x = full((rows, 6))
    # one device -> shard
    got = run1(copy_module(t([rows, 6], enc=on(["CPU:0"])), t([rows, 6], enc=shard(3))), x)
    np.testing.assert_array_equal(got, x)
    # reshard to another axis and to other devices
    got = run1(copy_module(t([rows, 6], enc=shard(3)), t([rows, 6], enc=shard(4, 1))), x)
    np.testing.assert_array_equal(got, x)
    got = run1(
        copy_module(t([rows, 6], enc=shard(2)), t([rows, 6], enc=shard(["CPU:1", "CPU:0"]))), x
    )
    np.testing.assert_array_equal(got, x)


@pytest.mark.parametrize("rows", [8, 7, 4])
def test_copy_keep_slice_takes_each_devices_own_rows(rows: int) -> None:
    many = full((3, rows, 2))
    got = run1(copy_module(t([rows, 2], enc=on(3)), t([rows, 2], enc=shard(3))), many)
    want = np.concatenate([many[k, lo:hi] for k, (lo, hi) in enumerate(bounds(rows, 3))])
    np.testing.assert_array_equal(got, want)


def test_copy_from_on_many_to_shard_on_other_devices_scatters_the_first_buffer() -> None:
    many = full((2, 4, 2))
    got = run1(copy_module(t([4, 2], enc=on(2)), t([4, 2], enc=shard(["CPU:1", "CPU:0"]))), many)
    np.testing.assert_array_equal(got, many[0])


# ---------------------------------------------------------------------------------------------
# multi.allreduce
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3, 4, 8])
@pytest.mark.parametrize("kind", ["add", "mul", "max"])
def test_allreduce(n: int, kind: str) -> None:
    ty = t([3, 2], enc=on(n))
    text = module(func([("x", ty)], f"%r = multi.allreduce {kind} %x : {ty} -> {ty}", [("r", ty)]))
    x = rng(n).uniform(0.5, 1.5, (n, 3, 2)).astype(np.float32)
    got = run1(text, x if n > 1 else x[0])
    ref = {"add": np.sum, "mul": np.prod, "max": np.max}[kind]
    want = ref(x.astype(np.float64), axis=0)
    np.testing.assert_allclose(got, np.stack([want] * n) if n > 1 else want, rtol=1e-6)
    # integers, to other devices
    ity = t([3], "i32", on(n))
    dst = t([3], "i32", on(["CPU:9", "CPU:8"]))
    text = module(
        func([("x", ity)], f"%r = multi.allreduce {kind} %x : {ity} -> {dst}", [("r", dst)])
    )
    xi = rng(n).integers(-5, 6, (n, 3)).astype(np.int32)
    got = run1(text, xi if n > 1 else xi[0])
    want = {"add": np.sum, "mul": np.prod, "max": np.max}[kind](xi.astype(np.int64), axis=0)
    np.testing.assert_array_equal(got, np.stack([want, want]).astype(np.int32))


# ---------------------------------------------------------------------------------------------
# tg and arith on placed values
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rows", [8, 7, 4])
def test_sharded_elementwise_and_reductions(rows: int) -> None:
    st = t([rows, 3], enc=shard(3))
    body = f"""
    %one = arith.constant dense<1.0> : {st}
    %y = arith.addf %x, %one : {st}
    %e = math.exp %y : {st}
    %r0 = tg.reduce add %e [0] : {st} -> {t([1, 3], enc=on(3))}
    %r1 = tg.reduce max %e [1] : {st} -> {t([rows, 1], enc=shard(3))}
    """
    text = module(
        func(
            [("x", st)],
            body,
            [("y", st), ("r0", t([1, 3], enc=on(3))), ("r1", t([rows, 1], enc=shard(3)))],
        )
    )
    x = full((rows, 3))
    y, r0, r1 = run(text, x)
    np.testing.assert_array_equal(y, x + 1)
    want0 = np.exp(x.astype(np.float64) + 1).sum(0, keepdims=True)
    np.testing.assert_allclose(r0, np.stack([want0] * 3), rtol=1e-5)  # every device, all rows
    np.testing.assert_allclose(r1, np.exp(x + 1).max(1, keepdims=True), rtol=1e-6)


def test_sharded_shrink_selects_one_shard_or_keeps_the_axis() -> None:
    st = t([7, 2], enc=shard(3))
    body = f"""
    %a = tg.shrink %x [[3, 6], [0, 2]] : {st} -> {t([3, 2], enc=on(3))}
    %b = tg.shrink %x [[6, 7], [0, 2]] : {st} -> {t([1, 2], enc=on(3))}
    %c = tg.shrink %x [[0, 7], [1, 2]] : {st} -> {t([7, 1], enc=shard(3))}
    """
    text = module(
        func(
            [("x", st)],
            body,
            [
                ("a", t([3, 2], enc=on(3))),
                ("b", t([1, 2], enc=on(3))),
                ("c", t([7, 1], enc=shard(3))),
            ],
        )
    )
    x = full((7, 2))
    a, b, c = run(text, x)
    np.testing.assert_array_equal(a, np.stack([x[3:6]] * 3))
    np.testing.assert_array_equal(b, np.stack([x[6:7]] * 3))
    np.testing.assert_array_equal(c, x[:, 1:2])


def test_sharded_movement() -> None:
    st = t([6, 4], enc=shard(2))
    body = f"""
    %p = tg.permute %x [1, 0] : {st} -> {t([4, 6], enc=shard(2, 1))}
    %r = tg.reshape %x : {st} -> {t([6, 2, 2], enc=shard(2))}
    %f = tg.flip %x [1] : {st}
    %q = tg.pad %x [[0, 0], [1, 1]] value 9.0 : {st} -> {t([6, 6], enc=shard(2))}
    """
    outs = [
        ("p", t([4, 6], enc=shard(2, 1))),
        ("r", t([6, 2, 2], enc=shard(2))),
        ("f", st),
        ("q", t([6, 6], enc=shard(2))),
    ]
    x = full((6, 4))
    p, r, f, q = run(module(func([("x", st)], body, outs)), x)
    np.testing.assert_array_equal(p, x.T)
    np.testing.assert_array_equal(r, x.reshape(6, 2, 2))
    np.testing.assert_array_equal(f, x[:, ::-1])
    np.testing.assert_array_equal(q, np.pad(x, [(0, 0), (1, 1)], constant_values=9.0))


def test_on_values_are_computed_per_device() -> None:
    ty = t([2], enc=on(3))
    body = f"""
    %c = arith.constant dense<2.0> : {ty}
    %m = arith.mulf %x, %c : {ty}
    %s = tg.reduce add %m [0] : {ty} -> {t([1], enc=on(3))}
    """
    text = module(func([("x", ty)], body, [("s", t([1], enc=on(3)))]))
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    got = run1(text, x)
    np.testing.assert_array_equal(got, (2 * x).sum(1, keepdims=True))
    # an input without the device axis is the same buffer on every device
    got = run1(text, np.array([1.0, 2.0], np.float32))
    np.testing.assert_array_equal(got, np.full((3, 1), 6.0, np.float32))


# ---------------------------------------------------------------------------------------------
# The device set
# ---------------------------------------------------------------------------------------------


def test_device_count_from_attribute_or_first_appearance() -> None:
    ty = t([2], enc=on(["B", "A"]))
    body = f"%r = multi.allreduce add %x : {ty} -> {ty}"
    text = module(func([("x", ty)], body, [("r", ty)]))
    x = np.ones((2, 2), np.float32)
    run(text, x, num_devices=2)
    with pytest.raises(InterpreterError, match="runs on 2 devices, but 3 were asked for"):
        run(text, x, num_devices=3)
    with_attr = module(
        func([("x", ty)], body, [("r", ty)]), attrs='multi.devices = ["A", "B", "C"]'
    )
    run(with_attr, x, num_devices=3)
    with pytest.raises(InterpreterError, match="runs on 3 devices"):
        run(with_attr, x, num_devices=2)


def test_stats_count_computed_elements_per_device() -> None:
    st = t([7, 2], enc=shard(devs(3)))
    text = module(func([("x", st)], f"%y = arith.addf %x, %x : {st}", [("y", st)]))
    stats = InterpStats()
    run(text, full((7, 2)), stats=stats)
    assert stats.elements_computed == {0: 6, 1: 6, 2: 2}
    assert stats.total_messages == 0


def test_results_are_writable_arrays_and_inputs_untouched() -> None:
    ty = t([3], enc=on(2))
    text = module(
        func(
            [("x", ty)],
            f"%r = multi.copy %x : {ty} -> {t([3], enc=on(['CPU:5']))}",
            [("r", t([3], enc=on(["CPU:5"])))],
        )
    )
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    before = x.copy()
    (out,) = run_module(parse(text), [x])
    out[0] = 99.0
    np.testing.assert_array_equal(x, before)

"""The SPMD level (one program, N devices in lockstep), the device level (one module per device,
send/recv), logical <-> local conversion of arguments and results, and run_module's errors."""

from __future__ import annotations

import numpy as np
import pytest
from interp_ir import devs, func, module, on, parse, rng, run, shard, t

from xdsl_multi.diagnostics import parse_module
from xdsl_multi.dialects import make_context
from xdsl_multi.levels import Level, detect_level
from xdsl_multi.runtime.interpreter.interpreter import (
    InterpreterError,
    InterpStats,
    logical_signature,
    random_inputs,
    run_module,
)


def attrs(n: int, signature: str | None = None) -> str:
    names = ", ".join(f'"{d}"' for d in devs(n))
    text = f"multi.devices = [{names}]"
    return text if signature is None else f"{text}, multi.signature = {signature}"


def bounds(length: int, n: int) -> list[tuple[int, int]]:
    s = -(-length // n)
    return [(min(k * s, length), min((k + 1) * s, length)) for k in range(n)]


# ---------------------------------------------------------------------------------------------
# SPMD level
# ---------------------------------------------------------------------------------------------

RING = """
%d = devidx.device_num : index
%one = arith.constant 1 : index
%n = arith.constant {n} : index
%next = arith.addi %d, %one : index
%src = arith.remsi %next, %n : index
%f = devidx.fetch %x from %src : {local}
"""


@pytest.mark.parametrize("n", [2, 3, 4])
def test_spmd_fetch_from_the_next_device(n: int) -> None:
    local = t([2, 3])
    sig = f"({t([2, 3], enc=on(n))}) -> ({t([2, 3], enc=on(n))})"
    text = module(
        func([("x", local)], RING.format(n=n, local=local), [("f", local)]), attrs=attrs(n, sig)
    )
    x = rng(n).standard_normal((n, 2, 3)).astype(np.float32)
    stats = InterpStats()
    (got,) = run(text, x, stats=stats)
    np.testing.assert_array_equal(got, np.roll(x, -1, axis=0))
    assert stats.messages == {((d + 1) % n, d): 1 for d in range(n)}
    assert stats.elements_sent == {((d + 1) % n, d): 6 for d in range(n)}


@pytest.mark.parametrize("n,rows", [(2, 8), (3, 7), (3, 4), (4, 5)])
def test_spmd_multi_as_an_invalid_pad_with_device_dependent_bounds(n: int, rows: int) -> None:
    """The MULTI rewrite by hand: device d pads its s rows to position d*s; the rows past L and
    other devices' rows are Invalid. The result, sharded, reassembles to the logical tensor;
    a reduction over the padded axis treats Invalid as 0, then the fetches sum up."""
    s = -(-rows // n)
    local = t([s, 2])
    body = f"""
    %d = devidx.device_num : index
    %s = arith.constant {s} : index
    %last = arith.constant {n - 1} : index
    %lo = arith.muli %d, %s : index
    %k = arith.subi %last, %d : index
    %hi = arith.muli %k, %s : index
    %p = tg.pad %x [[%lo, %hi], [0, 0]] invalid : {local} -> {t([n * s, 2])}
    %r = tg.reduce add %p [0] : {t([n * s, 2])} -> {t([1, 2])}
    %end = arith.addi %lo, %s : index
    %y = tg.shrink %p [[%lo, %end], [0, 2]] : {t([n * s, 2])} -> {local}
    """
    sig = (
        f"({t([rows, 2], enc=shard(n))}) -> ({t([rows, 2], enc=shard(n))}, {t([1, 2], enc=on(n))})"
    )
    text = module(func([("x", local)], body, [("y", local), ("r", t([1, 2]))]), attrs=attrs(n, sig))
    x = rng(rows).standard_normal((rows, 2)).astype(np.float32)
    y, r = run(text, x)
    np.testing.assert_array_equal(y, x)
    for d, (lo, hi) in enumerate(bounds(rows, n)):
        np.testing.assert_allclose(r[d, 0], x[lo:hi].sum(0), rtol=1e-6, atol=1e-6)


def test_spmd_local_arguments_and_results_follow_the_logical_signature() -> None:
    """shard: rows [lo, hi) zero-padded to s rows; on many: slice i; on one: that device, zeros
    elsewhere; unplaced: the same everywhere. Each device returns its local arguments."""
    n = 3
    st, on_many, on_one = t([4, 2], enc=shard(n)), t([2], enc=on(n)), t([2], enc=on(["CPU:1"]))
    sig = f"({st}, {on_many}, {on_one}, {t([2])}) -> ({t([2, 2], enc=on(n))}, {t([2], enc=on(n))}, {t([2], enc=on(n))}, {t([2], enc=on(n))})"
    args = [("a", t([2, 2])), ("b", t([2])), ("c", t([2])), ("u", t([2]))]
    text = module(func(args, "", args), attrs=attrs(n, sig))
    a = np.arange(8, dtype=np.float32).reshape(4, 2)
    b = np.arange(6, dtype=np.float32).reshape(3, 2)
    c = np.array([7.0, 8.0], np.float32)
    u = np.array([9.0, 10.0], np.float32)
    ra, rb, rc, ru = run(text, a, b, c, u)
    np.testing.assert_array_equal(ra, [a[0:2], a[2:4], np.zeros((2, 2))])  # 4 rows over 3: 2, 2, 0
    np.testing.assert_array_equal(rb, b)
    np.testing.assert_array_equal(rc, [np.zeros(2), c, np.zeros(2)])
    np.testing.assert_array_equal(ru, [u, u, u])


def test_spmd_scf_and_calls_run_per_device() -> None:
    body = f"""
    %d = devidx.device_num : index
    %zero = arith.constant 0 : index
    %one = arith.constant 1 : index
    %r = scf.for %i = %zero to %d step %one iter_args(%acc = %x) -> ({t([2])}) {{
      %y = func.call @double(%acc) : ({t([2])}) -> {t([2])}
      scf.yield %y : {t([2])}
    }}
    """
    double = func(
        [("v", t([2]))], f"%w = arith.addf %v, %v : {t([2])}", [("w", t([2]))], name="double"
    )
    sig = f"({t([2])}) -> ({t([2], enc=on(3))})"
    text = module(func([("x", t([2]))], body, [("r", t([2]))]), double, attrs=attrs(3, sig))
    (got,) = run(text, np.array([1.0, 3.0], np.float32))
    np.testing.assert_array_equal(got, [[1, 3], [2, 6], [4, 12]])


def test_spmd_fetch_outside_the_devices_is_an_error() -> None:
    text = module(
        func(
            [("x", t([2]))],
            f"""
    %d = devidx.device_num : index
    %one = arith.constant 1 : index
    %src = arith.addi %d, %one : index
    %f = devidx.fetch %x from %src : {t([2])}
    """,
            [("f", t([2]))],
        ),
        attrs=attrs(2),
    )
    with pytest.raises(
        InterpreterError, match=r"devidx.fetch: device 1 fetches from device 2, outside \[0, 2\)"
    ):
        run(text, np.zeros(2, np.float32))


def test_spmd_devices_that_diverge_at_a_fetch_are_an_error() -> None:
    text = module(
        func(
            [("x", t([2]))],
            f"""
    %d = devidx.device_num : index
    %zero = arith.constant 0 : index
    %is0 = arith.cmpi eq, %d, %zero : index
    %r = scf.if %is0 -> ({t([2])}) {{
      %f = devidx.fetch %x from %zero : {t([2])}
      scf.yield %f : {t([2])}
    }} else {{
      scf.yield %x : {t([2])}
    }}
    """,
            [("r", t([2]))],
        ),
        attrs=attrs(2),
    )
    with pytest.raises(InterpreterError, match="devices took different paths"):
        run(text, np.zeros(2, np.float32))


def test_spmd_device_count_without_attribute_comes_from_num_devices() -> None:
    text = module(func([("x", t([2]))], "%d = devidx.device_num : index", [("x", t([2]))]))
    assert detect_level(parse(text)) is Level.SPMD
    with pytest.raises(InterpreterError, match="cannot tell how many devices"):
        run(text, np.zeros(2, np.float32))
    (got,) = run(text, np.ones(2, np.float32), num_devices=4)
    np.testing.assert_array_equal(got, np.ones(2))


# ---------------------------------------------------------------------------------------------
# Device level
# ---------------------------------------------------------------------------------------------


def device_module(
    k: int, body: str, args: list[tuple[str, str]], results: list[tuple[str, str]]
) -> str:
    return (
        f'builtin.module attributes {{devidx.device = {k} : i64, sym_name = "device_{k}"}} {{\n'
        + func(args, body, results)
        + "\n}"
    )


def test_device_level_send_and_recv() -> None:
    """Device 0 sends 2x to device 1 on channel 7; device 1 sends x + 1 back on channel 3."""
    ty = t([2, 2])
    dev0 = device_module(
        0,
        f"""
    %y = arith.addf %x, %x : {ty}
    devidx.send %y to 1 channel 7 : {ty}
    %r = devidx.recv from 1 channel 3 : {ty}
    """,
        [("x", ty)],
        [("r", ty)],
    )
    dev1 = device_module(
        1,
        f"""
    %r = devidx.recv from 0 channel 7 : {ty}
    %one = arith.constant dense<1.0> : {ty}
    %z = arith.addf %x, %one : {ty}
    devidx.send %z to 0 channel 3 : {ty}
    """,
        [("x", ty)],
        [("r", ty)],
    )
    sig = f"({t([4, 2], enc=shard(2))}) -> ({t([2, 2], enc=on(2))})"
    text = module(dev0, dev1, attrs=attrs(2, sig))
    assert detect_level(parse(text)) is Level.DEVICE
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    stats = InterpStats()
    (got,) = run(text, x, stats=stats)
    np.testing.assert_array_equal(got, [x[2:4] + 1, 2 * x[0:2]])
    assert stats.messages == {(0, 1): 1, (1, 0): 1}
    assert stats.elements_sent == {(0, 1): 4, (1, 0): 4}
    assert stats.elements_computed == {0: 4, 1: 4}


def test_device_level_messages_on_one_channel_arrive_in_order() -> None:
    ty = t([1], "i32")
    dev0 = device_module(
        0,
        f"""
    %one = arith.constant dense<1> : {ty}
    %two = arith.constant dense<2> : {ty}
    devidx.send %one to 1 channel 0 : {ty}
    devidx.send %two to 1 channel 0 : {ty}
    """,
        [],
        [("one", ty), ("two", ty)],
    )  # every device returns every result; these are unused
    dev1 = device_module(
        1,
        f"""
    %a = devidx.recv from 0 channel 0 : {ty}
    %b = devidx.recv from 0 channel 0 : {ty}
    """,
        [],
        [("a", ty), ("b", ty)],
    )
    sig = f"() -> ({t([1], 'i32', on(['CPU:1']))}, {t([1], 'i32', on(['CPU:1']))})"
    a, b = run(module(dev0, dev1, attrs=attrs(2, sig)))
    assert (int(a[0]), int(b[0])) == (1, 2)


def test_device_level_deadlock_names_devices_channels_and_sources() -> None:
    ty = t([2])
    dev0 = device_module(
        0,
        f"%r = devidx.recv from 1 channel 5 : {ty}\ndevidx.send %r to 1 channel 6 : {ty}",
        [],
        [("r", ty)],
    )
    dev1 = device_module(
        1,
        f"%r = devidx.recv from 0 channel 6 : {ty}\ndevidx.send %r to 0 channel 5 : {ty}",
        [],
        [("r", ty)],
    )
    sig = f"() -> ({t([2], enc=on(2))})"
    with pytest.raises(
        InterpreterError,
        match=r"deadlock: device 0 at devidx.recv.* waits for device 1 "
        r"channel 5; device 1 at devidx.recv.* waits for device 0 channel 6",
    ):
        run(module(dev0, dev1, attrs=attrs(2, sig)))


def test_device_level_unreceived_send_is_an_error() -> None:
    ty = t([2])
    dev0 = device_module(0, f"devidx.send %x to 1 channel 9 : {ty}", [("x", ty)], [("x", ty)])
    dev1 = device_module(1, "", [("x", ty)], [("x", ty)])
    with pytest.raises(
        InterpreterError, match="sends never received: device 0 -> device 1 channel 9"
    ):
        run(module(dev0, dev1, attrs=attrs(2)), np.zeros(2, np.float32))


def test_device_level_received_type_must_match() -> None:
    dev0 = device_module(0, f"devidx.send %x to 1 channel 0 : {t([2])}", [("x", t([2]))], [])
    dev1 = device_module(1, f"%r = devidx.recv from 0 channel 0 : {t([3])}", [("x", t([2]))], [])
    with pytest.raises(InterpreterError, match=r"devidx.recv: device 1 receives float32 \(2,\)"):
        run(module(dev0, dev1, attrs=attrs(2)), np.zeros(2, np.float32))


def test_device_level_needs_every_device_module() -> None:
    dev0 = device_module(0, "", [], [])
    with pytest.raises(
        InterpreterError, match="lists 2 devices but the module has 1 device modules"
    ):
        run(module(dev0, attrs=attrs(2)))
    dev2 = device_module(2, "", [], [])
    with pytest.raises(InterpreterError, match=r"numbered 0..1, found \[0, 2\]"):
        run(module(dev0, dev2))


# ---------------------------------------------------------------------------------------------
# Inputs, signatures, errors
# ---------------------------------------------------------------------------------------------

SIMPLE = module(func([("x", t([2, 3])), ("n", "index")], "", [("x", t([2, 3]))]))


def test_input_errors_name_the_argument() -> None:
    m = parse(SIMPLE)
    ok = [np.zeros((2, 3), np.float32), np.int64(1)]
    run_module(m, ok)
    with pytest.raises(InterpreterError, match=r"argument 0 \(x\): expected shape \(2, 3\)"):
        run_module(m, [np.zeros((3, 2), np.float32), np.int64(1)])
    with pytest.raises(
        InterpreterError, match=r"argument 0 \(x\): expected dtype float32 .* found float64"
    ):
        run_module(m, [np.zeros((2, 3)), np.int64(1)])
    with pytest.raises(InterpreterError, match="takes 2 arguments, got 1 inputs"):
        run_module(m, ok[:1])
    run_module(m, [ok[0], 3])  # Python scalars are converted
    with pytest.raises(InterpreterError, match="no func.func @other"):
        run_module(m, ok, entry="other")


def test_unsupported_op_names_the_op_and_its_location() -> None:
    text = module(func([("x", "i32")], "%r:2 = arith.mului_extended %x, %x : i32", [("x", "i32")]))
    m = parse_module(make_context(), text, "prog.mlir")  # gives every op a file:line:col
    with pytest.raises(
        InterpreterError, match=r"arith.mului_extended \(prog.mlir:3:3\): this op is not supported"
    ):
        run_module(m, [np.int32(1)])


def test_inputs_are_never_modified() -> None:
    st = t([5, 2], enc=shard(2))
    text = module(func([("x", st)], f"%y = tg.contiguous %x : {st}", [("y", st)]))
    x = rng(0).standard_normal((5, 2)).astype(np.float32)
    before = x.copy()
    (y,) = run(text, x)
    y[:] = 0
    np.testing.assert_array_equal(x, before)


def test_random_inputs_follow_the_logical_signature() -> None:
    sig_text = module(
        func(
            [
                ("a", t([5, 2], enc=shard(2))),
                ("b", t([3], "i32", on(4))),
                ("c", "index"),
                ("d", t([2], "i1")),
                ("e", t([2], "bf16")),
            ],
            "",
            [],
        )
    )
    sig = logical_signature(parse(sig_text))
    a, b, c, d, e = random_inputs(sig, seed=3)
    assert a.shape == (5, 2) and a.dtype == np.float32
    assert b.shape == (4, 3) and b.dtype == np.int32 and -10 <= b.min() and b.max() <= 10
    assert c.shape == () and c.dtype == np.int64
    assert d.dtype == np.bool_
    np.testing.assert_array_equal(e, e.astype(np.float64).astype(np.float32))
    assert all(np.array_equal(x, y) for x, y in zip(random_inputs(sig, 3), [a, b, c, d, e]))

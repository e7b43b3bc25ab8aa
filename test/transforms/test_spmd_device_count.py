"""SPMD mode is one program for every device (issue 13): the module that multi-to-devidx,
devidx-simplify, form-kernels{spmd=true} and convert-to-llvm make has the same ops whatever
the number of devices N (only `multi.devices` lists them), its compile memory does not grow
with N, and it runs correctly on the threads backend: BENCH S1 (x (16N, 256) sharded,
z = maximum(x*2, x); z and z.sum(axis=0) on every device), allreduces of every algorithm
and reduction kind, and an all-gather and a broadcast, compared with numpy."""

from __future__ import annotations

import cProfile
import pstats
import tracemalloc

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from xdsl_multi.dialects import devidx, make_context
from xdsl_multi.dialects.parsing import parse_mlir
from xdsl_multi.pipeline import lower_for_runtime
from xdsl_multi.runtime.program import Program


def devices(n: int) -> str:
    return ", ".join(f'"CPU:{i}"' for i in range(n))


def s1(n: int) -> str:
    """BENCH S1 on n devices."""
    t = f"tensor<{16 * n}x256xf32, #multi.shard<[{devices(n)}], axis = 0>>"
    r = f"tensor<1x256xf32, #multi.on<[{devices(n)}]>>"
    return f"""builtin.module {{
  func.func @main(%x: {t}) -> ({t}, {r}) {{
    %c2 = arith.constant dense<2.0> : {t}
    %y = arith.mulf %x, %c2 : {t}
    %z = arith.maximumf %y, %x : {t}
    %s = tg.reduce {"add"} %z [0] : {t} -> {r}
    func.return %z, %s : {t}, {r}
  }}
}}
""".replace('{"add"}', "add")


def allreduce_program(n: int, kind: str, elt: str) -> str:
    """x (n, 1000) sharded on axis 0, reduced over it: an allreduce of 1000 elements."""
    t = f"tensor<{n}x1000x{elt}, #multi.shard<[{devices(n)}], axis = 0>>"
    r = f"tensor<1x1000x{elt}, #multi.on<[{devices(n)}]>>"
    return f"""builtin.module {{
  func.func @main(%x: {t}) -> {r} {{
    %s = tg.reduce {kind} %x [0] : {t} -> {r}
    func.return %s : {r}
  }}
}}
"""


def lowered(text: str, options: dict[str, str] | None = None) -> ModuleOp:
    module = parse_mlir(make_context(), text)
    lower_for_runtime(module, spmd=True, options=options)
    return module


def op_names(module: ModuleOp) -> list[str]:
    return [op.name for op in module.walk()]


@pytest.mark.parametrize("allreduce", ["naive", "ring", "all2all"])
def test_spmd_module_is_the_same_for_2_and_64_devices(allreduce: str) -> None:
    options = {"multi-to-devidx": f"allreduce={allreduce} ring-threshold=0"}
    small, large = lowered(s1(2), options), lowered(s1(64), options)
    assert op_names(small) == op_names(large)
    for module in (small, large):
        assert devidx.SPMD_ATTR in module.attributes
        assert not any(isinstance(op, ModuleOp) for op in module.body.block.ops)
        collectives = [op for op in module.walk() if isinstance(op, devidx.AllreduceOp)]
        assert [op.algorithm.data for op in collectives] == [allreduce]
        assert not any(isinstance(op, devidx.SendOp | devidx.RecvOp) for op in module.walk())


def _peak_compile_bytes(n: int) -> int:
    module = parse_mlir(make_context(), s1(n))
    tracemalloc.start()
    try:
        lower_for_runtime(module, spmd=True)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_spmd_compile_memory_does_not_grow_with_devices() -> None:
    """The passes' peak memory at N = 256 is within 1.5x of N = 2's (the input module is
    parsed before: its device lists are the only part that grows)."""
    assert _peak_compile_bytes(256) <= 1.5 * _peak_compile_bytes(2)


def chain(n: int, k: int) -> str:
    """x on n devices (sharded) squared k times, then summed over the shards."""
    t = f"tensor<{16 * n}x256xf32, #multi.shard<[{devices(n)}], axis = 0>>"
    r = f"tensor<1x256xf32, #multi.on<[{devices(n)}]>>"
    body = "".join(f"    %y{i + 1} = arith.mulf %y{i}, %y{i} : {t}\n" for i in range(k))
    return (
        f"builtin.module {{\n  func.func @main(%y0: {t}) -> ({t}, {r}) {{\n{body}"
        f"    %s = tg.reduce add %y{k} [0] : {t} -> {r}\n"
        f"    func.return %y{k}, %s : {t}, {r}\n  }}\n}}\n"
    )


def _calls(run: cProfile.Profile, names: set[str]) -> int:
    """How many calls `run` made to the functions named `names`."""
    stats = pstats.Stats(run).stats  # type: ignore[attr-defined]
    return sum(v[1] for (_, _, name), v in stats.items() if name in names)


DEVICE_LISTS = {"device_names", "listed_devices"}
"""What reads a list of N device names (an encoding's, or `multi.devices`)."""


def _device_list_reads(text: str) -> int:
    module = parse_mlir(make_context(), text)
    run = cProfile.Profile()
    run.enable()
    lower_for_runtime(module, spmd=True)
    run.disable()
    return _calls(run, DEVICE_LISTS)


def test_spmd_passes_read_device_lists_a_bounded_number_of_times() -> None:
    """Nothing in SPMD mode's passes is O(N) per op: the device lists are read as often for
    20 ops as for 2 (each check of an op's types used to read its N names)."""
    assert _device_list_reads(chain(64, 20)) == _device_list_reads(chain(64, 2))


def test_device_lists_are_lexed_in_one_match() -> None:
    """Parsing S1 takes as many lexer tokens at N = 512 as at N = 2 (a plain device list is
    read in one match, not as 2N + 1 tokens)."""

    def tokens(n: int) -> int:
        run = cProfile.Profile()
        run.enable()
        parse_mlir(make_context(), s1(n))
        run.disable()
        return _calls(run, {"lex"})

    assert tokens(512) == tokens(2)


def test_s1_on_64_devices_matches_numpy() -> None:
    x = np.random.default_rng(13).standard_normal((16 * 64, 256)).astype(np.float32)
    with Program(lowered(s1(64))) as program:
        z, s = program([x])
    want = np.maximum(x * 2, x)
    np.testing.assert_array_equal(z, want)
    assert s.shape == (64, 1, 256)  # one buffer per device (SPEC §6)
    for k in range(64):
        np.testing.assert_allclose(s[k], want.sum(axis=0, keepdims=True), rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("allreduce", ["naive", "ring", "all2all"])
@pytest.mark.parametrize(
    ("kind", "elt"), [("add", "f32"), ("max", "f32"), ("mul", "f64"), ("add", "i32"), ("max", "i1")]
)
def test_allreduce_collective_on_threads_matches_numpy(allreduce: str, kind: str, elt: str) -> None:
    """The threads backend's shared-memory allreduce: every algorithm (chunks of 1000 / 3
    elements: uneven), every kind, floats, integers and i1, run twice (reused buffers)."""
    n = 3
    rng = np.random.default_rng(7)
    dtype = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i1": np.bool_}[elt]
    if dtype == np.bool_:
        x = rng.random((n, 1000)) < 0.2
    elif kind == "mul":
        x = rng.uniform(0.5, 1.5, (n, 1000)).astype(dtype)
    else:
        x = (rng.standard_normal((n, 1000)) * 100).astype(dtype)
    want = {
        "add": lambda a: a.sum(axis=0, keepdims=True, dtype=a.dtype),
        "max": lambda a: a.max(axis=0, keepdims=True),
        "mul": lambda a: a.prod(axis=0, keepdims=True),
    }[kind](x)
    options = {"multi-to-devidx": f"allreduce={allreduce} ring-threshold=0"}
    module = lowered(allreduce_program(n, kind, elt), options)
    (op,) = [op for op in module.walk() if isinstance(op, devidx.AllreduceOp)]
    assert (op.kind.data, op.algorithm.data) == (kind, allreduce)
    with Program(module) as program:
        for _ in range(2):
            (got,) = program([x])
            assert got.dtype == want.dtype and got.shape == (n, *want.shape)
            for k in range(n):
                np.testing.assert_allclose(got[k], want, rtol=1e-6, atol=1e-4)


def gather_program(n: int, extra_rows: int = 0) -> str:
    """x ((5n + extra_rows) x 6) sharded on axis 0 over every device, gathered to every device
    and doubled; w on device 0 broadcast to every device."""
    t = f"tensor<{5 * n + extra_rows}x6xf32, #multi.shard<[{devices(n)}], axis = 0>>"
    a = f"tensor<{5 * n + extra_rows}x6xf32, #multi.on<[{devices(n)}]>>"
    w = 'tensor<6xf32, #multi.on<["CPU:0"]>>'
    wa = f"tensor<6xf32, #multi.on<[{devices(n)}]>>"
    return f"""builtin.module {{
  func.func @main(%x: {t}, %w: {w}) -> ({a}, {wa}) {{
    %g = multi.copy %x : {t} -> {a}
    %g2 = arith.addf %g, %g : {a}
    %b = multi.copy %w : {w} -> {wa}
    func.return %g2, %b : {a}, {wa}
  }}
}}
"""


def test_spmd_module_with_an_allgather_is_the_same_for_2_and_64_devices() -> None:
    """(Even shards: with uneven ones the kernel that zeroes the padding rows of the local
    buffers has a case per kind of device, full, partial or empty, and N = 2 has no empty
    one; those are run on 64 devices below.)"""
    small, large = lowered(gather_program(2)), lowered(gather_program(64))
    assert op_names(small) == op_names(large)
    for module in (small, large):
        names = op_names(module)
        assert names.count("devidx.allgather") == 1 and names.count("devidx.broadcast") == 1
        assert "devidx.fetch" not in names


def test_uneven_allgather_on_64_devices_matches_numpy() -> None:
    """323 rows over 64 devices: 6-row local buffers, device 53 holds 5, 54..63 none."""
    rng = np.random.default_rng(64)
    x = rng.standard_normal((5 * 64 + 3, 6)).astype(np.float32)
    w = rng.standard_normal(6).astype(np.float32)
    with Program(lowered(gather_program(64, extra_rows=3))) as program:
        g, b = program([x, w])
    assert g.shape == (64, 5 * 64 + 3, 6) and b.shape == (64, 6)
    for k in range(64):
        np.testing.assert_array_equal(g[k], x + x)
        np.testing.assert_array_equal(b[k], w)


@pytest.mark.parametrize("allreduce", ["ring", "all2all"])
def test_chunked_allreduce_on_threads_adds_in_device_order(allreduce: str) -> None:
    """3 x 200003 f32 (chunks of 66668 elements: more than one cache block each, and uneven):
    the threads backend gives ((x0 + x1) + x2) bit for bit, the order docs/spmd-form.md fixes
    and the interpreter uses."""
    n, numel = 3, 200003
    t = f"tensor<{n}x{numel}xf32, #multi.shard<[{devices(n)}], axis = 0>>"
    r = f"tensor<1x{numel}xf32, #multi.on<[{devices(n)}]>>"
    text = f"""builtin.module {{
  func.func @main(%x: {t}) -> {r} {{
    %s = tg.reduce add %x [0] : {t} -> {r}
    func.return %s : {r}
  }}
}}
"""
    x = np.random.default_rng(3).standard_normal((n, numel)).astype(np.float32) * 1e3
    want = (x[0] + x[1]) + x[2]
    module = lowered(text, {"multi-to-devidx": f"allreduce={allreduce} ring-threshold=0"})
    with Program(module) as program:
        (got,) = program([x])
    for k in range(n):
        np.testing.assert_array_equal(got[k, 0], want)


def copy_program(n: int, kind: str, extra: int = 0) -> str:
    """One copy of x ((5n + extra) x (3n + extra)): a shard on axis 0 over every device gathered
    to device 0, device 0's value scattered on axis 0, or resharded from axis 0 to axis 1."""
    rows, cols = 5 * n + extra, 3 * n + extra
    shard0 = f"tensor<{rows}x{cols}xf32, #multi.shard<[{devices(n)}], axis = 0>>"
    one = f'tensor<{rows}x{cols}xf32, #multi.on<["CPU:0"]>>'
    shard1 = f"tensor<{rows}x{cols}xf32, #multi.shard<[{devices(n)}], axis = 1>>"
    src, dst = {"gather": (shard0, one), "scatter": (one, shard0), "reshard": (shard0, shard1)}[
        kind
    ]
    return f"""builtin.module {{
  func.func @main(%x: {src}) -> {dst} {{
    %c = multi.copy %x : {src} -> {dst}
    %d = arith.addf %c, %c : {dst}
    func.return %d : {dst}
  }}
}}
"""


COPY_OPS = {"gather": "devidx.gather", "scatter": "devidx.scatter", "reshard": "devidx.alltoall"}


@pytest.mark.parametrize("kind", sorted(COPY_OPS))
def test_spmd_module_with_a_gather_scatter_or_reshard_is_the_same_for_2_and_64_devices(
    kind: str,
) -> None:
    """Even shards: the op list is the same; one collective op, no fetch."""
    small, large = lowered(copy_program(2, kind)), lowered(copy_program(64, kind))
    assert op_names(small) == op_names(large)
    for module in (small, large):
        names = op_names(module)
        assert names.count(COPY_OPS[kind]) == 1 and "devidx.fetch" not in names


@pytest.mark.parametrize("kind", sorted(COPY_OPS))
def test_uneven_gather_scatter_or_reshard_does_not_grow_with_n(kind: str) -> None:
    """Uneven shards (5n - 1 rows, 3n - 1 columns: every device full but the last): the same
    op count for N = 9 and 63. (N <= form-kernels' MAX_VERSIONS = 8 branches such kernels on
    the device number, one branch per DISTINCT version: the full devices share one, so N = 8
    has the ops of N = 3 but for the branch conditions on d, not 7 more loop nests.)"""
    counts = {n: len(op_names(lowered(copy_program(n, kind, -1)))) for n in (3, 8, 9, 63)}
    assert counts[9] == counts[63]
    assert abs(counts[8] - counts[3]) <= 4


@pytest.mark.parametrize("kind", sorted(COPY_OPS))
def test_uneven_gather_scatter_or_reshard_on_64_devices_matches_numpy(kind: str) -> None:
    x = np.random.default_rng(7).standard_normal((5 * 64 - 1, 3 * 64 - 1)).astype(np.float32)
    with Program(lowered(copy_program(64, kind, -1))) as program:
        (got,) = program([x])
    np.testing.assert_array_equal(got, x + x)  # one device's value, or the shard's whole


def _listed(numbers: list[int]) -> str:
    return ", ".join(f'"CPU:{i}"' for i in numbers)


def table_program(n: int, kind: str) -> str:
    """Device lists that are not the module's (issue 13's last corners): `permuted`, a reduce
    of an uneven shard (4n - 1 rows) listed evens first then odds; `subset`, a value on the
    even devices doubled; copies `to_subset` (a shard over every device to `#multi.on` the
    first half), `one_to_subset` (device 0 to a shard over the odd devices),
    `subset_to_every` (a shard over the odd devices to one over every device, other axis),
    `reorder` (a shard over every device to one in the evens-then-odds order, same axis)."""
    every, evens, odds = list(range(n)), list(range(0, n, 2)), list(range(1, n, 2))
    uneven = ("permuted", "reorder", "subset_reduce", "subset_to_subset")
    shuffled, rows = evens + odds, 4 * n - (1 if kind in uneven else 0)

    def shard(names: list[int], axis: int = 0) -> str:
        return f"tensor<{rows}x8xf32, #multi.shard<[{_listed(names)}], axis = {axis}>>"

    def on(names: list[int], shape: str = f"{rows}x8") -> str:
        return f"tensor<{shape}xf32, #multi.on<[{_listed(names)}]>>"

    if kind == "permuted":
        src, dst = shard(shuffled), on(every, "1x8")
        body = f"%y = tg.reduce add %x [0] : {src} -> {dst}"
    elif kind == "subset":
        src = dst = on(evens)
        body = f"%y = arith.addf %x, %x : {src}"
    elif kind == "subset_reduce":
        src, dst = shard(odds), on(odds, "1x8")
        body = f"%y = tg.reduce max %x [0] : {src} -> {dst}"
    elif kind == "allreduce_elsewhere":
        src, dst = on(evens), on(odds)
        body = f"%y = multi.allreduce add %x : {src} -> {dst}"
    else:
        src, dst = {
            "to_subset": (shard(every), on(every[: n // 2])),
            "one_to_subset": (on([0]), shard(odds)),
            "subset_to_every": (shard(odds), shard(every, 1)),
            "reorder": (shard(every), shard(shuffled)),
            "subset_to_subset": (shard(odds), shard(evens[::-1])),
        }[kind]
        body = f"%y = multi.copy %x : {src} -> {dst}"
    return f"""builtin.module attributes {{multi.devices = [{_listed(every)}]}} {{
  func.func @main(%x: {src}) -> {dst} {{
    {body}
    func.return %y : {dst}
  }}
}}
"""


TABLE_CASES = {
    # kind: (small N, large N) with the same shapes of shares (even / uneven alike), both past
    # form-kernels' MAX_VERSIONS = 8
    "permuted": (9, 63),
    "subset": (16, 64),
    "to_subset": (16, 64),
    "one_to_subset": (16, 64),
    "subset_to_every": (32, 64),
    "reorder": (9, 63),
    "subset_reduce": (18, 126),
    "allreduce_elsewhere": (16, 64),
    "subset_to_subset": (18, 126),
}
TABLE_COLLECTIVE = {
    # kind: the collective op it must be (issue 13: before, one fetch per member)
    "subset_reduce": "devidx.allreduce",
    "allreduce_elsewhere": "devidx.broadcast",
    "subset_to_subset": "devidx.alltoall",
    "reorder": "devidx.alltoall",
}


@pytest.mark.parametrize("kind", sorted(TABLE_CASES))
def test_permuted_and_subset_device_lists_do_not_grow_with_n(kind: str) -> None:
    """A position in a device list in another order than the module's, or membership of a
    subset, is one `devidx.lookup` (before: a chain of N selects, in the host schedule and in
    the kernels); a copy from a shard over some devices is one allgather or gather (before: a
    fetch per device). The llvm-level module has the same ops for both N."""
    small_n, large_n = TABLE_CASES[kind]
    small, large = lowered(table_program(small_n, kind)), lowered(table_program(large_n, kind))
    assert op_names(small) == op_names(large)
    names = op_names(large)
    assert "devidx.fetch" not in names
    assert "devidx.lookup" in names or "llvm.mlir.global" in names  # host or kernel tables
    assert len(names) < 150
    if kind in TABLE_COLLECTIVE:
        assert TABLE_COLLECTIVE[kind] in names

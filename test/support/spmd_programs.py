"""Hand-written SPMD programs on n devices (docs/spmd-form.md), in the shapes multi-to-devidx
produces, for the numeric tests of devidx-simplify and specialize-devices. Each function returns
MLIR text with `multi.devices` and `multi.signature`, entry `@main`."""

from __future__ import annotations

from collections.abc import Callable

from xdsl_multi.dialects.multi import local_length


def _names(n: int) -> str:
    return "[" + ", ".join(f'"CPU:{i}"' for i in range(n)) + "]"


def _on(n: int, which: list[int] | None = None) -> str:
    which = list(range(n)) if which is None else which
    return "#multi.on<[" + ", ".join(f'"CPU:{i}"' for i in which) + "]>"


def _shard(n: int, axis: int = 0) -> str:
    return f"#multi.shard<{_names(n)}, axis = {axis}>"


def _module(n: int, logical_in: list[str], logical_out: list[str], body: str) -> str:
    sig = f"({', '.join(logical_in)}) -> ({', '.join(logical_out)})"
    return (
        f"builtin.module attributes {{multi.devices = {_names(n)}, multi.signature = {sig}}} {{\n"
        f"{body}\n}}"
    )


def _ring_sources(n: int, value: str, ty: str, out: str, kind: str = "add") -> str:
    """`out` = the allreduce (add or max) of `value` over all devices, as n - 1 fetches from
    (d + n - t) mod n (the naive ring of docs/spmd-form.md)."""
    op = {"add": "arith.addf", "max": "arith.maximumf"}[kind]
    lines = [f"    %{out}0 = tg.contiguous %{value} : {ty} -> {ty}"]
    acc = f"{out}0"
    for t in range(1, n):
        lines += [
            f"    %{out}_k{t} = arith.constant {n - t} : index",
            f"    %{out}_s{t} = arith.addi %d, %{out}_k{t} : index",
            f"    %{out}_src{t} = arith.remsi %{out}_s{t}, %cn : index",
            f"    %{out}_f{t} = devidx.fetch %{value} from %{out}_src{t} : {ty}",
            f"    %{out}{t} = {op} %{acc}, %{out}_f{t} : {ty}",
        ]
        acc = f"{out}{t}"
    lines.append(f"    %{out} = tg.contiguous %{acc} : {ty} -> {ty}")
    return "\n".join(lines)


def multi_pad_roundtrip(n: int, rows: int = 7, cols: int = 5) -> str:
    """MULTI's lowering and back: a (rows, cols) tensor sharded over n devices (uneven when n
    does not divide rows), global(b) = shrink(pad(b, [[d*s, (n-1-d)*s]] invalid), [[0, rows]]),
    row-local math, local(y) back to the s-row buffer, and the column sums (a reduce over the
    shard axis) allreduced with fetches from (d + n - t) mod n."""
    s = local_length(rows, n)
    loc, full, col = f"tensor<{s}x{cols}xf32>", f"tensor<{rows}x{cols}xf32>", f"tensor<1x{cols}xf32>"
    padded = f"tensor<{n * s}x{cols}xf32>"
    body = f"""  func.func @main(%b: {loc}) -> ({loc}, {col}) {{
    %d = devidx.device_num : index
    %cs = arith.constant {s} : index
    %cn = arith.constant {n} : index
    %clast = arith.constant {(n - 1) * s} : index
    %lo = arith.muli %d, %cs : index
    %hi = arith.subi %clast, %lo : index
    %end = arith.addi %lo, %cs : index
    %p = tg.pad %b [[%lo, %hi], [0, 0]] invalid : {loc} -> {padded}
    %g = tg.shrink %p [[0, {rows}], [0, {cols}]] : {padded} -> {full}
    %sq = arith.mulf %g, %g : {full}
    %one = arith.constant dense<1.0> : {full}
    %y = arith.addf %sq, %one : {full}
    %zero = arith.constant dense<0.0> : {full}
    %y0 = arith.addf %y, %zero : {full}
    %q = tg.pad %y0 [[0, {n * s - rows}], [0, 0]] invalid : {full} -> {padded}
    %l = tg.shrink %q [[%lo, %end], [0, {cols}]] : {padded} -> {loc}
    %part = tg.reduce add %g [0] : {full} -> {col}
{_ring_sources(n, "part", col, "cols")}
    func.return %l, %cols : {loc}, {col}
  }}"""
    return _module(
        n,
        [f"tensor<{rows}x{cols}xf32, {_shard(n)}>"],
        [f"tensor<{rows}x{cols}xf32, {_shard(n)}>", f"tensor<1x{cols}xf32, {_on(n)}>"],
        body,
    )


def mselect_style(n: int) -> str:
    """MSELECT of the last device: select(d == n-1, x, inv), then exp (rule 1 moves the select
    out) and a max over rows (rule 2: the identity -inf on the other devices)."""
    i = n - 1
    ty, col = "tensor<2x3xf32>", "tensor<1x3xf32>"
    body = f"""  func.func @main(%x: {ty}) -> ({ty}, {col}) {{
    %d = devidx.device_num : index
    %ci = arith.constant {i} : index
    %is = arith.cmpi eq, %d, %ci : index
    %inv = devidx.invalid : {ty}
    %s = arith.select %is, %x, %inv : {ty}
    %e = math.exp %s : {ty}
    %m = tg.reduce max %s [0] : {ty} -> {col}
    func.return %e, %m : {ty}, {col}
  }}"""
    return _module(
        n,
        [f"tensor<2x3xf32, {_on(n)}>"],
        [f"tensor<2x3xf32, {_on(n, [i])}>", f"tensor<1x3xf32, {_on(n)}>"],
        body,
    )


def mstack_style(n: int) -> str:
    """MSTACK of one buffer per device: index(stack(a0..a_{n-1}), d), then arithmetic."""
    ty = "tensor<2x3xf32>"
    args = ", ".join(f"%a{k}: {ty}" for k in range(n))
    stack = ", ".join(f"%a{k}" for k in range(n))
    body = f"""  func.func @main({args}) -> {ty} {{
    %d = devidx.device_num : index
    %st = devidx.stack {stack} : {", ".join([ty] * n)} -> tensor<{n}x2x3xf32>
    %ix = devidx.index %st[%d] : tensor<{n}x2x3xf32> -> {ty}
    %two = arith.constant dense<2.0> : {ty}
    %y = arith.mulf %ix, %two : {ty}
    func.return %y : {ty}
  }}"""
    return _module(
        n, [f"tensor<2x3xf32, {_on(n, [k])}>" for k in range(n)], [f"tensor<2x3xf32, {_on(n)}>"], body
    )


def fetch_ring(n: int) -> str:
    """Every device adds its neighbour's buffer: fetch from (d + 1) mod n."""
    ty = "tensor<2x3xf32>"
    body = f"""  func.func @main(%x: {ty}) -> {ty} {{
    %d = devidx.device_num : index
    %c1 = arith.constant 1 : index
    %cn = arith.constant {n} : index
    %s = arith.addi %d, %c1 : index
    %src = arith.remsi %s, %cn : index
    %f = devidx.fetch %x from %src : {ty}
    %y = arith.addf %f, %x : {ty}
    func.return %y : {ty}
  }}"""
    return _module(n, [f"tensor<2x3xf32, {_on(n)}>"], [f"tensor<2x3xf32, {_on(n)}>"], body)


def reduce_of_select(n: int) -> str:
    """Reductions of selects with Invalid: a data-dependent tg.where (positive lanes only) and
    device 0's buffer only (scalar select on d == 0), then a max-allreduce through fetches."""
    ty, b, col = "tensor<4x3xf32>", "tensor<4x3xi1>", "tensor<1x3xf32>"
    body = f"""  func.func @main(%x: {ty}) -> ({col}, {col}, {col}) {{
    %d = devidx.device_num : index
    %c0 = arith.constant 0 : index
    %cn = arith.constant {n} : index
    %inv = devidx.invalid : {ty}
    %z = arith.constant dense<0.0> : {ty}
    %pos = tg.cmp gt %x, %z : {ty} -> {b}
    %w = tg.where %pos, %x, %inv : {b}, {ty}
    %sum = tg.reduce add %w [0] : {ty} -> {col}
    %first = arith.cmpi eq, %d, %c0 : index
    %s = arith.select %first, %x, %inv : {ty}
    %neg = arith.negf %s : {ty}
    %nn = arith.negf %neg : {ty}
    %prod = tg.reduce mul %nn [0] : {ty} -> {col}
    %mx = tg.reduce max %s [0] : {ty} -> {col}
{_ring_sources(n, "mx", col, "gmax", "max")}
    func.return %sum, %prod, %gmax : {col}, {col}, {col}
  }}"""
    return _module(n, [f"tensor<4x3xf32, {_on(n)}>"], [f"tensor<1x3xf32, {_on(n)}>"] * 3, body)


PROGRAMS: dict[str, Callable[[int], str]] = {
    "multi_pad_roundtrip_7_rows": lambda n: multi_pad_roundtrip(n, 7),
    "multi_pad_roundtrip_8_rows": lambda n: multi_pad_roundtrip(n, 8),
    "mselect_style": mselect_style,
    "mstack_style": mstack_style,
    "fetch_ring": fetch_ring,
    "reduce_of_select": reduce_of_select,
}

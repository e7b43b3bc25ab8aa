"""Small multi-level programs, one per lowering rule, generated for any device count.

Each function returns MLIR text with `func.func @main`; tests run it with the reference
interpreter before and after a pass and compare.
"""

from __future__ import annotations

from xdsl_multi.dialects.multi import local_length


def devs(n: int, prefix: str = "CPU") -> list[str]:
    return [f"{prefix}:{i}" for i in range(n)]


def on(names: list[str]) -> str:
    return "#multi.on<[" + ", ".join(f'"{x}"' for x in names) + "]>"


def shard(names: list[str], axis: int) -> str:
    return "#multi.shard<[" + ", ".join(f'"{x}"' for x in names) + f"], axis = {axis}>"


def t(shape: tuple[int, ...], enc: str | None = None, elt: str = "f32") -> str:
    dims = "x".join(str(d) for d in shape)
    body = f"{dims}x{elt}" if shape else elt
    return f"tensor<{body}, {enc}>" if enc else f"tensor<{body}>"


def module(names: list[str], args: list[str], results: list[str], body: str) -> str:
    dev_list = ", ".join(f'"{x}"' for x in names)
    arg_list = ", ".join(f"%a{i}: {ty}" for i, ty in enumerate(args))
    return (
        f"module attributes {{multi.devices = [{dev_list}]}} {{\n"
        f"  func.func @main({arg_list}) -> ({', '.join(results)}) {{\n{body}\n  }}\n}}\n"
    )


def multi_of_buffers(n: int, rows: int, cols: int = 3) -> str:
    """MULTI over n devices of a logical (rows, cols) tensor, then x * x."""
    d = devs(n)
    s = local_length(rows, n)
    src, res = t((s, cols), on(d)), t((rows, cols), shard(d, 0))
    body = (
        f"    %m = multi.multi %a0 axis 0 : {src} -> {res}\n"
        f"    %y = arith.mulf %m, %m : {res}\n"
        f"    func.return %y : {res}"
    )
    return module(d, [src], [res], body)


def mselect(n: int, i: int) -> str:
    d = devs(n)
    src, res = t((2, 3), on(d)), t((2, 3), on([d[i]]))
    body = f"    %s = multi.mselect %a0[{i}] : {src} -> {res}\n    func.return %s : {res}"
    return module(d, [src], [res], body)


def mstack(n: int) -> str:
    d = devs(n)
    parts = [t((2, 3), on([x])) for x in d]
    res = t((2, 3), on(d))
    operands = ", ".join(f"%a{i}" for i in range(n))
    body = (
        f"    %s = multi.mstack {operands} : {', '.join(parts)} -> {res}\n"
        f"    func.return %s : {res}"
    )
    return module(d, parts, [res], body)


def copy(src: str, dst: str, names: list[str]) -> str:
    body = f"    %c = multi.copy %a0 : {src} -> {dst}\n    func.return %c : {dst}"
    return module(names, [src], [dst], body)


def copy_cases(n: int, rows: int) -> dict[str, str]:
    """Every copy kind of SPEC §2 on n devices with a logical (rows, 4) tensor."""
    d = devs(n)
    shape = (rows, 4)
    cases = {
        "gather": copy(t(shape, shard(d, 0)), t(shape, on([d[-1]])), d),
        "all-gather": copy(t(shape, shard(d, 0)), t(shape, on(d)), d),
        "scatter": copy(t(shape, on([d[0]])), t(shape, shard(d, 0)), d),
        "broadcast": copy(t(shape, on([d[0]])), t(shape, on(d)), d),
        "first-buffer-to-one": copy(t(shape, on(d)), t(shape, on([d[-1]])), d),
        "permute": copy(t(shape, on(d)), t(shape, on(d[::-1])), d),
        "keep-slice": copy(t(shape, on(d)), t(shape, shard(d, 0)), d),
        "reshard-axis": copy(t(shape, shard(d, 0)), t(shape, shard(d, 1)), d),
        "reshard-order": copy(t(shape, shard(d, 0)), t(shape, shard(d[::-1], 0)), d),
        "on-to-other-shard": copy(t(shape, on(d)), t(shape, shard(d[::-1], 1)), d),
    }
    if n > 1:
        cases["transfer"] = copy(t(shape, on([d[0]])), t(shape, on([d[1]])), d)
        cases["subset-shard"] = copy(t(shape, shard(d[1:], 0)), t(shape, on([d[0]])), d)
    return cases


def allreduce(n: int, kind: str, shape: tuple[int, ...], elt: str = "f32") -> str:
    d = devs(n)
    ty = t(shape, on(d), elt)
    body = f"    %r = multi.allreduce {kind} %a0 : {ty} -> {ty}\n    func.return %r : {ty}"
    return module(d, [ty], [ty], body)


def allreduce_subset(n: int) -> str:
    """Sources and destinations that are different subsets of the devices."""
    d = devs(n)
    src, dst = t((3, 2), on(d[: n - 1] or d)), t((3, 2), on(d[1:] or d))
    body = f"    %r = multi.allreduce add %a0 : {src} -> {dst}\n    func.return %r : {dst}"
    return module(d, [src], [dst], body)


def reduce_over_shard_axis(n: int, rows: int, kind: str) -> str:
    d = devs(n)
    src, res = t((rows, 5), shard(d, 0)), t((1, 5), on(d))
    body = f"    %r = tg.reduce {kind} %a0 [0] : {src} -> {res}\n    func.return %r : {res}"
    return module(d, [src], [res], body)


def row_ops(n: int, rows: int) -> str:
    """Row-local work on a sharded value: reduce off the axis, expand, elementwise, cmp/where."""
    d = devs(n)
    x, r = t((rows, 6), shard(d, 0)), t((rows, 1), shard(d, 0))
    b = t((rows, 6), shard(d, 0), "i1")
    body = (
        f"    %s = tg.reduce max %a0 [1] : {x} -> {r}\n"
        f"    %e = tg.expand %s : {r} -> {x}\n"
        f"    %y = arith.subf %a0, %e : {x}\n"
        f"    %z = math.exp %y : {x}\n"
        f"    %c = tg.cmp lt %z, %a0 : {x} -> {b}\n"
        f"    %w = tg.where %c, %z, %a0 : {b}, {x}\n"
        f"    %one = arith.constant dense<1.0> : {x}\n"
        f"    %o = arith.addf %w, %one : {x}\n"
        f"    func.return %o : {x}"
    )
    return module(d, [x], [x], body)


def movement(n: int) -> str:
    """Reshape keeping the boundary, permute moving the axis, shrink off the axis, then a
    shrink that selects the second shard."""
    d = devs(n)
    x = t((2 * n, 6), shard(d, 0))
    rs = t((2 * n, 2, 3), shard(d, 0))
    pm = t((3, 2 * n, 2), shard(d, 1))
    sk = t((3, 2 * n, 1), shard(d, 1))
    sel = t((3, 2, 1), on(d))
    if n == 1:  # keeping the whole axis wins: the second shrink would not select a shard
        body = (
            f"    %r = tg.reshape %a0 : {x} -> {rs}\n"
            f"    %p = tg.permute %r [2, 0, 1] : {rs} -> {pm}\n"
            f"    %s = tg.shrink %p [[0, 3], [0, 2], [1, 2]] : {pm} -> {sk}\n"
            f"    func.return %s : {sk}"
        )
        return module(d, [x], [sk], body)
    k = 1
    body = (
        f"    %r = tg.reshape %a0 : {x} -> {rs}\n"
        f"    %p = tg.permute %r [2, 0, 1] : {rs} -> {pm}\n"
        f"    %s = tg.shrink %p [[0, 3], [0, {2 * n}], [1, 2]] : {pm} -> {sk}\n"
        f"    %one = tg.shrink %s [[0, 3], [{2 * k}, {2 * k + 2}], [0, 1]] : {sk} -> {sel}\n"
        f"    func.return %s, %one : {sk}, {sel}"
    )
    return module(d, [x], [sk, sel], body)


def local_of_shard(n: int, rows: int, cols: int = 3, axis: int = 0) -> str:
    """x * x of a (rows, cols) value sharded on `axis` over n devices, then LOCAL of it (the
    local buffers, Invalid past the logical length), +1 and a sum over the shard axis of the
    buffers (the Invalid lanes give +1's results 0 and the sum nothing)."""
    d = devs(n)
    logical = (rows, cols)
    local = list(logical)
    local[axis] = local_length(logical[axis], n)
    summed = list(local)
    summed[axis] = 1
    src, res = t(logical, shard(d, axis)), t(tuple(local), on(d))
    red = t(tuple(summed), on(d))
    body = (
        f"    %y = arith.mulf %a0, %a0 : {src}\n"
        f"    %l = multi.local %y : {src} -> {res}\n"
        f"    %one = arith.constant dense<1.0> : {res}\n"
        f"    %p = arith.addf %l, %one : {res}\n"
        f"    %s = tg.reduce add %l [{axis}] : {res} -> {red}\n"
        f"    func.return %p, %s : {res}, {red}"
    )
    return module(d, [src], [res, red], body)


def sum_to_every_device(n: int, cols: int = 8) -> str:
    """BENCH W6's program, small: x (n, cols) sharded on axis 0 over n devices, summed over
    that axis on every device (an allreduce)."""
    names = devs(n)
    x, s = t((n, cols), shard(names, 0)), t((1, cols), on(names))
    return module(names, [x], [s], f"""\
    %s = tg.reduce add %a0 [0] : {x} -> {s}
    func.return %s : {s}""")

"""Small builders of MLIR text and a runner, so the interpreter's tests stay short."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from xdsl_multi.dialects import make_context
from xdsl_multi.dialects.parsing import parse_mlir
from xdsl_multi.runtime.interpreter.interpreter import InterpStats, run_module


def devs(n: int) -> list[str]:
    return [f"CPU:{i}" for i in range(n)]


def _names(devices: Sequence[str] | int) -> str:
    if isinstance(devices, int):
        devices = devs(devices)
    return "[" + ", ".join(f'"{d}"' for d in devices) + "]"


def on(devices: Sequence[str] | int) -> str:
    return f"#multi.on<{_names(devices)}>"


def shard(devices: Sequence[str] | int, axis: int = 0) -> str:
    return f"#multi.shard<{_names(devices)}, axis = {axis}>"


def t(shape: Sequence[int], elem: str = "f32", enc: str | None = None) -> str:
    """`tensor<4x4xf32>` or `tensor<4x4xf32, ENC>`."""
    dims = "".join(f"{d}x" for d in shape)
    return f"tensor<{dims}{elem}>" if enc is None else f"tensor<{dims}{elem}, {enc}>"


def func(
    args: Sequence[tuple[str, str]],
    body: str,
    results: Sequence[tuple[str, str]],
    name: str = "main",
) -> str:
    """`func.func @main(%a: T, ...) -> (...) { body; func.return ... }`."""
    sig = ", ".join(f"%{n}: {ty}" for n, ty in args)
    outs = ", ".join(ty for _, ty in results)
    ret = ", ".join(f"%{n}" for n, _ in results)
    lines = [f"func.func @{name}({sig}) -> ({outs}) {{"]
    lines += ["  " + line.strip() for line in body.strip().splitlines() if line.strip()]
    lines.append(f"  func.return {ret} : {outs}" if results else "  func.return")
    lines.append("}")
    return "\n".join(lines)


def module(*funcs: str, attrs: str = "") -> str:
    head = f"builtin.module attributes {{{attrs}}} {{" if attrs else "builtin.module {"
    return "\n".join([head, *funcs, "}"])


def parse(text: str) -> ModuleOp:
    m = parse_mlir(make_context(), text)
    m.verify()
    return m


def run(
    text: str,
    *inputs: object,
    num_devices: int | None = None,
    stats: InterpStats | None = None,
) -> list[np.ndarray]:
    return run_module(parse(text), list(inputs), num_devices=num_devices, stats=stats)


def run1(text: str, *inputs: object, **kw: object) -> np.ndarray:
    (out,) = run(text, *inputs, **kw)  # type: ignore[arg-type]
    return out


def unary(op: str, ty: str, result_ty: str | None = None, suffix: str = "") -> str:
    """A module applying `op` to one argument: `%r = OP %a SUFFIX : TY [-> RES]`."""
    types = ty if result_ty is None else f"{ty} to {result_ty}"
    return func([("a", ty)], f"%r = {op} %a{suffix} : {types}", [("r", result_ty or ty)])


def binary(op: str, ty: str) -> str:
    return func([("a", ty), ("b", ty)], f"%r = {op} %a, %b : {ty}", [("r", ty)])


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)

"""The integers in tinygrad's movement-op arguments: static, or a function of the device number.

tinygrad 0.14 writes shapes and bounds as UOps (`CONST`, `STACK` of them, arithmetic on them). The
device number is `RANGE(n, AxisType.DEVICE)`: `Tensor.shard` shrinks each device's copy to
`[d*s, d*s + s)`. Anything else that is not a constant (a `Variable`: a 0-d ALU buffer) is a
symbolic shape, which the IR does not express.
"""

from __future__ import annotations

from collections.abc import Callable

from tinygrad.uop.ops import AxisType, Ops, UOp

from xdsl_multi.frontends.tinygrad.errors import UnsupportedGraph

_ARITH: dict[Ops, Callable[[int, int], int]] = {
    Ops.ADD: lambda a, b: a + b,
    Ops.SUB: lambda a, b: a - b,
    Ops.MUL: lambda a, b: a * b,
    Ops.MAX: max,
    Ops.CDIV: lambda a, b: int(a / b),
    Ops.FLOORDIV: lambda a, b: a // b,
    Ops.CMOD: lambda a, b: a - b * int(a / b),
    Ops.FLOORMOD: lambda a, b: a % b,
}
"""The index arithmetic that appears in bounds (C division and modulo for CDIV, CMOD)."""


def is_device_range(u: UOp) -> bool:
    return u.op is Ops.RANGE and len(u.arg) >= 2 and u.arg[1] is AxisType.DEVICE


def device_count(device_range: UOp) -> int:
    """n of `RANGE(n, DEVICE)`."""
    return int(device_range.vmax) + 1


def evaluate(bound: int | UOp, device: int, op: str) -> int:
    """The value of one bound on device number `device`; `op` names the consumer for the error."""
    if isinstance(bound, int):
        return bound
    if bound.op is Ops.CONST:
        return int(bound.arg)
    if is_device_range(bound):
        return device
    if bound.op in (Ops.CAST, Ops.NOOP) and len(bound.src) == 1:
        return evaluate(bound.src[0], device, op)
    rule = _ARITH.get(bound.op)
    if rule is not None and len(bound.src) == 2:
        return rule(evaluate(bound.src[0], device, op), evaluate(bound.src[1], device, op))
    names = [x.arg.name for x in bound.toposort() if x.op is Ops.BUFFER and x.arg.name]
    what = f"variable {', '.join(names)}" if names else f"a {bound.op.name}"
    raise UnsupportedGraph(op, f"symbolic shape: a bound depends on {what}")


def device_ranges(bound: int | UOp) -> list[UOp]:
    """The device RANGEs a bound depends on."""
    if isinstance(bound, int):
        return []
    return [u for u in bound.toposort() if is_device_range(u)]

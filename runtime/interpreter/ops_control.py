"""Handlers of `func.call` and structured control flow (`scf.if`, `scf.for`, `scf.while`).

They are generators because the code they run may communicate (a fetch inside a loop).
Regions see the values of the enclosing function (one environment per call).
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import func, scf
from xdsl.ir import Operation

from xdsl_multi.runtime.interpreter.machine import ControlHandler, Env, Machine, Run
from xdsl_multi.runtime.values import Value, op_error

MAX_WHILE_ITERATIONS = 10_000_000


def call(m: Machine, op: Operation, args: list[Value], env: Env) -> Run:
    assert isinstance(op, func.CallOp)
    callee = m.lookup_function(op, op.callee.root_reference.data)
    return (yield from m.call(callee, args))


def _condition(op: Operation, v: Value) -> bool:
    if not isinstance(v, np.bool_):
        raise op_error(op, f"the condition must be a scalar i1, found {v!r}")
    return bool(v)


def if_(m: Machine, op: Operation, args: list[Value], env: Env) -> Run:
    assert isinstance(op, scf.IfOp)
    region = op.true_region if _condition(op, args[0]) else op.false_region
    if not region.blocks:
        return []
    return (yield from m.run_block(region.block, [], env))


def _int(op: Operation, v: Value, what: str) -> int:
    if not isinstance(v, np.integer):
        raise op_error(op, f"the {what} must be an integer, found {v!r}")
    return int(v)


def for_(m: Machine, op: Operation, args: list[Value], env: Env) -> Run:
    """for iv = lb; iv < ub; iv += step (signed), carrying the iteration arguments."""
    assert isinstance(op, scf.ForOp)
    lb, ub, step = (
        _int(op, v, w) for v, w in zip(args[:3], ("lower bound", "upper bound", "step"))
    )
    if step <= 0:
        raise op_error(op, f"the step must be positive, found {step}")
    carried = list(args[3:])
    iv_type = type(args[0])
    for i in range(lb, ub, step):
        carried = yield from m.run_block(op.body.block, [iv_type(i), *carried], env)
    return carried


def while_(m: Machine, op: Operation, args: list[Value], env: Env) -> Run:
    assert isinstance(op, scf.WhileOp)
    values = list(args)
    for _ in range(MAX_WHILE_ITERATIONS):
        cond_and_args = yield from m.run_block(op.before_region.block, values, env)
        if not _condition(op, cond_and_args[0]):
            return cond_and_args[1:]
        values = yield from m.run_block(op.after_region.block, cond_and_args[1:], env)
    raise op_error(op, f"no exit after {MAX_WHILE_ITERATIONS} iterations")


CONTROL_HANDLERS: dict[type[Operation], ControlHandler] = {
    func.CallOp: call,
    scf.IfOp: if_,
    scf.ForOp: for_,
    scf.WhileOp: while_,
}

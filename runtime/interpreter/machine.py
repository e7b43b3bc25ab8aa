"""One running program instance: SSA environment, op dispatch, functions and structured control.

A `Machine` runs functions of one module as Python generators. Ops are dispatched by class
through tables (one small handler per op family, in ops_arith.py, ops_tg.py, ops_multi.py).
Ops that talk to other devices (`devidx.fetch`, `send`, `recv`) yield a request to the scheduler
in interpreter.py, which runs several machines together and answers the request; every other
op runs to completion at once.

At the multi level (SPEC §6 level 1) one machine runs the whole program, and an op of arith,
math or tg whose operands include a `#multi.on` value (`OnValue`) is applied to each device's
buffer independently ("lifting"); multi ops see the placed values themselves.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, TensorType, VectorType
from xdsl.ir import Attribute, Block, Operation
from xdsl.traits import SymbolTable

from xdsl_multi.dialects.devidx import DEVICE_ATTR
from xdsl_multi.dialects.element_types import is_bf16
from xdsl_multi.dialects.multi import KERNEL_OF_ATTR, OnAttr, ShardAttr, placement_of
from xdsl_multi.runtime.values import (
    Buffer,
    InterpreterError,
    Lanes,
    OnValue,
    Value,
    dtype_of,
    op_error,
    op_label,
    round_bf16,
)

# ---------------------------------------------------------------------------------------------
# Requests to the scheduler
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FetchRequest:
    """`devidx.fetch`: this device offers its stored instance `value` and asks for `src`'s."""

    op: Operation
    value: Lanes
    src: int


@dataclass(frozen=True)
class SendRequest:
    op: Operation
    dest: int
    channel: int
    value: Lanes


@dataclass(frozen=True)
class RecvRequest:
    op: Operation
    source: int
    channel: int


@dataclass(frozen=True)
class CollectiveRequest:
    """`devidx.allreduce`, `devidx.allgather` or `devidx.broadcast`: this device offers its
    stored instance `value` (and, for an all-gather, its `position` in the result); every
    device gets the reduction, the stack or the root's value (schedulers.py `run_lockstep`)."""

    op: Operation
    value: Lanes
    position: int = 0
    source: int = 0
    """`devidx.alltoall ... from %i rows`: the device's position in the source list."""


Request = FetchRequest | SendRequest | RecvRequest | CollectiveRequest
Run = Generator[Request, Any, list[Value]]
"""A running function or region: yields requests, returns its results."""

Env = dict[Any, Value]
"""The values of one function call, by SSA value (nested regions share their function's)."""
Handler = Callable[["Machine", Operation, list[Value]], list[Value]]
ControlHandler = Callable[["Machine", Operation, list[Value], Env], Run]


# ---------------------------------------------------------------------------------------------
# Statistics
# ---------------------------------------------------------------------------------------------


@dataclass
class InterpStats:
    """What a run did, for tests and reports. Pass one to `run_module(..., stats=...)`.

    - `messages[(src, dst)]`, `elements_sent[(src, dst)]`: transfers between different devices
      (a `devidx.fetch` from another device, a `devidx.send`); not counted at the multi level.
    - `elements_computed[d]`: valid lanes produced by computing ops (arith and math on tensors,
      `tg.cmp`, `tg.where`, `tg.cast`; for `tg.reduce` the valid lanes it reads) on device d.
      At the multi level a `#multi.on` buffer counts for its device and a sharded value for each
      device in proportion to its rows; unplaced values count for device 0.
    """

    messages: dict[tuple[int, int], int] = field(default_factory=dict)
    elements_sent: dict[tuple[int, int], int] = field(default_factory=dict)
    elements_computed: dict[int, int] = field(default_factory=dict)
    lanes_computed: dict[int, int] = field(default_factory=dict)

    def record_message(self, src: int, dst: int, elements: int) -> None:
        self.messages[(src, dst)] = self.messages.get((src, dst), 0) + 1
        self.elements_sent[(src, dst)] = self.elements_sent.get((src, dst), 0) + elements

    def record_compute(self, device: int, elements: int) -> None:
        self.elements_computed[device] = self.elements_computed.get(device, 0) + elements

    @property
    def total_messages(self) -> int:
        return sum(self.messages.values())


def valid_count(x: Lanes) -> int:
    return int(x.data.size if x.valid is None else np.count_nonzero(x.valid))


# ---------------------------------------------------------------------------------------------
# The machine
# ---------------------------------------------------------------------------------------------


@dataclass
class OpTables:
    """The dispatch tables, assembled in interpreter.py.

    `lifted`: handlers of plain values (Lanes and scalars), applied per device to OnValues.
    `placed`: handlers that see placed values (the multi dialect).
    `control`: generator handlers (functions, scf, communication).
    `computing`: op classes whose results count as computed elements in InterpStats.
    """

    lifted: dict[type[Operation], Handler]
    placed: dict[type[Operation], Handler]
    control: dict[type[Operation], ControlHandler]
    computing: frozenset[type[Operation]]




def shared_kernel(declaration: func.FuncOp) -> func.FuncOp | None:
    """The kernel a declaration `{multi.kernel_of = K}` stands for: the function of the same
    name in device module K of the same program (SPMD mode keeps one copy of each kernel).
    None when `declaration` is no such declaration or the kernel is not there."""
    owner = declaration.attributes.get(KERNEL_OF_ATTR)
    if declaration.body.blocks or not isinstance(owner, IntegerAttr):
        return None
    top: Operation = declaration
    while (parent := top.parent_op()) is not None:
        top = parent
    if not isinstance(top, ModuleOp):
        return None
    for op in top.body.block.ops:
        device = op.attributes.get(DEVICE_ATTR)
        if (
            isinstance(op, ModuleOp)
            and isinstance(device, IntegerAttr)
            and device.value.data == owner.value.data
        ):
            found = SymbolTable.lookup_symbol(op, declaration.sym_name.data)
            return found if isinstance(found, func.FuncOp) and found.body.blocks else None
    return None


class Machine:
    """Runs the functions of `symbols` (a module) for one program instance.

    `level` is "multi", "spmd" or "device"; `device` is this instance's number d (None at the
    multi level); `device_names` is the program's device list.
    """

    def __init__(
        self,
        tables: OpTables,
        symbols: ModuleOp,
        level: str,
        device: int | None,
        device_names: list[str],
        stats: InterpStats | None,
    ) -> None:
        self.tables = tables
        self.symbols = symbols
        self.level = level
        self.device = device
        self.device_names = device_names
        self.stats = stats

    # -- functions and blocks -------------------------------------------------------------

    def lookup_function(self, at: Operation, name: str) -> func.FuncOp:
        callee = SymbolTable.lookup_symbol(at, name)
        if isinstance(callee, func.FuncOp):
            callee = shared_kernel(callee) or callee
        if not isinstance(callee, func.FuncOp):
            raise op_error(at, f"no func.func named @{name} in the module")
        if not callee.body.blocks:
            raise op_error(at, f"@{name} is only a declaration; the interpreter needs its body")
        return callee

    def call(self, f: func.FuncOp, args: list[Value]) -> Run:
        block = f.body.block
        if len(args) != len(block.args):
            raise op_error(
                f, f"@{f.sym_name.data} takes {len(block.args)} arguments, got {len(args)}"
            )
        return self.run_block(block, args, {})

    def run_block(self, block: Block, block_args: list[Value], env: Env) -> Run:
        """Run a block to its terminator (func.return, scf.yield, scf.condition); return the
        terminator's operand values. `env` is shared with enclosing blocks of the function."""
        for arg, value in zip(block.args, block_args, strict=True):
            env[arg] = value
        for op in block.ops:
            args = [env[v] for v in op.operands]
            if isinstance(op, func.ReturnOp | scf.YieldOp | scf.ConditionOp):
                return args
            control = self.tables.control.get(type(op))
            if control is not None:
                results = yield from control(self, op, args, env)
            else:
                results = self.apply(op, args)
            if len(results) != len(op.results):
                raise internal(op, f"{len(results)} values for {len(op.results)} results")
            for res, value in zip(op.results, results, strict=True):
                env[res] = self.conform(op, res.type, value)
        parent = block.parent_op()
        raise InterpreterError(
            f"a block of {parent.name if parent else 'a region'} has no terminator"
        )

    # -- one op ---------------------------------------------------------------------------

    def apply(self, op: Operation, args: list[Value]) -> list[Value]:
        placed = self.tables.placed.get(type(op))
        if placed is not None:
            return placed(self, op, args)
        handler = self.tables.lifted.get(type(op))
        if handler is None:
            raise op_error(op, "this op is not supported by the interpreter")
        widths = {len(a.buffers) for a in args if isinstance(a, OnValue)}
        if not widths:
            results = handler(self, op, args)
            self._count(op, args, results, None)
            return results
        if len(widths) != 1:
            raise op_error(op, f"operands are placed on different numbers of devices {widths}")
        (n,) = widths
        per_device = []
        for i in range(n):
            local = [a.buffers[i] if isinstance(a, OnValue) else a for a in args]
            results = handler(self, op, local)
            self._count(op, local, results, i)
            per_device.append(results)
        return [OnValue(tuple(r[j] for r in per_device)) for j in range(len(op.results))]

    def conform(self, op: Operation, t: Attribute, value: Value) -> Value:
        """Give a result the representation its type asks for and check it: a plain value of a
        `#multi.on` type (a reduce over the shard axis, a shrink to one shard, a constant) is
        the same value on each device; bf16 results are rounded; shapes and dtypes must match."""
        enc = placement_of(t) if self.level == "multi" else None
        if isinstance(enc, OnAttr) and isinstance(value, Lanes):
            value = OnValue((value,) * enc.num_devices)
        if isinstance(value, OnValue):
            if not isinstance(enc, OnAttr) or len(value.buffers) != enc.num_devices:
                raise internal(op, f"a value on {len(value.buffers)} devices for type {t}")
            return OnValue(tuple(self._check(op, t, b) for b in value.buffers))
        return self._check(op, t, value)

    def _check(self, op: Operation, t: Attribute, value: Value) -> Value:
        if isinstance(t, MemRefType):
            if not isinstance(value, Buffer):
                raise internal(op, f"result of type {t} is {type(value).__name__}")
            if value.data.shape != tuple(t.get_shape()) or value.data.dtype != dtype_of(t):
                raise op_error(op, f"result of type {t} has shape {value.data.shape}")
            return value
        if isinstance(t, TensorType):
            if not isinstance(value, Lanes):
                raise internal(op, f"result of type {t} is {type(value).__name__}")
            data = value.data
            if is_bf16(t):
                data = round_bf16(data)
                value = Lanes(data, value.valid)
            if data.shape != tuple(t.get_shape()) or data.dtype != dtype_of(t):
                raise op_error(op, f"result of type {t} has shape {data.shape}, dtype {data.dtype}")
            return value
        if isinstance(t, VectorType):  # a vector register tile's value (ops_vector.py)
            if not isinstance(value, np.ndarray):
                raise internal(op, f"result of type {t} is {type(value).__name__}")
            if value.shape != tuple(t.get_shape()) or value.dtype != dtype_of(t.element_type):
                raise op_error(op, f"result of type {t} has shape {value.shape}, dtype {value.dtype}")
            return value
        if not isinstance(value, np.generic):
            raise internal(op, f"result of type {t} is {type(value).__name__}")
        if is_bf16(t):
            value = round_bf16(np.asarray(value))[()]
        if value.dtype != dtype_of(t):
            raise internal(op, f"result of type {t} has dtype {value.dtype}")
        return value

    # -- statistics -----------------------------------------------------------------------

    def _count(self, op: Operation, args: list[Value], results: list[Value], buffer: int | None):
        if self.stats is None or type(op) not in self.tables.computing:
            return
        counted = args[:1] if op.name == "tg.reduce" else results
        lanes = [v for v in counted if isinstance(v, Lanes)]
        if not lanes:
            return
        elements = sum(valid_count(x) for x in lanes)
        if self.level != "multi":
            device = self.device or 0
            self.stats.record_compute(device, elements)
            total = sum(int(x.data.size) for x in lanes)
            self.stats.lanes_computed[device] = self.stats.lanes_computed.get(device, 0) + total
            return
        t = (op.operands[0] if op.name == "tg.reduce" else op.results[0]).type
        enc = placement_of(t)
        if isinstance(enc, OnAttr) and buffer is not None:
            self.stats.record_compute(self._number(enc.device_names[buffer]), elements)
        elif isinstance(enc, ShardAttr) and isinstance(t, TensorType):
            shape = t.get_shape()
            total = math.prod(shape)
            for k, name in enumerate(enc.device_names):
                block = math.prod(hi - lo for lo, hi in enc.block(shape, k))
                share = elements * block // total if total else 0
                self.stats.record_compute(self._number(name), share)
        else:
            self.stats.record_compute(0, elements)

    def _number(self, name: str) -> int:
        return self.device_names.index(name) if name in self.device_names else 0


def internal(op: Operation, message: str) -> RuntimeError:
    """A broken invariant of the interpreter itself (a bug, not a problem of the program)."""
    return RuntimeError(f"interpreter bug at {op_label(op)}: {message}")


def no_requests(run: Run, what: str) -> list[Value]:
    """Drive a run that must not communicate (the multi level); return its results."""
    try:
        request = next(run)
    except StopIteration as stop:
        return stop.value
    raise op_error(request.op, f"{request.op.name} cannot run at {what}")


def check_int_operand(op: Operation, v: Value, what: str) -> int:
    if not isinstance(v, np.integer):
        raise InterpreterError(f"{op.name}: {what} must be an integer scalar, found {v!r}")
    return int(v)

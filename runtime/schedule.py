"""A device's host schedule as a list of steps, read once from the kernel-level IR, and the
checks and plans that need every device's schedule.

The host schedule of device K is `func.func @main` of `builtin.module @device_K`:

```mlir
func.func @main(%x: memref<4x16xf32>) -> memref<4x16xf32> {
  %y = memref.alloc() : memref<4x16xf32>
  func.call @kernel0(%x, %y) : (memref<4x16xf32>, memref<4x16xf32>) -> ()
  devidx.send %y to 1 channel 0 : memref<4x16xf32>
  %z = devidx.recv from 1 channel 0 : memref<4x16xf32>
  memref.dealloc %y : memref<4x16xf32>
  func.return %z : memref<4x16xf32>
}
```

An SPMD module (form-kernels{spmd=true}, attribute `devidx.spmd`) has ONE host schedule in
the top module, which every device runs with its own d (`devidx.device_num`): it is read once
(`read_spmd_schedule`) and instantiated per device (`instantiate`): its index arithmetic is
evaluated with that d, each `devidx.fetch` becomes that device's sends (to the devices whose
source it is) and its receive, and each `devidx.allreduce` stays one `Collective` step that
the backend runs (threads: in shared memory; mpi: MPI_Allreduce).

Each op becomes one step (`Alloc`, `Call`, `Send`, `Recv`, `Copy`); `arith.constant` gives a
kernel's scalar argument; `memref.dealloc` is checked (nothing uses the buffer after it) and
replaced by a `Free` step after each buffer's last use, which the runtime computes itself.
Values live in numbered registers: @main's arguments first.

`compile_schedules` reads every device, then checks what only the whole program shows: every
send has its receive with the same buffer type, and no device waits for a message that is
never sent (a simulation with buffered sends). It decides which sends hand their buffer over
and which copy it (a buffer may be shared only while nobody writes it), and plans each device's
memory (buffers.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from xdsl.dialects import arith, func, llvm, memref
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    FunctionType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Operation, SSAValue
from xdsl.traits import SymbolTable

from xdsl_multi.dialects.devidx import SPMD_ATTR, AllreduceOp, LookupOp, mesh_group
from xdsl_multi.dialects.element_types import INDEX_BINARY, INDEX_COMPARE
from xdsl_multi.dialects.multi import SIGNATURE_ATTR, listed_devices, placement_of
from xdsl_multi.lowering.kernel_facts import written_arguments
from xdsl_multi.runtime.buffers import (
    BufferType,
    Lifetime,
    MemoryPlan,
    UnsupportedType,
    element_dtype,
    plan_memory,
)
from xdsl_multi.runtime.interpreter.device_runs import device_modules
from xdsl_multi.runtime.kernels import defined_llvm_functions, find_kernel_ir

Backend = Literal["threads", "mpi"]
"""What a plan is for: with `threads` a receive hands over the sender's array (it allocates
nothing); with `mpi` it lands in a buffer of the receiver's."""


class ScheduleError(Exception):
    """A host schedule the runtime cannot run (a user error of the program, or of a pass)."""


# ---------------------------------------------------------------------------------------------
# Steps
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Alloc:
    """`memref.alloc`: register `reg` gets a buffer of `btype` (a planned slot)."""

    reg: int
    btype: BufferType

    def describe(self) -> str:
        return f"alloc {self.btype}"


@dataclass(frozen=True)
class Call:
    """`func.call @name(args)`: run kernel `name` on registers `args` in place."""

    name: str
    args: tuple[int, ...]

    def describe(self) -> str:
        return f"call @{self.name}"


@dataclass(frozen=True)
class Send:
    """`devidx.send`: send register `reg` to device `dest`; `copy` sends a copy (someone
    writes the buffer while the other side may still read it)."""

    reg: int
    dest: int
    channel: int
    btype: BufferType
    copy: bool = False

    def describe(self) -> str:
        return f"send to device {self.dest} channel {self.channel}"


@dataclass(frozen=True)
class Recv:
    """`devidx.recv`: register `reg` gets the next message from `source` on `channel`."""

    reg: int
    source: int
    channel: int
    btype: BufferType

    def describe(self) -> str:
        return f"recv from device {self.source} channel {self.channel}"


@dataclass(frozen=True)
class Copy:
    """`memref.copy %src, %dst`."""

    src: int
    dst: int

    def describe(self) -> str:
        return "memref.copy"


@dataclass(frozen=True)
class Collective:
    """`devidx.allreduce`, `devidx.allgather` or `devidx.broadcast` (`op`): register `out`
    (a buffer of `btype`) gets the `kind` reduction of every device's register `reg`, their
    stack (device e's block at entry `positions[e]`) or device `root`'s; `seq` numbers the
    collectives of the schedule (the same on every device). `devidx.gather`: only device
    `root` gets the stack (the others zeros); `devidx.scatter`: device e gets entry
    `positions[e]` of the root's register; `devidx.alltoall`: entry `positions[j]` of device
    e's register goes to entry `positions[e]` of device j's `out`. An allreduce with
    `members` reduces only those devices' registers (in that order) into theirs; the other
    devices' `out` is zeros."""

    reg: int
    out: int
    kind: str
    algorithm: str
    btype: BufferType
    seq: int
    op: Literal["allreduce", "allgather", "broadcast", "gather", "scatter", "alltoall"] = "allreduce"
    root: int = 0
    position: int = -1
    """allgather, gather, scatter, alltoall, before `instantiate`: the register that holds
    this device's position."""
    positions: tuple[int, ...] = ()
    """The same, after `instantiate`: every device's position (a permutation of [0, N))."""
    entries: int = 0
    """The same: the leading axis of the stacked buffer (the input of a scatter or an
    all-to-all, the output of the others), N devices' entries."""
    group_mesh: tuple[int, ...] = ()
    group_dims: tuple[int, ...] = ()
    """A grouped allreduce (`groups [..] over [..]`, SPEC §1.1): device d reduces over
    `group(d)` only; () : every device."""

    def group(self, d: int, n: int) -> list[int]:
        """The devices device d's allreduce combines, in device order."""
        if not self.group_mesh:
            return list(range(n))
        return mesh_group(self.group_mesh, self.group_dims, d)

    def color(self, d: int) -> int:
        """A number shared by exactly the devices of d's group (the group's first device)."""
        return self.group(d, 0)[0] if self.group_mesh else 0
    members: tuple[int, ...] = ()
    """allreduce: the devices that take part, in reduction order (empty: every device)."""
    rows: tuple[int, ...] = ()
    """alltoall `from %i rows S -> T of L`: (S, T, L); device e's register holds rows
    [sources[e]*S, +S) of an L-row value, device d's `out` gets rows [positions[d]*T, +T)."""
    source: int = -1
    """alltoall `from %i` (either form), before `instantiate`: the register of this device's
    `from` position (-1: none, the senders are placed by `positions`)."""
    sources: tuple[int, ...] = ()
    """The same, after `instantiate`: every device's `from` position."""

    @property
    def hierarchical(self) -> bool:
        """A grouped allreduce with algorithm hierarchical (multi_to_devidx/hierarchical.py):
        reduce in d's minor group (the reduced mesh dims but the first) to its leader
        (coordinate 0 there), allreduce across the leaders along the first reduced dim,
        broadcast back from the leader."""
        return self.algorithm == "hierarchical" and len(self.group_dims) >= 2

    def minor_group(self, d: int) -> list[int]:
        """d's group over the minor reduced dims, in device order; its first is the leader."""
        return mesh_group(self.group_mesh, sorted(self.group_dims)[1:], d)

    def leaders(self, d: int) -> list[int]:
        """The leaders of the minor groups in d's group, in device order."""
        return mesh_group(self.group_mesh, sorted(self.group_dims)[:1], self.minor_group(d)[0])

    def describe(self) -> str:
        if self.op == "allreduce":
            over = f" over devices {list(self.members)}" if self.members else ""
            return f"allreduce {self.kind} ({self.algorithm}){over}"
        if self.op == "broadcast":
            return f"broadcast from device {self.root}"
        if self.op in ("gather", "scatter"):
            return f"{self.op} (root device {self.root})"
        return self.op


@dataclass(frozen=True)
class Free:
    """The last use of these registers was the step before: drop them."""

    regs: tuple[int, ...]

    def describe(self) -> str:
        return "free"


Step = Alloc | Call | Send | Recv | Copy | Collective | Free


@dataclass(frozen=True)
class ArgSpec:
    """An argument of @main: a buffer type, or a scalar of a numpy dtype (`btype.shape == ()`
    and `scalar`)."""

    btype: BufferType
    scalar: bool = False


@dataclass(frozen=True)
class DeviceSchedule:
    """Device `device`'s host schedule: registers 0..len(args)-1 are @main's arguments,
    `constants` are preset registers (kernel scalars), `results` the returned registers."""

    device: int
    args: tuple[ArgSpec, ...]
    steps: tuple[Step, ...]
    results: tuple[int, ...]
    num_regs: int
    constants: Mapping[int, int | float]
    kernel_names: tuple[str, ...]
    written: Mapping[str, frozenset[int]] = field(default_factory=dict)
    """Per kernel, the argument positions it may write (all, when its IR was not found)."""
    plan: MemoryPlan = field(default_factory=lambda: MemoryPlan({}, (), 0))

    def describe(self, index: int) -> str:
        return f"step {index} ({self.steps[index].describe()})"

    def step_reg_types(self) -> dict[int, BufferType]:
        """The buffer type of every register that holds a buffer."""
        types = {i: a.btype for i, a in enumerate(self.args) if not a.scalar}
        for s in self.steps:
            if isinstance(s, Alloc | Recv):
                types[s.reg] = s.btype
            elif isinstance(s, Collective):
                types[s.out] = s.btype
        return types


# ---------------------------------------------------------------------------------------------
# Reading one device's @main
# ---------------------------------------------------------------------------------------------

_SEND, _RECV = "devidx.send", "devidx.recv"


def read_schedule(module: ModuleOp, device: int, entry: str = "main") -> DeviceSchedule:
    """The steps of `@entry` in device module `module` (without plan or copy decisions)."""
    f = SymbolTable.lookup_symbol(module, entry)
    if not isinstance(f, func.FuncOp) or not f.body.blocks:
        raise ScheduleError(f"device {device}: no func.func @{entry} with a body")
    if len(f.body.blocks) != 1:
        raise ScheduleError(f"device {device}: @{entry} must be one block (a host schedule)")
    block = f.body.block
    reader = _Reader(device, entry)
    args = tuple(reader.argument(a) for a in block.args)
    for op in block.ops:
        reader.op(op)
    if reader.results is None:
        raise ScheduleError(f"device {device}: @{entry} does not end with func.return")
    steps = _insert_frees(reader.steps, reader.results, len(args), reader.deallocated)
    kernel_names = tuple(dict.fromkeys(s.name for s in steps if isinstance(s, Call)))
    return DeviceSchedule(
        device,
        args,
        steps,
        reader.results,
        reader.num_regs,
        reader.constants,
        kernel_names,
    )


@dataclass(frozen=True)
class Fetch:
    """`devidx.fetch` in an SPMD host schedule (before `instantiate`): register `out` gets
    the register `reg` of the device that register `src` names; `channel` numbers the
    fetches of the schedule."""

    reg: int
    src: int
    out: int
    btype: BufferType
    channel: int


def _select(c: int, a: int, b: int) -> int:
    return a if c else b


@dataclass(frozen=True)
class _Lookup:
    """`devidx.lookup %i in [...]` of a host schedule: table[i], i checked."""

    table: tuple[int, ...]

    def __call__(self, i: int) -> int:
        if not 0 <= i < len(self.table):
            raise ScheduleError(
                f"devidx.lookup: index {i} is outside the table of {len(self.table)} entries"
            )
        return self.table[i]


@dataclass(frozen=True)
class ScalarOp:
    """Index arithmetic of an SPMD host schedule: register `reg` = `fn(operand registers)`."""

    reg: int
    fn: Callable[..., int]
    operands: tuple[int, ...]




@dataclass(frozen=True)
class SpmdSchedule:
    """The one host schedule of an SPMD module, before `instantiate` gives each device its
    own: `device_reg` holds d, `scalars` compute the index registers from it, and `steps` may
    hold `Fetch` steps."""

    schedule: DeviceSchedule
    device_reg: int
    scalars: tuple[ScalarOp, ...]

    def scalar_values(self, d: int) -> dict[int, int | float]:
        """Every preset register (constants, d, index arithmetic) on device d."""
        values: dict[int, int | float] = dict(self.schedule.constants)
        values[self.device_reg] = d
        for s in self.scalars:
            values[s.reg] = int(s.fn(*(values[r] for r in s.operands)))
        return values


class _Reader:
    def __init__(self, device: int, entry: str, spmd: bool = False) -> None:
        self.spmd = spmd
        self.scalars: list[ScalarOp] = []
        self.device_reg: int | None = None
        self.fetches = 0
        self.collectives = 0
        self.device = device
        self.entry = entry
        self.regs: dict[SSAValue, int] = {}
        self.num_regs = 0
        self.steps: list[Step] = []
        self.constants: dict[int, int | float] = {}
        self.results: tuple[int, ...] | None = None
        self.deallocated: dict[int, int] = {}
        """register -> number of steps before its dealloc."""

    def fail(self, op: Operation | None, message: str) -> ScheduleError:
        where = f" at {op.name}" if op is not None else ""
        return ScheduleError(f"device {self.device}: @{self.entry}{where}: {message}")

    def new_reg(self, value: SSAValue) -> int:
        self.regs[value] = reg = self.num_regs
        self.num_regs += 1
        return reg

    def reg(self, op: Operation, value: SSAValue) -> int:
        reg = self.regs.get(value)
        if reg is None:
            raise self.fail(op, "uses a value that is not a buffer of the schedule")
        if reg in self.deallocated:
            raise self.fail(op, "uses a buffer after its memref.dealloc")
        return reg

    def btype(self, op: Operation | None, t: object) -> BufferType:
        try:
            return BufferType.of(t)  # type: ignore[arg-type]
        except UnsupportedType as e:
            raise self.fail(op, str(e)) from None

    def _position_reg(self, op: Operation, operand: int = 1) -> int:
        reg = self.regs.get(op.operands[operand])
        if reg is None:
            raise self.fail(op, "its position is not a scalar of the schedule")
        return reg

    def argument(self, arg: SSAValue) -> ArgSpec:
        self.new_reg(arg)
        if isinstance(arg.type, MemRefType):
            return ArgSpec(self.btype(None, arg.type))
        try:
            return ArgSpec(BufferType((), element_dtype(arg.type)), scalar=True)
        except UnsupportedType as e:
            raise self.fail(None, f"argument of type {arg.type}: {e}") from None

    def op(self, op: Operation) -> None:
        if self.results is not None:
            raise self.fail(op, "ops after func.return")
        if isinstance(op, memref.AllocOp):
            if op.dynamic_sizes or op.symbol_operands:
                raise self.fail(op, "dynamic sizes are not supported")
            self.steps.append(Alloc(self.new_reg(op.memref), self.btype(op, op.memref.type)))
        elif isinstance(op, func.CallOp):
            if op.results:
                raise self.fail(op, f"kernel @{op.callee.string_value()} must return nothing")
            args = tuple(self.reg(op, a) for a in op.arguments)
            self.steps.append(Call(op.callee.string_value(), args))
        elif op.name == _SEND:
            value = op.operands[0]
            self.steps.append(
                Send(
                    self.reg(op, value),
                    _int_prop(op, "dest"),
                    _int_prop(op, "channel"),
                    self.btype(op, value.type),
                )
            )
        elif op.name == _RECV:
            result = op.results[0]
            btype = self.btype(op, result.type)
            src, channel = _int_prop(op, "source"), _int_prop(op, "channel")
            self.steps.append(Recv(self.new_reg(result), src, channel, btype))
        elif isinstance(op, memref.CopyOp):
            self.steps.append(Copy(self.reg(op, op.source), self.reg(op, op.destination)))
        elif self.spmd and op.name == "devidx.device_num":
            self.device_reg = self.new_reg(op.results[0])
        elif self.spmd and op.name == "devidx.fetch":
            value, src = op.operands
            btype = self.btype(op, value.type)
            self.steps.append(
                Fetch(
                    self.reg(op, value),
                    self.reg(op, src),
                    self.new_reg(op.results[0]),
                    btype,
                    self.fetches,
                )
            )
            self.fetches += 1
        elif op.name == "devidx.allreduce":
            value = op.operands[0]
            mesh, dims = op.groups if isinstance(op, AllreduceOp) and op.groups else ((), ())
            self.steps.append(
                Collective(
                    self.reg(op, value),
                    self.new_reg(op.results[0]),
                    _str_prop(op, "kind"),
                    _str_prop(op, "algorithm"),
                    self.btype(op, value.type),
                    self.collectives,
                    group_mesh=mesh,
                    group_dims=dims,
                    members=_members_prop(op),
                )
            )
            self.collectives += 1
        elif op.name in _POSITIONED or op.name == "devidx.broadcast":
            kind = op.name.removeprefix("devidx.")
            placed = op.name in _POSITIONED
            if placed and not self.spmd:
                raise self.fail(op, f"{kind} needs an SPMD schedule (its positions)")
            result = op.results[0]
            self.steps.append(
                Collective(
                    self.reg(op, op.operands[0]),
                    self.new_reg(result),
                    "",
                    "",
                    self.btype(op, result.type),
                    self.collectives,
                    kind,  # type: ignore[arg-type]
                    _int_prop(op, "root") if "root" in op.properties else 0,
                    self._position_reg(op) if placed else -1,
                    entries=_entries(op) if placed else 0,
                    rows=_rows_prop(op),
                    source=self._position_reg(op, 2) if len(op.operands) > 2 else -1,
                )
            )
            self.collectives += 1
        elif self.spmd and isinstance(op, LookupOp):
            operand = self.regs.get(op.index)
            if operand is None:
                raise self.fail(op, "uses a value that is not a scalar of the schedule")
            self.scalars.append(ScalarOp(self.new_reg(op.result), _Lookup(op.values), (operand,)))
        elif self.spmd and isinstance(op, (*INDEX_BINARY, arith.SelectOp, arith.CmpiOp)):
            operands = tuple(self.regs[v] for v in op.operands if v in self.regs)
            if len(operands) != len(op.operands):
                raise self.fail(op, "uses a value that is not a scalar of the schedule")
            fn = (
                INDEX_COMPARE[arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]]
                if isinstance(op, arith.CmpiOp)
                else _select
                if isinstance(op, arith.SelectOp)
                else INDEX_BINARY[type(op)]
            )
            self.scalars.append(ScalarOp(self.new_reg(op.results[0]), fn, operands))
        elif isinstance(op, memref.DeallocOp):
            self.deallocated[self.reg(op, op.memref)] = len(self.steps)
        elif isinstance(op, arith.ConstantOp):
            value = op.value
            if isinstance(value, IntegerAttr | FloatAttr):
                self.constants[self.new_reg(op.result)] = value.value.data
            else:
                raise self.fail(op, f"only scalar constants are supported, found {value}")
        elif isinstance(op, func.ReturnOp):
            self.results = tuple(self.reg(op, a) for a in op.arguments)
        else:
            raise self.fail(
                op,
                "not a host-schedule op (expected memref.alloc/dealloc/copy, func.call, "
                "devidx.send/recv, arith.constant, func.return)",
            )


def _str_prop(op: Operation, name: str) -> str:
    attr = op.properties.get(name)
    if not isinstance(attr, StringAttr):
        raise ScheduleError(f"{op.name}: missing string property '{name}'")
    return attr.data


def _members_prop(op: Operation) -> tuple[int, ...]:
    """An allreduce's `members` table (empty: every device)."""
    members = op.properties.get("members")
    if members is None:
        return ()
    assert isinstance(members, DenseArrayBase)
    return tuple(int(v) for v in members.get_values())


def _rows_prop(op: Operation) -> tuple[int, ...]:
    """An alltoall's `rows S -> T of L` (empty: the stacked form)."""
    rows = op.properties.get("rows")
    if rows is None:
        return ()
    assert isinstance(rows, DenseArrayBase)
    return tuple(int(v) for v in rows.get_values())


def _int_prop(op: Operation, name: str) -> int:
    attr = op.properties.get(name)
    if attr is None:
        attr = op.attributes.get(name)
    if not isinstance(attr, IntegerAttr):
        raise ScheduleError(f"{op.name}: missing integer property '{name}'")
    return attr.value.data


def _insert_frees(
    steps: list[Step], results: tuple[int, ...], num_args: int, deallocated: dict[int, int]
) -> tuple[Step, ...]:
    """Add a `Free` after the last use of every buffer made by the schedule (arguments and
    results belong to the caller). A dealloc'd buffer is freed there at the latest."""
    last_use: dict[int, int] = {}
    for i, s in enumerate(steps):
        for reg in _regs_of(s):
            last_use[reg] = i
    for reg in results:
        last_use.pop(reg, None)
    frees: dict[int, list[int]] = {}
    for reg, i in last_use.items():
        if reg >= num_args:
            frees.setdefault(i, []).append(reg)
    out: list[Step] = []
    for i, s in enumerate(steps):
        out.append(s)
        if i in frees:
            out.append(Free(tuple(sorted(frees[i]))))
    return tuple(out)


def _regs_of(step: Step) -> tuple[int, ...]:
    if isinstance(step, Alloc | Recv | Send):
        return (step.reg,)
    if isinstance(step, Collective):
        return (step.reg, step.out)
    if isinstance(step, Call):
        return step.args
    if isinstance(step, Copy):
        return (step.src, step.dst)
    return step.regs


def is_spmd_module(module: ModuleOp) -> bool:
    """One host schedule for every device (form-kernels{spmd=true})."""
    return SPMD_ATTR in module.attributes


def num_devices(module: ModuleOp) -> int:
    """The devices a kernel-level program runs on: its device modules, or the length of
    `multi.devices` for an SPMD module."""
    if is_spmd_module(module):
        return len(listed_devices(module) or ()) or 1
    return len(device_modules(module))


def held_results(module: ModuleOp, n: int) -> list[frozenset[int]] | None:
    """Per device, the positions of @main's results it holds: all, but for a result placed
    (`multi.signature`) on devices of `multi.devices` other than it."""
    sig = module.attributes.get(SIGNATURE_ATTR)
    names = listed_devices(module) or ()
    if not isinstance(sig, FunctionType) or len(names) != n:
        return None  # (every device holds every result)
    out = []
    for d in range(n):
        held = set()
        for k, t in enumerate(sig.outputs.data):
            enc = placement_of(t)
            if enc is None or names[d] in enc.device_names:
                held.add(k)
        out.append(frozenset(held))
    return out


def read_spmd_schedule(module: ModuleOp, entry: str = "main") -> SpmdSchedule:
    """The one host schedule of an SPMD module (its top-level `@entry`), read once."""
    f = SymbolTable.lookup_symbol(module, entry)
    if not isinstance(f, func.FuncOp) or not f.body.blocks or len(f.body.blocks) != 1:
        raise ScheduleError(f"the SPMD module has no one-block func.func @{entry}")
    reader = _Reader(0, entry, spmd=True)
    args = tuple(reader.argument(a) for a in f.body.block.args)
    for op in f.body.block.ops:
        reader.op(op)
    if reader.results is None:
        raise ScheduleError(f"@{entry} does not end with func.return")
    device_reg = reader.device_reg
    if device_reg is None:  # a schedule that never needs d
        device_reg = reader.num_regs
        reader.num_regs += 1
    sched = DeviceSchedule(
        0, args, tuple(reader.steps), reader.results, reader.num_regs, reader.constants,
        tuple(dict.fromkeys(s.name for s in reader.steps if isinstance(s, Call))),
    )
    return SpmdSchedule(sched, device_reg, tuple(reader.scalars))


def _renamed(step: Step, rename: Mapping[int, int]) -> Step:
    """`step` with the registers it reads renamed (a fetch from oneself is its value)."""
    if not rename:
        return step
    r = lambda reg: rename.get(reg, reg)
    if isinstance(step, Call):
        return replace(step, args=tuple(r(a) for a in step.args))
    if isinstance(step, Send):
        return replace(step, reg=r(step.reg))
    if isinstance(step, Copy):
        return replace(step, src=r(step.src), dst=r(step.dst))
    if isinstance(step, Collective):
        return replace(step, reg=r(step.reg))
    if isinstance(step, Fetch):
        return replace(step, reg=r(step.reg))
    return step


def _liveness(
    base: DeviceSchedule, values: Mapping[int, int | float], held: frozenset[int],
    sends: set[int],
) -> tuple[set[int], dict[int, bool]]:
    """On one device: the steps (by index) of the SPMD schedule that compute nothing it
    returns, sends (`sends`: the fetch channels others fetch from it) or reduces, and for each
    fetch whether the device reads what it fetches."""
    live = {r for k, r in enumerate(base.results) if k in held}
    dead: set[int] = set()
    needed: dict[int, bool] = {}
    for i in range(len(base.steps) - 1, -1, -1):
        s = base.steps[i]
        if isinstance(s, Call):
            buffers = [a for a in s.args if a not in values]
            if buffers and buffers[-1] not in live:  # (its output: the last buffer argument)
                dead.add(i)
                continue
            live.update(s.args)
        elif isinstance(s, Fetch):
            needed[s.channel] = s.out in live
            if needed[s.channel] or s.channel in sends:
                live.add(s.reg)
        elif isinstance(s, Collective):
            live.add(s.reg)
        elif isinstance(s, Copy) and s.dst in live:
            live.add(s.src)
    for i, s in enumerate(base.steps):
        if isinstance(s, Alloc) and s.reg not in live and s.reg not in base.results:
            dead.add(i)
    return dead, needed


def instantiate(
    spmd: SpmdSchedule, n: int, held: Sequence[frozenset[int]] | None = None
) -> list[DeviceSchedule]:
    """Every device's schedule from the one SPMD schedule: index registers evaluated with its
    d, each fetch its sends (to the devices whose source it is) and its receive (or, from
    itself, the value). Each fetch's source table is computed once for all devices.
    `held[d]`: the result positions device d holds (default all); what only the others'
    results need is not computed there, and a fetch whose value a device does not read is
    no message (repeated until no message is unread, as the specialized mode does)."""
    everything = frozenset(range(len(spmd.schedule.results)))
    held = held if held is not None else [everything] * n
    values = [spmd.scalar_values(d) for d in range(n)]
    fetch_steps = [s for s in spmd.schedule.steps if isinstance(s, Fetch)]
    sources = {f.channel: [int(values[e][f.src]) for e in range(n)] for f in fetch_steps}
    for f in fetch_steps:
        bad = [(e, s) for e, s in enumerate(sources[f.channel]) if not 0 <= s < n]
        if bad:
            raise ScheduleError(
                f"device {bad[0][0]}: devidx.fetch (channel {f.channel}) fetches from device "
                f"{bad[0][1]}, outside [0, {n})"
            )
    fetchers: dict[int, dict[int, list[int]]] = {}
    for channel, table in sources.items():
        by_src: dict[int, list[int]] = {}
        for e, s in enumerate(table):
            if s != e:
                by_src.setdefault(s, []).append(e)
        fetchers[channel] = by_src
    out = []
    base = spmd.schedule
    positions = _collective_positions(base, values, n)
    wants = {ch: [True] * n for ch in sources}
    """wants[channel][e]: device e reads what it fetches on that channel."""

    def sends_of(d: int) -> set[int]:
        return {
            ch for ch, by_src in fetchers.items() if any(wants[ch][e] for e in by_src.get(d, ()))
        }

    changed = True
    while changed:
        changed = False
        for d in range(n):
            _, needed = _liveness(base, values[d], held[d], sends_of(d))
            for ch, reads in needed.items():
                if not reads and wants[ch][d]:
                    wants[ch][d] = False
                    changed = True
    for d in range(n):
        dead, _ = _liveness(base, values[d], held[d], sends_of(d))
        rename: dict[int, int] = {}
        steps: list[Step] = []
        for i, step in enumerate(base.steps):
            if i in dead:
                continue
            step = _renamed(step, rename)
            if isinstance(step, Collective) and step.seq in positions:
                at, senders = positions[step.seq]
                step = replace(step, positions=at, sources=senders)
            if isinstance(step, Fetch):
                for dest in fetchers[step.channel].get(d, ()):
                    if wants[step.channel][dest]:
                        steps.append(Send(step.reg, dest, step.channel, step.btype))
                src = sources[step.channel][d]
                if src == d or not wants[step.channel][d]:
                    rename[step.out] = step.reg
                else:
                    steps.append(Recv(step.out, src, step.channel, step.btype))
            else:
                steps.append(step)
        results = tuple(rename.get(r, r) for r in base.results)
        results = _distinct_results(steps, results, base)
        out.append(
            replace(
                base,
                device=d,
                steps=_insert_frees(steps, results, len(base.args), {}),
                results=results,
                num_regs=base.num_regs + len(results),
                constants=values[d],
            )
        )
    return out


_POSITIONED = ("devidx.allgather", "devidx.gather", "devidx.scatter", "devidx.alltoall")
"""The collectives whose operand 1 is the device's position."""


def _entries(op: Operation) -> int:
    """The leading axis of a positioned collective's stacked operand or result."""
    stacked = op.operands[0] if op.name == "devidx.scatter" else op.results[0]
    t = stacked.type
    return t.get_shape()[0] if isinstance(t, MemRefType) and t.get_shape() else 0


def _collective_positions(
    base: DeviceSchedule, values: Sequence[Mapping[int, int | float]], n: int
) -> dict[int, tuple[tuple[int, ...], tuple[int, ...]]]:
    """Per positioned collective (by `seq`), every device's position, checked to be a
    permutation of [0, N) matching the result's N entries, and (an alltoall's `from`) every
    device's source position (else empty); a broadcast's root must be a device."""
    out: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}
    for s in base.steps:
        if not isinstance(s, Collective):
            continue
        if s.op in ("broadcast", "gather", "scatter") and not 0 <= s.root < n:
            raise ScheduleError(
                f"devidx.{s.op} (collective {s.seq}) has root device {s.root}, "
                f"outside [0, {n})"
            )
        if s.group_mesh and math.prod(s.group_mesh) != n:
            raise ScheduleError(
                f"devidx.allreduce (collective {s.seq}) has groups on the mesh "
                f"{list(s.group_mesh)} of {math.prod(s.group_mesh)} devices, but the program "
                f"runs on {n}"
            )
        outside = [m for m in s.members if not 0 <= m < n]
        if outside:
            raise ScheduleError(
                f"devidx.allreduce (collective {s.seq}) has member device {outside[0]}, "
                f"outside [0, {n})"
            )
        if s.op in ("allreduce", "broadcast"):
            continue
        table = tuple(int(values[e][s.position]) for e in range(n))
        if s.source >= 0:
            sources = tuple(int(values[e][s.source]) for e in range(n))
            for name, t in (("at", table), ("from", sources)):
                if sorted(t) != list(range(n)):
                    raise ScheduleError(
                        f"devidx.alltoall (collective {s.seq}): the devices' {name} positions "
                        f"{list(t)} are not a permutation of [0, {n})"
                    )
            if s.rows:
                out[s.seq] = (table, sources)
                continue
        else:
            sources = ()
        if sorted(table) != list(range(n)) or s.entries != n:
            raise ScheduleError(
                f"devidx.{s.op} (collective {s.seq}): the devices' positions {list(table)} "
                f"are not a permutation of the {s.entries} entries of its stacked buffer "
                f"({n} devices)"
            )
        out[s.seq] = (table, sources)
    return out


def _distinct_results(
    steps: list[Step], results: tuple[int, ...], base: DeviceSchedule
) -> tuple[int, ...]:
    """Results never alias an argument or each other (form-kernels' rule), also where a
    fetch from oneself made two of them one register: a copy then."""
    types = base.step_reg_types()
    for s in steps:
        if isinstance(s, Fetch):
            types[s.out] = s.btype
    seen: set[int] = set()
    out = []
    for k, reg in enumerate(results):
        if reg < len(base.args) or reg in seen:
            fresh = base.num_regs + k
            steps.append(Alloc(fresh, types[reg]))
            steps.append(Copy(reg, fresh))
            reg = fresh
        seen.add(reg)
        out.append(reg)
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# Every device together
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Message:
    src: int
    dest: int
    channel: int
    send_step: int
    recv_step: int
    btype: BufferType


def match_messages(schedules: Sequence[DeviceSchedule]) -> list[_Message]:
    """Pair the k-th send from S to D on channel C with the k-th receive of D from S on C;
    every send must have its receive, with the same buffer type."""
    n = len(schedules)
    sends: dict[tuple[int, int, int], list[tuple[int, Send]]] = {}
    recvs: dict[tuple[int, int, int], list[tuple[int, Recv]]] = {}
    for sched in schedules:
        for i, s in enumerate(sched.steps):
            if isinstance(s, Send):
                if not 0 <= s.dest < n:
                    raise ScheduleError(
                        f"device {sched.device}: {sched.describe(i)}: there is no device "
                        f"{s.dest} ({n} devices)"
                    )
                sends.setdefault((sched.device, s.dest, s.channel), []).append((i, s))
            elif isinstance(s, Recv):
                if not 0 <= s.source < n:
                    raise ScheduleError(
                        f"device {sched.device}: {sched.describe(i)}: there is no device "
                        f"{s.source} ({n} devices)"
                    )
                recvs.setdefault((s.source, sched.device, s.channel), []).append((i, s))
    messages = []
    for key in sorted(set(sends) | set(recvs)):
        src, dest, channel = key
        out, into = sends.get(key, []), recvs.get(key, [])
        if len(out) != len(into):
            raise ScheduleError(
                f"device {src} sends {len(out)} message(s) to device {dest} on channel "
                f"{channel}, but device {dest} receives {len(into)}"
            )
        for k, ((si, s), (ri, r)) in enumerate(zip(out, into, strict=True)):
            if s.btype != r.btype:
                raise ScheduleError(
                    f"message {k} from device {src} to device {dest} on channel {channel}: "
                    f"sent as {s.btype}, received as {r.btype}"
                )
            messages.append(_Message(src, dest, channel, si, ri, s.btype))
    return messages


def check_no_deadlock(schedules: Sequence[DeviceSchedule]) -> None:
    """Run the schedules' messages with buffered sends: every receive must be satisfied."""
    pos = [0] * len(schedules)
    mailbox: dict[tuple[int, int, int], int] = {}
    arrived: dict[int, set[int]] = {}
    """collective -> the devices that reached it (it completes when every device has)."""
    progress = True
    while progress:
        progress = False
        for sched in schedules:
            d = sched.device
            while pos[d] < len(sched.steps):
                s = sched.steps[pos[d]]
                if isinstance(s, Send):
                    key = (d, s.dest, s.channel)
                    mailbox[key] = mailbox.get(key, 0) + 1
                elif isinstance(s, Recv):
                    key = (s.source, d, s.channel)
                    if not mailbox.get(key):
                        break
                    mailbox[key] -= 1
                elif isinstance(s, Collective):
                    arrived.setdefault(s.seq, set()).add(d)
                    if len(arrived[s.seq]) < len(schedules):
                        break
                pos[d] += 1
                progress = True
    waiting = [s for s in schedules if pos[s.device] < len(s.steps)]
    if waiting:
        parts = []
        for sched in waiting:
            step = sched.steps[pos[sched.device]]
            if isinstance(step, Collective):
                parts.append(
                    f"device {sched.device} at {sched.describe(pos[sched.device])} waits for "
                    "the other devices"
                )
                continue
            assert isinstance(step, Recv)
            parts.append(
                f"device {sched.device} at {sched.describe(pos[sched.device])} waits for "
                f"device {step.source} channel {step.channel}"
            )
        raise ScheduleError("deadlock: " + "; ".join(parts))


def _writes(sched: DeviceSchedule, reg: int, after: int) -> bool:
    """Whether a step of `sched` after step `after` may write register `reg`."""
    for s in sched.steps[after + 1 :]:
        if isinstance(s, Copy) and s.dst == reg:
            return True
        if isinstance(s, Call):
            written = sched.written.get(s.name)
            for pos, a in enumerate(s.args):
                if a == reg and (written is None or pos in written):
                    return True
    return False


def decide_copies(
    schedules: Sequence[DeviceSchedule], messages: Iterable[_Message], backend: Backend
) -> list[DeviceSchedule]:
    """Mark the sends that must send a copy. A handed-over buffer is shared by sender and
    receiver until the run ends, so it may be handed over only if the sender does not write
    it after the send and (threads) the receiver never writes what it received. With MPI the
    receiver has its own buffer, and the sender's buffer is in flight until the run ends."""
    copy_steps: dict[int, set[int]] = {}
    for m in messages:
        sender, receiver = schedules[m.src], schedules[m.dest]
        send = sender.steps[m.send_step]
        recv = receiver.steps[m.recv_step]
        assert isinstance(send, Send) and isinstance(recv, Recv)
        must_copy = _writes(sender, send.reg, m.send_step)
        if backend == "threads":
            must_copy = must_copy or _writes(receiver, recv.reg, m.recv_step)
        if must_copy:
            copy_steps.setdefault(m.src, set()).add(m.send_step)
    out = []
    for sched in schedules:
        marks = copy_steps.get(sched.device, set())
        steps = tuple(
            replace(s, copy=True) if i in marks and isinstance(s, Send) else s
            for i, s in enumerate(sched.steps)
        )
        out.append(replace(sched, steps=steps))
    return out


def plan_device_memory(sched: DeviceSchedule, backend: Backend) -> MemoryPlan:
    """The memory plan of one device: its allocs (and with MPI its receives), each live from
    its step to its last use; results live to the end, and so does a buffer handed over by a
    send (the receiver may read it until the run ends)."""
    end = len(sched.steps)
    made: dict[int, tuple[int, BufferType]] = {}
    for i, s in enumerate(sched.steps):
        if isinstance(s, Alloc) or (isinstance(s, Recv) and backend == "mpi"):
            made[s.reg] = (i, s.btype)
        elif isinstance(s, Collective):
            made[s.out] = (i, s.btype)
    last: dict[int, int] = {}
    for i, s in enumerate(sched.steps):
        if isinstance(s, Free):
            continue
        for reg in _regs_of(s):
            if reg in made:
                last[reg] = max(last.get(reg, i), i)
        if isinstance(s, Send) and not s.copy and s.reg in made:
            last[s.reg] = end
        if isinstance(s, Collective):  # the other devices read both until the run ends
            for reg in (s.reg, s.out):
                if reg in made:
                    last[reg] = end
    for reg in sched.results:
        if reg in made:
            last[reg] = end
    lifetimes = [
        Lifetime(reg, btype.nbytes, start, last.get(reg, start))
        for reg, (start, btype) in made.items()
    ]
    return plan_memory(lifetimes)


def _takes_noalias(kernel: Operation) -> bool:
    attrs = getattr(kernel, "arg_attrs", None)
    return attrs is not None and any("llvm.noalias" in a.data for a in attrs.data)


def check_written_not_shared(sched: DeviceSchedule, noalias: set[str]) -> None:
    """A buffer a compiled kernel writes is passed to it once: convert-to-llvm gives kernels
    their buffers `noalias`, so one written through an argument must not be read through
    another (the kernel level never does: a kernel writes a fresh buffer)."""
    for i, s in enumerate(sched.steps):
        if not isinstance(s, Call) or s.name not in noalias:
            continue
        positions = sched.written.get(s.name, frozenset(range(len(s.args))))
        for p in positions:
            if p < len(s.args) and s.args.count(s.args[p]) > 1:
                raise ScheduleError(
                    f"device {sched.device}: {sched.describe(i)} passes one buffer to @{s.name} "
                    f"twice and writes it (argument {p}); kernels take distinct buffers to write"
                )


def device_modules_of(module: ModuleOp) -> dict[int, ModuleOp]:
    return device_modules(module)


def compile_schedules(
    module: ModuleOp, backend: Backend, entry: str = "main"
) -> list[DeviceSchedule]:
    """Every device's schedule of a kernel-level (or llvm-level) program, checked together,
    with copy decisions and memory plans for `backend`."""
    if is_spmd_module(module):
        spmd = read_spmd_schedule(module, entry)
        n = num_devices(module)
        schedules = instantiate(spmd, n, held_results(module, n))
        return _checked(module, schedules, backend, None)
    mods = device_modules_of(module)
    if not mods:
        raise ScheduleError(
            "the module has no device modules (builtin.module with devidx.device = K); "
            "run the pipeline up to form-kernels first"
        )
    n = len(mods)
    if sorted(mods) != list(range(n)):
        raise ScheduleError(f"device modules must be numbered 0..{n - 1}, found {sorted(mods)}")
    schedules = [read_schedule(mods[d], d, entry) for d in range(n)]
    return _checked(module, schedules, backend, mods)


def _checked(
    module: ModuleOp,
    read: list[DeviceSchedule],
    backend: Backend,
    mods: Mapping[int, ModuleOp] | None,
) -> list[DeviceSchedule]:
    """Kernel facts, message checks, copy decisions and memory plans for every device."""
    schedules = []
    facts: dict[str, tuple[frozenset[int], bool]] = {}
    defined: dict[str, llvm.FuncOp] | None = None  # the program's kernels, on first need
    for d, sched in enumerate(read):
        written = {}
        noalias: set[str] = set()
        for name in sched.kernel_names:
            if mods is None and name in facts:  # SPMD: one kernel for every device
                written[name], takes = facts[name]
                if takes:
                    noalias.add(name)
                continue
            if defined is None:
                defined = defined_llvm_functions(module)
            ir = find_kernel_ir(module, module if mods is None else mods[d], d, name, defined)
            if ir is not None:
                written[name] = written_arguments(ir)
                if _takes_noalias(ir):
                    noalias.add(name)
                facts[name] = (written[name], name in noalias)
        sched = replace(sched, written=written)
        check_written_not_shared(sched, noalias)
        schedules.append(sched)
    messages = match_messages(schedules)
    check_no_deadlock(schedules)
    schedules = decide_copies(schedules, messages, backend)
    return [replace(s, plan=plan_device_memory(s, backend)) for s in schedules]


__all__ = [
    "Alloc",
    "ArgSpec",
    "Backend",
    "Call",
    "Collective",
    "Copy",
    "DeviceSchedule",
    "Fetch",
    "Free",
    "Recv",
    "ScheduleError",
    "Send",
    "SpmdSchedule",
    "Step",
    "compile_schedules",
    "instantiate",
    "is_spmd_module",
    "num_devices",
    "read_spmd_schedule",
]

"""`form-kernels`: each device's tensor program becomes kernels over memrefs and a host schedule
(SPEC §5; the kernel-level contract is docs/kernel-level.md).

```mlir
// before (device level)
builtin.module @device_0 attributes {devidx.device = 0 : i64} {
  func.func @main(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
    %s = tg.reduce add %x [1] : tensor<4x16xf32> -> tensor<4x1xf32>
    ...
    func.return %y : tensor<4x16xf32>
  }
}
// after (kernel level)
builtin.module @device_0 attributes {devidx.device = 0 : i64} {
  func.func @kernel0(%x: memref<4x16xf32>, %out: memref<4x16xf32>) attributes {multi.kernel} {
    scf.for %i = ... {  %s = scf.for ... iter_args(...) { ... }  ...  scf.for %j = ... { memref.store ... } }
    func.return
  }
  func.func @main(%x: memref<4x16xf32>) -> memref<4x16xf32> {
    %y = memref.alloc() : memref<4x16xf32>
    func.call @kernel0(%x, %y) : (memref<4x16xf32>, memref<4x16xf32>) -> ()
    func.return %y : memref<4x16xf32>
  }
}
```

The pieces: kernel_analysis.py decides what is materialized and how each kernel loops,
scalar_graph.py, tensor_elements.py and index_maps.py say what one element is, kernel_codegen.py writes the loops.
Here: the host schedule. It follows @main's op order: each materialized value's kernel runs where
the value was defined, sends and receives keep their order (so the devices still meet their
messages in one global order), and each buffer is freed after its last use. A result that is an
argument, or a buffer already returned, is copied (`memref.copy`) so results never alias.

A module with device modules (`devidx.device = K`) gets this per device module; a module that is
only a `func.func @main` on plain tensors is treated as one device.

SPMD mode (`form-kernels{spmd=true}`, docs/kernel-level.md): the SPMD level's `@main` (after
devidx-simplify, no specialize-devices) is fused once with the device number d symbolic
(index expressions of d, device_scalars.py); each device module then gets those kernels and its
own host schedule, in which d is a constant passed to the kernels that take it and each
`devidx.fetch` is the device's sends and receive.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import (
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    NoneAttr,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import PassFailedException

from xdsl_multi.dialects import devidx
from xdsl_multi.dialects.devidx import DEVICE_ATTR, SPMD_ATTR
from xdsl_multi.dialects.multi import (
    KERNEL_DEVICE_ATTR,
    SIGNATURE_ATTR,
    listed_devices,
    placement_of,
)
from xdsl_multi.transforms.form_kernels.bounds_versions import merge_device_kernels
from xdsl_multi.transforms.form_kernels.device_scalars import DeviceScalars
from xdsl_multi.transforms.form_kernels.kernel_analysis import Fusion, TilePolicy, analyze
from xdsl_multi.transforms.form_kernels.kernel_codegen import build_kernel, memref_type
from xdsl_multi.transforms.form_kernels.tensor_elements import Splats

RECURSION_LIMIT = 100_000
"""Fused expressions are followed recursively; long elementwise chains (the C1 benchmark) go
deeper than Python's default limit, which is raised while the pass runs."""


@contextmanager
def deep_recursion(limit: int = RECURSION_LIMIT) -> Iterator[None]:
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


# --------------------------------------------------------------------------------------------
# The host schedule
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SpmdSchedule:
    """SPMD mode: the one host schedule of every device; `takes_device` are the kernels that
    get the device number (`devidx.device_num` of the schedule) as their last argument."""

    takes_device: set[str]


def build_schedule(
    main: func.FuncOp,
    fusion: Fusion,
    kernels: dict[SSAValue, str],
    spmd: SpmdSchedule | None = None,
    unheld: frozenset[int] = frozenset(),
) -> func.FuncOp:
    """@main over memrefs: allocate, call kernels, send, receive, free, return. In SPMD mode
    (`spmd`), the one schedule of every device: `%d = devidx.device_num` is passed to the
    kernels that need it, each fetch and allreduce stays one op on memrefs whose peers the
    runtime computes from d (with the index arithmetic they need). Results at
    the positions in `unheld` are not this device's (`unheld_results`): they are returned
    as buffers nothing writes, and what only they need is not computed."""
    old = main.body.block
    inputs = [memref_type(t) for t in main.function_type.inputs]
    outputs = [memref_type(t) for t in main.function_type.outputs]
    block = Block(arg_types=inputs)
    for old_arg, new_arg in zip(old.args, block.args, strict=True):
        new_arg.name_hint = old_arg.name_hint
    buffer: dict[SSAValue, SSAValue] = dict(zip(old.args, block.args, strict=True))
    device_num: SSAValue | None = None
    if spmd is not None:
        num = devidx.DeviceNumOp()
        num.result.name_hint = "d"
        block.add_op(num)
        device_num = num.result
        for old_num in old.ops:
            if isinstance(old_num, devidx.DeviceNumOp):
                buffer[old_num.result] = device_num
    for op in old.ops:
        for r in op.results:
            plan = fusion.plan_of(r)
            if plan is None:
                continue
            if plan.alias is not None:
                buffer[r] = buffer[plan.alias]
                continue
            t = memref_type(r.type)
            alloc = memref.AllocOp.get(t.element_type, shape=t.get_shape())
            block.add_op(alloc)
            args = [buffer[v] for v in plan.leaves] + [alloc.memref]
            if spmd is not None and kernels[r] in spmd.takes_device:
                assert device_num is not None
                args.append(device_num)
            block.add_op(func.CallOp(kernels[r], args, []))
            buffer[r] = alloc.memref
        if isinstance(op, devidx.RecvOp):
            recv = devidx.RecvOp(
                op.source.value.data, op.channel.value.data, memref_type(op.result.type)
            )
            block.add_op(recv)
            buffer[op.result] = recv.result
        elif isinstance(op, devidx.SendOp):
            block.add_op(devidx.SendOp(buffer[op.value], op.dest.value.data, op.channel.value.data))
        elif isinstance(op, devidx.FetchOp):
            if spmd is None:
                raise PassFailedException(
                    "form-kernels: devidx.fetch at the device level (run specialize-devices "
                    "first, or form-kernels{spmd=true})"
                )
            src = _host_scalar(block, buffer, op.src)
            fetch = devidx.FetchOp(buffer[op.value], src)
            block.add_op(fetch)
            buffer[op.result] = fetch.result
        elif isinstance(op, devidx.AllreduceOp):
            if spmd is None:
                raise PassFailedException(
                    "form-kernels: devidx.allreduce at the device level (form-kernels{spmd=true} "
                    "takes it; specialize-devices needs multi-to-devidx{collectives=fetches})"
                )
            reduced = devidx.AllreduceOp(
                op.kind.data, buffer[op.value], op.algorithm.data, op.groups,
                members=op.member_devices,
            )
            block.add_op(reduced)
            buffer[op.result] = reduced.result
        elif isinstance(
            op,
            devidx.AllgatherOp
            | devidx.BroadcastOp
            | devidx.GatherOp
            | devidx.ScatterOp
            | devidx.AlltoallOp,
        ):
            if spmd is None:
                raise PassFailedException(
                    f"form-kernels: {op.name} at the device level (form-kernels{{spmd=true}} "
                    "takes it; specialize-devices needs multi-to-devidx{collectives=fetches})"
                )
            value = buffer[op.value]
            if isinstance(op, devidx.AllgatherOp):
                position = _host_scalar(block, buffer, op.position)
                gathered: Operation = devidx.AllgatherOp(
                    value, position, memref_type(op.result.type)
                )
            elif isinstance(op, devidx.GatherOp | devidx.ScatterOp):
                position = _host_scalar(block, buffer, op.position)
                gathered = type(op)(
                    value, position, op.root.value.data, memref_type(op.result.type)
                )
            elif isinstance(op, devidx.AlltoallOp):
                source = None if op.source is None else _host_scalar(block, buffer, op.source)
                gathered = devidx.AlltoallOp(
                    value,
                    _host_scalar(block, buffer, op.position),
                    source,
                    op.row_split,
                    memref_type(op.result.type),
                )
            else:
                gathered = devidx.BroadcastOp(value, op.root.value.data)
            block.add_op(gathered)
            buffer[op.result] = gathered.results[0]
        elif isinstance(op, func.ReturnOp):
            held = [buffer[v] for k, v in enumerate(op.operands) if k not in unheld]
            results = iter(_results(block, held))
            block.add_op(
                func.ReturnOp(
                    *(
                        _unwritten(block, outputs[k]) if k in unheld else next(results)
                        for k in range(len(op.operands))
                    )
                )
            )
        elif isinstance(op, func.CallOp):
            raise PassFailedException("form-kernels: @main may not call functions")
    if spmd is not None or unheld:
        _drop_dead_kernels(block)
    _free_after_last_use(block)
    new = func.FuncOp(main.sym_name.data, (inputs, outputs), Region(block))
    return new


def _host_scalar(block: Block, buffer: dict[SSAValue, SSAValue], value: SSAValue) -> SSAValue:
    """The schedule's copy of a scalar of @main (a fetch source): the index arithmetic on
    `devidx.device_num` that computes it, cloned once into the host schedule."""
    if value in buffer:
        return buffer[value]
    op = value.owner
    if not isinstance(op, Operation) or op.regions or any(
        not isinstance(r.type, IndexType | IntegerType) for r in op.results
    ):
        raise PassFailedException(
            f"form-kernels{{spmd=true}}: a fetch source must be index arithmetic on "
            f"devidx.device_num, found {value.owner}"
        )
    operands = [_host_scalar(block, buffer, v) for v in op.operands]
    clone = op.clone(value_mapper=dict(zip(op.operands, operands, strict=True)))
    block.add_op(clone)
    for old_r, new_r in zip(op.results, clone.results, strict=True):
        buffer[old_r] = new_r
    return buffer[value]


def _drop_dead_kernels(block: Block) -> None:
    """A kernel whose buffer this device neither reads, sends nor returns is not run there
    (SPMD mode: a value only another device fetches from its owner; a result the device does
    not hold), nor its buffer made."""
    used: set[SSAValue] = set()
    for op in reversed(list(block.ops)):
        if isinstance(op, func.CallOp):  # the buffer it writes: its last memref argument
            out = [a for a in op.arguments if isinstance(a.type, memref.MemRefType)][-1]
            if out not in used:
                block.erase_op(op)
                continue
            used.update(a for a in op.arguments if a is not out)
        elif isinstance(op, memref.AllocOp) and op.memref not in used:
            block.erase_op(op)
        else:
            used.update(op.operands)


def unheld_results(top: ModuleOp, device: int) -> frozenset[int]:
    """The positions of @main's results that device `device` does not hold: their logical type
    (`multi.signature`) is placed on devices of `multi.devices` other than it. Their buffers
    on this device are never read (docs/decisions.md, reference interpreter)."""
    signature = top.attributes.get(SIGNATURE_ATTR)
    names = listed_devices(top)
    if not isinstance(signature, FunctionType) or names is None or device >= len(names):
        return frozenset()
    out = set()
    for k, t in enumerate(signature.outputs.data):
        enc = placement_of(t)
        if enc is not None and names[device] not in enc.device_names:
            out.add(k)
    return frozenset(out)


def _unwritten(block: Block, t: Attribute) -> SSAValue:
    """A buffer for a result this device does not hold: allocated, never written."""
    assert isinstance(t, memref.MemRefType)
    alloc = memref.AllocOp.get(t.element_type, shape=t.get_shape())
    block.add_op(alloc)
    return alloc.memref


def _results(block: Block, values: list[SSAValue]) -> list[SSAValue]:
    """Results that never alias an argument or each other (copies where they would)."""
    out: list[SSAValue] = []
    for v in values:
        if v in block.args or v in out:
            t = v.type
            assert isinstance(t, memref.MemRefType)
            alloc = memref.AllocOp.get(t.element_type, shape=t.get_shape())
            block.add_op(alloc)
            block.add_op(memref.CopyOp(v, alloc.memref))
            v = alloc.memref
        out.append(v)
    return out


def _free_after_last_use(block: Block) -> None:
    ops = list(block.ops)
    returned = set(ops[-1].operands) if isinstance(ops[-1], func.ReturnOp) else set()
    last_use: dict[SSAValue, Operation] = {}
    for op in ops:
        for r in op.results:
            if isinstance(op, (memref.AllocOp, devidx.RecvOp, devidx.FetchOp, *devidx.COLLECTIVES)):
                last_use[r] = op
        for v in op.operands:
            if v in last_use:
                last_use[v] = op
    for v, op in last_use.items():
        if v not in returned:
            Rewriter.insert_op(memref.DeallocOp.get(v), InsertPoint.after(op))


# --------------------------------------------------------------------------------------------
# The pass
# --------------------------------------------------------------------------------------------


def _unique_name(module: ModuleOp, counter: list[int]) -> str:
    while True:
        name = f"kernel{counter[0]}"
        counter[0] += 1
        if SymbolTable.lookup_symbol(module, name) is None:
            return name


def form_module_kernels(module: ModuleOp, policy: TilePolicy, splats: Splats) -> None:
    """Kernels and a host schedule for the @main of one (device) module."""
    main = _checked_main(module)
    top = module
    while isinstance(top.parent_op(), ModuleOp):
        top = top.parent_op()
    assert isinstance(top, ModuleOp)
    if SIGNATURE_ATTR not in top.attributes:  # every level keeps the logical signature
        top.attributes[SIGNATURE_ATTR] = main.function_type
    with deep_recursion():
        fusion = analyze(main.body.block, policy, splats)
        device = module.attributes.get(DEVICE_ATTR)
        unheld = (
            unheld_results(top, device.value.data)
            if isinstance(device, IntegerAttr) and module is not top
            else frozenset()
        )
        counter = [0]
        kernels = {
            plan.root: _unique_name(module, counter) for plan in fusion.plans if plan.alias is None
        }
        schedule = build_schedule(main, fusion, kernels, unheld=unheld)
        called = {
            op.callee.string_value() for op in schedule.body.ops if isinstance(op, func.CallOp)
        }
        for plan in fusion.plans:  # the kernels that run here (not those of unheld results)
            if plan.alias is None and kernels[plan.root] in called:
                kernel = build_kernel(plan, kernels[plan.root])
                Rewriter.insert_op(kernel, InsertPoint.before(main))
    Rewriter.replace_op(main, schedule)


def form_spmd_kernels(top: ModuleOp, policy: TilePolicy, splats: Splats) -> None:
    """SPMD mode: the kernels of the SPMD `@main`, built once with d symbolic, and ONE host
    schedule for every device in the top module (marked `devidx.spmd`), in which d is
    `devidx.device_num`: nothing in the result depends on the number of devices but the
    `multi.devices` list."""
    if any(isinstance(m, ModuleOp) for m in top.ops):
        raise PassFailedException(
            "form-kernels{spmd=true}: the module is already specialized per device (run it "
            "on the SPMD level: multi-to-devidx, devidx-simplify)"
        )
    devices = listed_devices(top)
    if not devices:
        raise PassFailedException(
            "form-kernels{spmd=true}: the module has no multi.devices (the SPMD level names "
            "its devices)"
        )
    n = len(devices)
    main = _checked_main(top)
    if SIGNATURE_ATTR not in top.attributes:
        top.attributes[SIGNATURE_ATTR] = main.function_type
    with deep_recursion():
        fusion = analyze(main.body.block, policy, splats, devices=n)
        kernels: dict[SSAValue, str] = {}
        built: list[func.FuncOp] = []
        takes_device: set[str] = set()
        for k, plan in enumerate(p for p in fusion.plans if p.alias is None):
            name = f"kernel{k}"
            kernel = build_kernel(plan, name)
            if any(isinstance(t, IndexType) for t in kernel.function_type.inputs):
                takes_device.add(name)
            built.append(kernel)
            kernels[plan.root] = name
        scalars = DeviceScalars(n)
        for op in main.body.block.ops:  # (named `op`: diagnostics locate the error there)
            if isinstance(op, devidx.FetchOp):  # (a few scalars on each device: cheap)
                table = [int(v) for v in scalars.table(op.src)]
                bad = [(d, s) for d, s in enumerate(table) if not 0 <= s < n]
                if bad:
                    d, s = bad[0]
                    raise PassFailedException(
                        f"form-kernels: devidx.fetch on device {d} fetches from device {s}, "
                        f"outside [0, {n})"
                    )
        schedule = build_schedule(main, fusion, kernels, SpmdSchedule(takes_device))
        called = {
            op.callee.string_value() for op in schedule.body.ops if isinstance(op, func.CallOp)
        }
        built = [k for k in built if k.sym_name.data in called]
    Rewriter.erase_op(main)
    for kernel in built:  # (named device0_kernelN in LLVM, as the specialized mode's)
        kernel.attributes[KERNEL_DEVICE_ATTR] = IntegerAttr(0, i64)
        top.body.block.add_op(kernel)
    top.body.block.add_op(schedule)
    top.attributes[SPMD_ATTR] = UnitAttr()


def _checked_main(module: ModuleOp) -> func.FuncOp:
    main = SymbolTable.lookup_symbol(module, "main")
    if not isinstance(main, func.FuncOp) or not main.body.blocks:
        raise PassFailedException("form-kernels: the module has no func.func @main with a body")
    for t in [*main.function_type.inputs, *main.function_type.outputs]:
        if not isinstance(t, TensorType) or not isinstance(t.encoding, NoneAttr):
            raise PassFailedException(
                f"form-kernels: @main must take and return plain tensors (the device level: run "
                f"multi-to-devidx, devidx-simplify and specialize-devices first), found {t}"
            )
    return main


@dataclass(frozen=True)
class FormKernels(ModulePass):
    """Fuse each device's tensor ops into kernels over memrefs and leave a host schedule.

    Options: the register tile of matmul-shaped reductions (`tile-rows`, `tile-cols`)."""

    name = "form-kernels"

    tile_rows: int = 8
    tile_cols: int = 32
    spmd: bool = False
    """Build the kernels once from the SPMD level (no specialize-devices), with the device
    number as a kernel argument; each device module gets the same kernels and its own host
    schedule."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.tile_rows < 1 or self.tile_cols < 1:
            raise PassFailedException("form-kernels: tile-rows and tile-cols must be >= 1")
        policy = TilePolicy(self.tile_rows, self.tile_cols)
        if self.spmd:
            form_spmd_kernels(op, policy, Splats())
            return
        devices = [
            m for m in op.body.block.ops if isinstance(m, ModuleOp) and DEVICE_ATTR in m.attributes
        ]
        splats = Splats()
        if not devices:
            form_module_kernels(op, policy, splats)
            return
        groups = _alike_devices(op, devices)
        for group in groups:
            form_module_kernels(group[0], policy, splats)
        shared = share_kernels_across_devices(groups, len(listed_devices(op) or devices))
        for group, taking_d in zip(groups, shared, strict=True):
            for m in group[1:]:  # the same input: the same kernels and schedule (a copy)
                _replace_body(m, group[0])
            for m in group:
                _pass_device_number(m, taking_d)


def _same_device_code(a: ModuleOp, b: ModuleOp) -> bool:
    """Whether device modules `a` and `b` hold the same code: their attributes but the device
    number, and op by op the same names, attributes, properties, uses, result types and value
    and block names (xDSL's structural equivalence, which leaves out result types and names,
    then those)."""
    def rest(m: ModuleOp) -> dict[str, Attribute]:
        return {k: v for k, v in m.attributes.items() if k != DEVICE_ATTR}

    if rest(a) != rest(b) or not a.body.is_structurally_equivalent(b.body):
        return False
    for x, y in zip(a.body.walk(), b.body.walk(), strict=True):
        if x.result_types != y.result_types or [r.name_hint for r in x.results] != [
            r.name_hint for r in y.results
        ]:
            return False
        for rx, ry in zip(x.regions, y.regions, strict=True):
            for bx, by in zip(rx.blocks, ry.blocks, strict=True):
                if bx.name_hint != by.name_hint or [v.name_hint for v in bx.args] != [
                    v.name_hint for v in by.args
                ]:
                    return False
    return True


def _alike_devices(top: ModuleOp, devices: list[ModuleOp]) -> list[list[ModuleOp]]:
    """The device modules in groups whose members form-kernels turns into the same kernels
    and host schedule: the same code (`_same_device_code`) and the same unheld results. An
    even program's devices are one group (BENCH W1, W2, W4, C1): forming the kernels once and
    copying them halves the pass at N = 2 (the group is formed in its first member's place)."""
    groups: list[tuple[frozenset[int], list[ModuleOp]]] = []
    for m in devices:
        device = m.attributes[DEVICE_ATTR]
        unheld = (
            unheld_results(top, device.value.data)
            if isinstance(device, IntegerAttr)
            else frozenset()
        )
        for held, group in groups:
            if held == unheld and _same_device_code(group[0], m):
                group.append(m)
                break
        else:
            groups.append((unheld, [m]))
    return [group for _, group in groups]


def share_kernels_across_devices(
    groups: list[list[ModuleOp]], num_devices: int
) -> list[set[str]]:
    """Specialized mode: device modules formed differently (`_alike_devices`' groups, each
    formed in its first member) whose host schedules are the same, and whose kernels of one
    name differ only in their loops' constant bounds (an uneven shard: BENCH W7's 334-row
    devices and the 332-row one that pads 2 rows), get ONE kernel of that name taking d as a
    last `index` argument (bounds_versions.py `merge_device_kernels`). Returns, per group,
    the names of its kernels that now take d: its devices' schedules must pass their number
    to them (`_pass_device_number`).
    The devices then hold the same kernel, which convert-to-llvm lowers and the JIT compiles
    once (W7: two kernels -> one, a third less LLVM time in its first call). Kernels the
    groups already share, or that differ otherwise, stay as they are."""
    classes: list[tuple[func.FuncOp, list[int]]] = []  # groups by host schedule
    for k, group in enumerate(groups):
        main = SymbolTable.lookup_symbol(group[0], "main")
        if not isinstance(main, func.FuncOp):
            continue
        for schedule, members in classes:
            if schedule.body.is_structurally_equivalent(main.body):
                members.append(k)
                break
        else:
            classes.append((main, [k]))
    shared: list[set[str]] = [set() for _ in groups]
    for schedule, members in classes:
        if len(members) > 1:
            names = _merge_kernels(schedule, [groups[k] for k in members], num_devices)
            for k in members:
                shared[k] = names
    return shared


def _merge_kernels(
    schedule: func.FuncOp, groups: list[list[ModuleOp]], num_devices: int
) -> set[str]:
    """`share_kernels_across_devices` for groups whose host schedule is `schedule`'s."""
    merged_names: set[str] = set()
    firsts = [group[0] for group in groups]
    device_lists = [[_device_number(m) for m in group] for group in groups]
    names = dict.fromkeys(
        op.callee.string_value() for op in schedule.body.ops if isinstance(op, func.CallOp)
    )
    for name in names:
        versions = [SymbolTable.lookup_symbol(m, name) for m in firsts]
        kernels = [v for v in versions if isinstance(v, func.FuncOp)]
        if len(kernels) != len(versions) or all(
            k.function_type == kernels[0].function_type
            and k.body.is_structurally_equivalent(kernels[0].body)
            for k in kernels[1:]
        ):
            continue  # already one kernel (a device group's other kernel differs)
        merged = merge_device_kernels(kernels, device_lists, num_devices)
        if merged is None:
            continue
        for kernel in kernels:
            if kernel is not merged:
                Rewriter.replace_op(kernel, merged.clone())
        merged_names.add(name)
    return merged_names


def _device_number(m: ModuleOp) -> int:
    device = m.attributes.get(DEVICE_ATTR)
    assert isinstance(device, IntegerAttr)
    return device.value.data


def _pass_device_number(m: ModuleOp, kernels: set[str]) -> None:
    """Every call in `m`'s host schedule of one of `kernels` (which take d last) also passes
    `m`'s device number, an index constant put before the call."""
    if not kernels:
        return
    main = SymbolTable.lookup_symbol(m, "main")
    assert isinstance(main, func.FuncOp)
    device = _device_number(m)
    for call in list(main.body.ops):
        if isinstance(call, func.CallOp) and call.callee.string_value() in kernels:
            constant = arith.ConstantOp(IntegerAttr(device, IndexType()))
            Rewriter.insert_op(constant, InsertPoint.before(call))
            Rewriter.replace_op(
                call, func.CallOp(call.callee, [*call.arguments, constant.result], [])
            )


def _replace_body(m: ModuleOp, formed: ModuleOp) -> None:
    """Give device module `m` a copy of the body of `formed` (a device formed alike)."""
    old = m.body.detach_block(0)
    m.body.add_block(formed.body.clone().detach_block(0))
    old.erase(safe_erase=False)

"""The numpy reference interpreter: the oracle for every pass (SPEC §4, §6; `multi-run
--backend interp`).

```python
from xdsl_multi.runtime.interpreter import run_module, InterpreterError
outputs = run_module(module, inputs, num_devices=None, entry="main", stats=None)
```

Inputs and outputs are LOGICAL arrays at every level (placement.py). It runs a module at each
of the three levels of the pipeline:

1. multi level (no devidx ops, no `multi.signature`): @main once; `#multi.on` values are
   per-device buffers, `#multi.shard` values their logical tensor (values.py, ops_multi.py);
2. SPMD level (devidx ops or a `multi.signature` attribute): @main on every device d in
   lockstep, `devidx.device_num` = d, fetches answered across devices;
3. device level (nested `builtin.module`s with `devidx.device = K`): every device module's
   @main together, sends delivered to receives;
4. kernel level (device modules of kernels over memrefs and host schedules, form-kernels'
   output): kernel_level.py, with the same numerics.

At levels 2 and 3 the logical signature is the module's `multi.signature` (else @main's own);
each device gets its local part of every argument and the results are reassembled from the
devices' local results.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, TensorType
from xdsl.ir import Attribute
from xdsl.traits import SymbolTable

from xdsl_multi import levels
from xdsl_multi.dialects.devidx import DEVICE_ATTR
from xdsl_multi.dialects.multi import OnAttr, placement_of
from xdsl_multi.levels import Level, LevelError
from xdsl_multi.runtime.machine import InterpStats, Machine, OpTables, Run, no_requests
from xdsl_multi.runtime.ops_arith import ARITH_HANDLERS, ARITH_MATH_COMPUTING, MATH_HANDLERS
from xdsl_multi.runtime.ops_control import CONTROL_HANDLERS
from xdsl_multi.runtime.ops_devidx import DEVIDX_CONTROL, DEVIDX_HANDLERS
from xdsl_multi.runtime.ops_multi import MULTI_HANDLERS
from xdsl_multi.runtime.ops_tg import TG_COMPUTING, TG_HANDLERS
from xdsl_multi.runtime.placement import (
    DEVICES_ATTR,
    SIGNATURE_ATTR,
    check_devices_known,
    from_local_parts,
    local_part,
    prepare_inputs,
    program_devices,
    random_inputs,
)
from xdsl_multi.runtime.schedulers import run_lockstep, run_message_passing
from xdsl_multi.runtime.values import InterpreterError, Lanes, OnValue, Value, store

__all__ = [
    "InterpStats",
    "InterpreterError",
    "argument_names",
    "logical_signature",
    "random_inputs",
    "run_module",
]


def make_tables() -> OpTables:
    return OpTables(
        lifted={**ARITH_HANDLERS, **MATH_HANDLERS, **TG_HANDLERS, **DEVIDX_HANDLERS},
        placed=dict(MULTI_HANDLERS),
        control={**CONTROL_HANDLERS, **DEVIDX_CONTROL},
        computing=ARITH_MATH_COMPUTING | TG_COMPUTING,
    )


# ---------------------------------------------------------------------------------------------
# What the module is
# ---------------------------------------------------------------------------------------------


def device_modules(module: ModuleOp) -> dict[int, ModuleOp]:
    """The nested device modules of a specialized module, by device number (levels.py)."""
    try:
        return levels.device_modules(module)
    except LevelError as e:
        raise InterpreterError(str(e)) from None


def find_function(module: ModuleOp, name: str) -> func.FuncOp:
    f = SymbolTable.lookup_symbol(module, name)
    if not isinstance(f, func.FuncOp):
        raise InterpreterError(f"the module has no func.func @{name}")
    if not f.body.blocks:
        raise InterpreterError(f"@{name} is only a declaration")
    return f


def _entry_of(module: ModuleOp, entry: str) -> func.FuncOp:
    """@entry of the module, or of device 0's module at the device level."""
    mods = device_modules(module)
    if mods:
        if 0 not in mods:
            raise InterpreterError(f"no nested module has {DEVICE_ATTR} = 0")
        return find_function(mods[0], entry)
    return find_function(module, entry)


def logical_signature(module: ModuleOp, entry: str = "main") -> FunctionType:
    """The signature of logical inputs and outputs: `multi.signature` if the module has it,
    else @entry's (device 0's at the device level)."""
    sig = module.attributes.get(SIGNATURE_ATTR)
    if sig is not None:
        if not isinstance(sig, FunctionType):
            raise InterpreterError(f"module attribute {SIGNATURE_ATTR} must be a function type")
        return sig
    return _entry_of(module, entry).function_type


def argument_names(module: ModuleOp, entry: str = "main") -> list[str]:
    """Each argument's SSA name without `%` where the text gave one, else argK."""
    names = []
    for i, arg in enumerate(_entry_of(module, entry).body.block.args):
        names.append(arg.name_hint or f"arg{i}")
    return names


# ---------------------------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------------------------


def run_module(
    module: ModuleOp,
    inputs: Sequence[object],
    *,
    num_devices: int | None = None,
    entry: str = "main",
    stats: InterpStats | None = None,
) -> list[np.ndarray]:
    """Run @entry of a module at whatever level it is and return its logical outputs.

    `num_devices`, when given, must equal the program's device count. `stats` collects
    messages and computed elements. Raises InterpreterError for every problem of the program
    or the inputs."""
    try:
        level = levels.detect_level(module)
    except LevelError as e:
        raise InterpreterError(str(e)) from None
    if level in (Level.KERNEL, Level.LLVM):
        from xdsl_multi.runtime.kernel_level import run_kernel_module

        return run_kernel_module(module, inputs, num_devices=num_devices, entry=entry, stats=stats)
    sig = logical_signature(module, entry)
    arrays = prepare_inputs(sig, inputs, argument_names(module, entry))
    with np.errstate(all="ignore"):
        if level is Level.MULTI:
            return _run_multi(module, entry, arrays, num_devices, stats)
        if level is Level.SPMD:
            return _run_spmd(module, entry, sig, arrays, num_devices, stats)
        return _run_devices(module, entry, sig, arrays, num_devices, stats)


def _check_count(found: int, num_devices: int | None) -> None:
    if num_devices is not None and num_devices != found:
        raise InterpreterError(
            f"the program runs on {found} devices, but {num_devices} were asked for"
        )


def _as_output(v: Value) -> np.ndarray:
    if isinstance(v, Lanes):
        return np.array(store(v).data)
    if isinstance(v, OnValue):
        raise TypeError("interpreter bug: a placed value where a plain one was expected")
    return np.array(v)


# -- level 1 ------------------------------------------------------------------------------------


def _to_multi_value(t: Attribute, x: np.ndarray) -> Value:
    enc = placement_of(t)
    if isinstance(enc, OnAttr):
        if enc.num_devices == 1:
            return OnValue((Lanes(x),))
        return OnValue(tuple(Lanes(x[i]) for i in range(enc.num_devices)))
    if isinstance(t, TensorType):
        return Lanes(x)
    return x[()]


def _from_multi_value(v: Value) -> np.ndarray:
    if isinstance(v, OnValue):
        buffers = [_as_output(b) for b in v.buffers]
        return buffers[0] if len(buffers) == 1 else np.stack(buffers)
    return _as_output(v)


def _run_multi(
    module: ModuleOp,
    entry: str,
    arrays: list[np.ndarray],
    num_devices: int | None,
    stats: InterpStats | None,
) -> list[np.ndarray]:
    devices = program_devices(module)
    _check_count(max(len(devices), 1), num_devices)
    f = find_function(module, entry)
    if DEVICES_ATTR in module.attributes:
        check_devices_known(f.function_type, devices)
    args = [_to_multi_value(t, x) for t, x in zip(f.function_type.inputs, arrays, strict=True)]
    machine = Machine(make_tables(), module, "multi", None, devices, stats)
    results = no_requests(machine.call(f, args), "the multi level (it needs the SPMD level)")
    return [_from_multi_value(v) for v in results]


# -- levels 2 and 3 -----------------------------------------------------------------------------


def _local_parts(
    f: func.FuncOp, sig: FunctionType, arrays: list[np.ndarray], d: int, devices: Sequence[str]
) -> list[np.ndarray]:
    """Device d's local parts of the logical inputs, one per argument of @main."""
    local_types = f.function_type.inputs.data
    if len(local_types) != len(sig.inputs.data):
        raise InterpreterError(
            f"device {d}: @{f.sym_name.data} takes {len(local_types)} arguments but the logical "
            f"signature has {len(sig.inputs.data)}"
        )
    return [local_part(t, x, d, devices) for t, x in zip(sig.inputs.data, arrays, strict=True)]


def _lanes_args(
    f: func.FuncOp, sig: FunctionType, parts: list[np.ndarray], d: int
) -> list[Value]:
    """Device d's arguments of a tensor-level @main from its local parts."""
    args: list[Value] = []
    types = zip(f.function_type.inputs.data, sig.inputs.data, parts, strict=True)
    for i, (lt, t, part) in enumerate(types):
        want = tuple(lt.get_shape()) if isinstance(lt, TensorType) else ()
        if part.shape != want:
            raise InterpreterError(
                f"argument {i}: device {d}'s local part of {t} has shape {part.shape}, but "
                f"@{f.sym_name.data} takes {lt}"
            )
        args.append(Lanes(part) if isinstance(lt, TensorType) else part[()])
    return args


def _local_args(
    f: func.FuncOp, sig: FunctionType, arrays: list[np.ndarray], d: int, devices: Sequence[str]
) -> list[Value]:
    """Device d's arguments of @main: the local parts of the logical inputs."""
    return _lanes_args(f, sig, _local_parts(f, sig, arrays, d, devices), d)


def _assemble(
    sig: FunctionType,
    per_device: list[list[Value]],
    devices: Sequence[str],
    output: Callable[[int, Value], np.ndarray] = lambda d, v: _as_output(v),
) -> list[np.ndarray]:
    n_out = len(sig.outputs.data)
    for d, results in enumerate(per_device):
        if len(results) != n_out:
            raise InterpreterError(
                f"device {d} returns {len(results)} values; the logical signature has {n_out}"
            )
    return [
        from_local_parts(t, [output(d, r[j]) for d, r in enumerate(per_device)], devices)
        for j, t in enumerate(sig.outputs.data)
    ]


def run_device_modules(
    module: ModuleOp,
    mods: dict[int, ModuleOp],
    entry: str,
    sig: FunctionType,
    arrays: list[np.ndarray],
    num_devices: int | None,
    stats: InterpStats | None,
    tables: OpTables,
    find: Callable[[ModuleOp, str], func.FuncOp],
    arguments: Callable[[func.FuncOp, FunctionType, list[np.ndarray], int], list[Value]],
    output: Callable[[int, Value], np.ndarray],
) -> list[np.ndarray]:
    """Run every device module's @entry together (sends deliver to receives) on the local
    parts of the logical inputs and assemble the logical outputs: the device level here, the
    kernel level (runtime/kernel_level.py) with its own tables, arguments and outputs."""
    n = len(mods)
    devices = program_devices(module)
    if DEVICES_ATTR in module.attributes and len(devices) != n:
        raise InterpreterError(
            f"{DEVICES_ATTR} lists {len(devices)} devices but the module has {n} device modules"
        )
    _check_count(n, num_devices)
    if sorted(mods) != list(range(n)):
        raise InterpreterError(f"device modules must be numbered 0..{n - 1}, found {sorted(mods)}")
    check_devices_known(sig, devices)
    runs: list[Run] = []
    for d in range(n):
        f = find(mods[d], entry)
        parts = _local_parts(f, sig, arrays, d, devices)
        machine = Machine(tables, mods[d], "device", d, devices, stats)
        runs.append(machine.call(f, arguments(f, sig, parts, d)))
    with np.errstate(all="ignore"):
        per_device = run_message_passing(runs, stats)
    return _assemble(sig, per_device, devices, output)


def _run_spmd(
    module: ModuleOp,
    entry: str,
    sig: FunctionType,
    arrays: list[np.ndarray],
    num_devices: int | None,
    stats: InterpStats | None,
) -> list[np.ndarray]:
    devices = program_devices(module)
    if devices:
        _check_count(len(devices), num_devices)
        n = len(devices)
    elif num_devices is not None:
        n = num_devices
    else:
        raise InterpreterError(
            f"cannot tell how many devices run this SPMD program: it has no {DEVICES_ATTR} "
            "attribute and no placed types; give the number of devices"
        )
    check_devices_known(sig, devices)
    f = find_function(module, entry)
    tables = make_tables()
    runs: list[Run] = []
    for d in range(n):
        machine = Machine(tables, module, "spmd", d, devices, stats)
        runs.append(machine.call(f, _local_args(f, sig, arrays, d, devices)))
    return _assemble(sig, run_lockstep(runs, stats), devices)


def _run_devices(
    module: ModuleOp,
    entry: str,
    sig: FunctionType,
    arrays: list[np.ndarray],
    num_devices: int | None,
    stats: InterpStats | None,
) -> list[np.ndarray]:
    return run_device_modules(
        module, device_modules(module), entry, sig, arrays, num_devices, stats,
        make_tables(), find_function, _lanes_args, lambda d, v: _as_output(v),
    )

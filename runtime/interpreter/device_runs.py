"""What running a module on its devices takes at every level of the reference interpreter
(interpreter.py: the device level; kernel_level.py: the kernel level): the op tables, the
entry function and the logical signature, the device modules, each device's local part of the
inputs, running the device modules together and assembling the logical outputs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.traits import SymbolTable

from xdsl_multi import levels
from xdsl_multi.dialects.devidx import DEVICE_ATTR
from xdsl_multi.dialects.multi import DEVICES_ATTR, SIGNATURE_ATTR, program_devices
from xdsl_multi.levels import LevelError
from xdsl_multi.runtime.interpreter.machine import InterpStats, Machine, OpTables, Run
from xdsl_multi.runtime.interpreter.ops_arith import (
    ARITH_HANDLERS,
    ARITH_MATH_COMPUTING,
    MATH_HANDLERS,
)
from xdsl_multi.runtime.interpreter.ops_control import CONTROL_HANDLERS
from xdsl_multi.runtime.interpreter.ops_devidx import DEVIDX_CONTROL, DEVIDX_HANDLERS
from xdsl_multi.runtime.interpreter.ops_multi import MULTI_HANDLERS
from xdsl_multi.runtime.interpreter.ops_tg import TG_COMPUTING, TG_HANDLERS
from xdsl_multi.runtime.interpreter.schedulers import run_message_passing
from xdsl_multi.runtime.placement import (
    check_devices_known,
    from_local_parts,
    local_part,
)
from xdsl_multi.runtime.values import InterpreterError, Lanes, OnValue, Value, store


def make_tables() -> OpTables:
    return OpTables(
        lifted={**ARITH_HANDLERS, **MATH_HANDLERS, **TG_HANDLERS, **DEVIDX_HANDLERS},
        placed=dict(MULTI_HANDLERS),
        control={**CONTROL_HANDLERS, **DEVIDX_CONTROL},
        computing=ARITH_MATH_COMPUTING | TG_COMPUTING,
    )


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


def check_count(found: int, num_devices: int | None) -> None:
    if num_devices is not None and num_devices != found:
        raise InterpreterError(
            f"the program runs on {found} devices, but {num_devices} were asked for"
        )


def as_output(v: Value) -> np.ndarray:
    if isinstance(v, Lanes):
        return np.array(store(v).data)
    if isinstance(v, OnValue):
        raise TypeError("interpreter bug: a placed value where a plain one was expected")
    return np.array(v)


def local_parts(
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


def assemble(
    sig: FunctionType,
    per_device: list[list[Value]],
    devices: Sequence[str],
    output: Callable[[int, Value], np.ndarray] = lambda d, v: as_output(v),
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
    kernel level (runtime/interpreter/kernel_level.py) with its own tables, arguments and outputs."""
    n = len(mods)
    devices = program_devices(module)
    if DEVICES_ATTR in module.attributes and len(devices) != n:
        raise InterpreterError(
            f"{DEVICES_ATTR} lists {len(devices)} devices but the module has {n} device modules"
        )
    check_count(n, num_devices)
    if sorted(mods) != list(range(n)):
        raise InterpreterError(f"device modules must be numbered 0..{n - 1}, found {sorted(mods)}")
    check_devices_known(sig, devices)
    runs: list[Run] = []
    for d in range(n):
        f = find(mods[d], entry)
        parts = local_parts(f, sig, arrays, d, devices)
        machine = Machine(tables, mods[d], "device", d, devices, stats)
        runs.append(machine.call(f, arguments(f, sig, parts, d)))
    with np.errstate(all="ignore"):
        per_device = run_message_passing(runs, stats)
    return assemble(sig, per_device, devices, output)

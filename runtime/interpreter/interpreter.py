"""The numpy reference interpreter: the oracle for every pass (SPEC §4, §6; `multi-run
--backend interp`).

```python
from xdsl_multi.runtime.interpreter.interpreter import run_module, InterpreterError
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

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, StringAttr, TensorType
from xdsl.ir import Attribute

from xdsl_multi import levels
from xdsl_multi.dialects.multi import (
    DEVICES_ATTR,
    LLVM_NAME_ATTR,
    OnAttr,
    placement_of,
    program_devices,
)
from xdsl_multi.levels import Level, LevelError
from xdsl_multi.runtime.interpreter.device_runs import (
    argument_names,
    as_output,
    assemble,
    check_count,
    device_modules,
    find_function,
    local_parts,
    logical_signature,
    make_tables,
    run_device_modules,
)
from xdsl_multi.runtime.interpreter.kernel_level import run_kernel_module
from xdsl_multi.runtime.interpreter.machine import InterpStats, Machine, Run, no_requests
from xdsl_multi.runtime.interpreter.schedulers import run_lockstep
from xdsl_multi.runtime.placement import (
    check_devices_known,
    prepare_inputs,
    random_inputs,
)
from xdsl_multi.runtime.values import InterpreterError, Lanes, OnValue, Value

__all__ = [
    "InterpStats",
    "InterpreterError",
    "argument_names",
    "logical_signature",
    "not_interpretable",
    "random_inputs",
    "run_module",
]


# ---------------------------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------------------------


def not_interpretable(module: ModuleOp) -> str | None:
    """Why the interpreter cannot run `module`, or None. It runs the multi, SPMD, device and
    kernel levels; at the llvm level (after convert-to-llvm) a kernel is a declaration beside
    its `llvm.func`, whose ops the interpreter does not execute."""
    for mod in device_modules(module).values() or [module]:
        for op in mod.ops:
            llvm_name = op.attributes.get(LLVM_NAME_ATTR)
            if isinstance(op, func.FuncOp) and not op.body.blocks and llvm_name is not None:
                lowered = llvm_name.data if isinstance(llvm_name, StringAttr) else llvm_name
                return (
                    "the reference interpreter runs the multi, SPMD, device and kernel levels, "
                    f"not the llvm level: kernel @{op.sym_name.data} is llvm.func @{lowered} "
                    "here (convert-to-llvm ran); run it with --backend threads or mpi, or "
                    "interpret the module from before convert-to-llvm"
                )
    return None


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
    if (why := not_interpretable(module)) is not None:
        raise InterpreterError(why)
    try:
        level = levels.detect_level(module)
    except LevelError as e:
        raise InterpreterError(str(e)) from None
    if level in (Level.KERNEL, Level.LLVM):
        return run_kernel_module(module, inputs, num_devices=num_devices, entry=entry, stats=stats)
    sig = logical_signature(module, entry)
    arrays = prepare_inputs(sig, inputs, argument_names(module, entry))
    with np.errstate(all="ignore"):
        if level is Level.MULTI:
            return _run_multi(module, entry, arrays, num_devices, stats)
        if level is Level.SPMD:
            return _run_spmd(module, entry, sig, arrays, num_devices, stats)
        return _run_devices(module, entry, sig, arrays, num_devices, stats)


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
        buffers = [as_output(b) for b in v.buffers]
        return buffers[0] if len(buffers) == 1 else np.stack(buffers)
    return as_output(v)


def _run_multi(
    module: ModuleOp,
    entry: str,
    arrays: list[np.ndarray],
    num_devices: int | None,
    stats: InterpStats | None,
) -> list[np.ndarray]:
    devices = program_devices(module)
    check_count(max(len(devices), 1), num_devices)
    f = find_function(module, entry)
    if DEVICES_ATTR in module.attributes:
        check_devices_known(f.function_type, devices)
    args = [_to_multi_value(t, x) for t, x in zip(f.function_type.inputs, arrays, strict=True)]
    machine = Machine(make_tables(), module, "multi", None, devices, stats)
    results = no_requests(machine.call(f, args), "the multi level (it needs the SPMD level)")
    return [_from_multi_value(v) for v in results]


# -- levels 2 and 3 -----------------------------------------------------------------------------


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
    return _lanes_args(f, sig, local_parts(f, sig, arrays, d, devices), d)


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
        check_count(len(devices), num_devices)
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
    return assemble(sig, run_lockstep(runs, stats), devices)


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
        make_tables(), find_function, _lanes_args, lambda d, v: as_output(v),
    )

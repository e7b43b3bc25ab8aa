"""The reference interpreter at the kernel level (form-kernels' output, docs/kernel-level.md).

```python
from xdsl_multi.runtime.interpreter.kernel_level import run_kernel_module
outputs = run_kernel_module(module, inputs)      # logical arrays in and out, like run_module
```

Every device module's host schedule (`func.func @main` over memrefs) runs on a `Machine` with
the project's own numerics (ops_arith.py, numerics.py): kernels are called with `func.call`
and run op by op (`scf.for`, `memref.load/store`, scalar `arith`/`math`), buffers are numpy
arrays written in place (ops_memref.py), and sends deliver a copy of the buffer to the matching
receive (schedulers.py). So the kernel level is checked against the same oracle as every other
level, independently of the compiled runtime (executor.py).

Logical inputs and outputs go through `multi.signature` exactly as at the device level
(placement.py); a module without device modules whose @main takes memrefs runs as one device.

`ReferenceKernels` offers the same kernels to the compiled runtime's executor (the
`KernelLibrary` interface of kernels.py): each call runs the kernel with these numerics on the
given arrays, in place.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, MemRefType, ModuleOp
from xdsl.traits import SymbolTable

from xdsl_multi.dialects.devidx import SPMD_ATTR
from xdsl_multi.dialects.multi import program_devices
from xdsl_multi.runtime.interpreter.device_runs import (
    argument_names,
    assemble,
    check_count,
    device_modules,
    local_parts,
    logical_signature,
    make_tables,
    run_device_modules,
)
from xdsl_multi.runtime.interpreter.machine import (
    InterpStats,
    Machine,
    OpTables,
    Run,
    no_requests,
    shared_kernel,
)
from xdsl_multi.runtime.interpreter.ops_memref import MEMREF_HANDLERS
from xdsl_multi.runtime.interpreter.ops_vector import VECTOR_HANDLERS
from xdsl_multi.runtime.interpreter.schedulers import run_lockstep
from xdsl_multi.runtime.placement import check_devices_known, prepare_inputs
from xdsl_multi.runtime.values import Buffer, InterpreterError, Value, dtype_of


def kernel_tables() -> OpTables:
    tables = make_tables()
    tables.lifted.update(MEMREF_HANDLERS)
    tables.lifted.update(VECTOR_HANDLERS)
    return tables


def is_kernel_level_main(f: func.FuncOp) -> bool:
    """A host schedule: @main takes or returns memrefs."""
    ft = f.function_type
    return any(isinstance(t, MemRefType) for t in (*ft.inputs.data, *ft.outputs.data))


def _main(module: ModuleOp, entry: str) -> func.FuncOp:
    f = SymbolTable.lookup_symbol(module, entry)
    if not isinstance(f, func.FuncOp) or not f.body.blocks:
        raise InterpreterError(f"the module has no func.func @{entry} with a body")
    return f


def _arguments(f: func.FuncOp, parts: list[np.ndarray]) -> list[Value]:
    args: list[Value] = []
    for i, (t, x) in enumerate(zip(f.function_type.inputs.data, parts, strict=True)):
        if not isinstance(t, MemRefType):
            args.append(np.asarray(x, dtype_of(t))[()])
            continue
        if x.shape != tuple(t.get_shape()) or x.dtype != dtype_of(t):
            raise InterpreterError(
                f"argument {i}: the local part has shape {x.shape}, dtype {x.dtype}, but "
                f"@{f.sym_name.data} takes {t}"
            )
        args.append(Buffer(np.array(x), "argument"))
    return args


def _output(d: int, v: Value) -> np.ndarray:
    if isinstance(v, Buffer):
        if v.freed:
            raise InterpreterError(f"device {d} returns a buffer it freed")
        return np.array(v.data)
    return np.array(v)


def run_kernel_module(
    module: ModuleOp,
    inputs: Sequence[object],
    *,
    num_devices: int | None = None,
    entry: str = "main",
    stats: InterpStats | None = None,
) -> list[np.ndarray]:
    """Run a kernel-level module on logical inputs; return its logical outputs."""
    sig = logical_signature(module, entry)
    arrays = prepare_inputs(sig, inputs, argument_names(module, entry))
    if SPMD_ATTR in module.attributes:
        return _run_spmd(module, entry, sig, arrays, num_devices, stats)
    return run_device_modules(
        module, device_modules(module) or {0: module}, entry, sig, arrays, num_devices, stats,
        kernel_tables(), _main, lambda f, sig, parts, d: _arguments(f, parts), _output,
    )


def _run_spmd(
    module: ModuleOp,
    entry: str,
    sig: FunctionType,
    arrays: list[np.ndarray],
    num_devices: int | None,
    stats: InterpStats | None,
) -> list[np.ndarray]:
    """An SPMD module (`devidx.spmd`): its one host schedule on every device of
    `multi.devices`, in lockstep (fetches and allreduces meet as at the SPMD level)."""
    devices = program_devices(module)
    n = len(devices)
    check_count(n, num_devices)
    check_devices_known(sig, devices)
    f = _main(module, entry)
    runs: list[Run] = []
    for d in range(n):
        parts = local_parts(f, sig, arrays, d, devices)
        machine = Machine(kernel_tables(), module, "device", d, devices, stats)
        runs.append(machine.call(f, _arguments(f, parts)))
    with np.errstate(all="ignore"):
        per_device = run_lockstep(runs, stats)
    return assemble(sig, per_device, devices, _output)


class ReferenceKernels:
    """The kernels of a kernel-level module run with the interpreter's numerics, for the
    executor (`kernels.KernelLibrary`): arrays are written in place."""

    def __init__(self, module: ModuleOp) -> None:
        self._mods = device_modules(module) or {0: module}
        self._spmd = module if SPMD_ATTR in module.attributes else None
        self._tables = kernel_tables()

    def kernel(self, device: int, name: str):  # -> kernels.Kernel
        mod = self._spmd or self._mods[device]
        f = SymbolTable.lookup_symbol(mod, name)
        if isinstance(f, func.FuncOp):  # SPMD mode: a declaration of device K's kernel
            f = shared_kernel(f) or f
        if not isinstance(f, func.FuncOp) or not f.body.blocks:
            raise KeyError(name)
        mod = f.parent_op()
        tables = self._tables

        def run(args: Sequence[object]) -> None:
            values: list[Value] = []
            for t, a in zip(f.function_type.inputs.data, args, strict=True):
                if isinstance(t, MemRefType):
                    values.append(Buffer(a, "argument"))  # type: ignore[arg-type]
                else:
                    values.append(np.asarray(a, dtype_of(t))[()])
            machine = Machine(tables, mod, "device", device, [], None)
            with np.errstate(all="ignore"):
                no_requests(machine.call(f, values), "a kernel (it may not communicate)")

        return run

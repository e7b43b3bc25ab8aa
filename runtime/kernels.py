"""How the executor calls kernels: the `KernelLibrary` interface and its implementations.

```python
library.kernel(device, "kernel0")(buffers_and_scalars)   # runs device's @kernel0 in place
```

A kernel takes its arguments in the order of its `func.func` (memrefs as numpy arrays, 64-byte
aligned and C-contiguous; index scalars as Python ints) and writes its outputs into the arrays
it is given. Implementations:

- `NativeKernel`: machine code at an address, called through ctypes (which releases the GIL, so
  devices on threads run in parallel); one `void*` per memref, `int64` per index.
- `JitKernels`: the kernels of an llvm-level module, compiled by lowering/jit.py.
- `kernel_level.ReferenceKernels`: the kernel-level `func.func`s run by the reference
  interpreter. Slow, but needs no compiler: the executor's tests use it for scheduling,
  messaging and failures.
- `PythonKernels`: plain Python functions by name (tests).

Which arguments a kernel writes is lowering/kernel_facts.py's `written_arguments`.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

import numpy as np
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.traits import SymbolTable

from xdsl_multi.dialects.multi import LLVM_NAME_ATTR
from xdsl_multi.lowering.llvm_types import LLVM_CTYPES
from xdsl_multi.runtime.interpreter.device_runs import device_modules
from xdsl_multi.runtime.interpreter.machine import shared_kernel

KernelArg = np.ndarray | int | float
Kernel = Callable[[Sequence[KernelArg]], None]
"""Runs one kernel on its arguments; raises on failure."""


class KernelLibrary(Protocol):
    """The kernels of a program, by device number and kernel name."""

    def kernel(self, device: int, name: str) -> Kernel:
        """The kernel `name` of device `device`; raises KeyError if there is none."""
        ...


# ---------------------------------------------------------------------------------------------
# Native code
# ---------------------------------------------------------------------------------------------




class NativeKernel:
    """A `void f(...)` at `address` called through ctypes, which releases the GIL: arrays are
    passed as their data pointer, scalars by value. No per-call checks: the executor checked
    the buffer types when it read the schedule. `owner` (the JIT's compiled kernel, which
    keeps its execution engine) is kept alive as long as this."""

    def __init__(
        self, address: int, kinds: Sequence[str], name: str = "kernel", owner: object = None
    ) -> None:
        self.name = name
        self.kinds = tuple(kinds)
        self.owner = owner
        proto = ctypes.CFUNCTYPE(None, *(LLVM_CTYPES[k] for k in self.kinds))
        self._fn = proto(address)

    def __call__(self, args: Sequence[KernelArg]) -> None:
        if len(args) != len(self.kinds):
            raise TypeError(f"@{self.name} takes {len(self.kinds)} arguments, got {len(args)}")
        self._fn(*(a.ctypes.data if isinstance(a, np.ndarray) else a for a in args))


def llvm_kernel_names(module: ModuleOp) -> dict[tuple[int, str], str]:
    """(device, kernel name) -> the name of its `llvm.func`, from the declarations
    convert-to-llvm leaves in the device modules."""
    names: dict[tuple[int, str], str] = {}
    for device, mod in device_modules(module).items():
        for op in mod.walk():
            if isinstance(op, func.FuncOp) and isinstance(
                attr := op.attributes.get(LLVM_NAME_ATTR), StringAttr
            ):
                names[(device, op.sym_name.data)] = attr.data
    return names


EVERY_DEVICE = -1
"""The device of a `names` entry for a kernel that every device runs (SPMD mode's one module
holds its kernels at the top, not in a device module)."""


class JitKernels:
    """The kernels of an llvm-level module, compiled by lowering/jit.py (identical kernels
    once), called through ctypes: every device's, or only those of `devices` (an MPI rank
    compiles its own). `cache` is a `jit.KernelCache` to share between programs."""

    def __init__(
        self, module: ModuleOp, devices: Sequence[int] | None = None, cache: object = None
    ) -> None:
        from xdsl_multi.lowering import jit  # the JIT is only needed by compiled runs

        self._names = llvm_kernel_names(module)
        self._names.update(  # SPMD mode: one kernel for every device, in the top module
            ((EVERY_DEVICE, op.sym_name.data), attr.data)
            for op in module.ops
            if isinstance(op, func.FuncOp)
            and isinstance(attr := op.attributes.get(LLVM_NAME_ATTR), StringAttr)
        )
        if devices is not None:
            # keep the wanted devices' modules, and those holding kernels they call (SPMD
            # mode: device 0's module holds every device's kernels)
            wanted = {name for (d, _), name in self._names.items() if d in devices}
            module = module.clone()
            for device, mod in device_modules(module).items():
                if device in devices:
                    continue
                if any(
                    isinstance(op, llvm.FuncOp) and op.sym_name.data in wanted
                    for op in mod.ops
                ):
                    continue
                mod.detach()
                mod.erase()
        self._compiled: dict[str, jit.CompiledKernel] = {}
        self.llvm_ir: str | None = None
        """The LLVM IR text of the kernels (None: there are none), for `from_llvm_ir`."""
        self.only: frozenset[str] | None = None
        """The kernels of `llvm_ir` that were compiled (None: all)."""
        if any(isinstance(op, llvm.FuncOp) for op in module.walk()):  # (a device may run none)
            kernel_cache = cache if isinstance(cache, jit.KernelCache) else jit.KernelCache()
            self.llvm_ir, signatures, self.only = kernel_cache.kernels_of(module)
            self._compiled = kernel_cache.compile_kernels(
                self.llvm_ir, only=self.only, signatures=signatures
            )

    @classmethod
    def from_llvm_ir(
        cls,
        names: Mapping[tuple[int, str], str],
        llvm_ir: str | None,
        only: frozenset[str] | None = None,
        cache: object = None,
    ) -> JitKernels:
        """The kernels of LLVM IR text without the module it came from (a cached program):
        `names` maps (device, kernel name) to the `llvm.func` symbol (`llvm_kernel_names`),
        `only` the functions of `llvm_ir` to compile (None: all), as a JitKernels built
        from the module records them."""
        from xdsl_multi.lowering import jit  # the JIT is only needed by compiled runs

        self = cls.__new__(cls)
        self._names = dict(names)
        self.llvm_ir, self.only = llvm_ir, only
        self._compiled = {}
        if llvm_ir is not None:
            kernel_cache = cache if isinstance(cache, jit.KernelCache) else jit.KernelCache()
            self._compiled = kernel_cache.compile_kernels(llvm_ir, only=only)
        return self

    @property
    def names(self) -> dict[tuple[int, str], str]:
        """(device, kernel name) -> the `llvm.func` symbol that runs it (device `EVERY_DEVICE`:
        a kernel of SPMD mode's one module, run by every device)."""
        return dict(self._names)

    def kernel(self, device: int, name: str) -> Kernel:
        symbol = (
            self._names.get((device, name))
            or self._names.get((EVERY_DEVICE, name))
            or f"device{device}_{name}"
        )
        compiled = self._compiled.get(symbol) or self._compiled.get(name)
        if compiled is None:
            raise KeyError(name)
        return NativeKernel(
            compiled.address, [a.llvm_type for a in compiled.args], compiled.name, compiled
        )


# ---------------------------------------------------------------------------------------------
# Python kernels
# ---------------------------------------------------------------------------------------------


class PythonKernels:
    """Kernels given as Python functions, by `name` (every device) or `(device, name)`."""

    def __init__(self, table: Mapping[str | tuple[int, str], Kernel]) -> None:
        self._table = dict(table)

    def kernel(self, device: int, name: str) -> Kernel:
        if (device, name) in self._table:
            return self._table[(device, name)]
        return self._table[name]


# ---------------------------------------------------------------------------------------------
# Which kernel arguments are written
# ---------------------------------------------------------------------------------------------

def defined_llvm_functions(top: ModuleOp) -> dict[str, llvm.FuncOp]:
    """Every `llvm.func` with a body anywhere in the program, by name (the first of a name in
    walk order), for `find_kernel_ir`: one walk of the program for all its kernels."""
    out: dict[str, llvm.FuncOp] = {}
    for op in top.walk():
        if isinstance(op, llvm.FuncOp) and op.body.blocks:
            out.setdefault(op.sym_name.data, op)
    return out


def find_kernel_ir(
    top: ModuleOp,
    device_module: ModuleOp,
    device: int,
    name: str,
    defined: Mapping[str, llvm.FuncOp] | None = None,
) -> Operation | None:
    """The IR of device `device`'s kernel `name`: `func.func @name` in its module, or the
    `llvm.func` convert-to-llvm made of it (named by the declaration's `multi.llvm_kernel`,
    else `device{K}_{name}`) anywhere in the program. `defined`: the program's
    `defined_llvm_functions`, when the caller looks up many kernels (else it walks `top`)."""
    found = SymbolTable.lookup_symbol(device_module, name)
    if isinstance(found, func.FuncOp):  # SPMD mode: a declaration of device K's kernel
        found = shared_kernel(found) or found
    if isinstance(found, func.FuncOp | llvm.FuncOp) and found.body.blocks:
        return found
    wanted = f"device{device}_{name}"
    if found is not None and isinstance(attr := found.attributes.get(LLVM_NAME_ATTR), StringAttr):
        wanted = attr.data
    return (defined if defined is not None else defined_llvm_functions(top)).get(wanted)

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
- `InterpKernels`: the kernel-level `func.func`s run by xDSL's interpreter. Slow, but needs
  no compiler: the executor's tests use it for scheduling, messaging and failures.
- `PythonKernels`: plain Python functions by name (tests).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import IndexType, IntegerType, MemRefType, ModuleOp
from xdsl.ir import Attribute
from xdsl.traits import SymbolTable

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

_CTYPES_OF_KIND: dict[str, Any] = {
    "ptr": ctypes.c_void_p,
    "i64": ctypes.c_int64,
    "i32": ctypes.c_int32,
    "f64": ctypes.c_double,
    "f32": ctypes.c_float,
}


def arg_kind(t: Attribute) -> str:
    """How an argument of kernel-level type `t` is passed to machine code (bare pointers)."""
    if isinstance(t, MemRefType):
        return "ptr"
    if isinstance(t, IndexType):
        return "i64"
    if isinstance(t, IntegerType) and t.width.data in (32, 64):
        return f"i{t.width.data}"
    raise TypeError(f"kernel arguments of type {t} are not supported")


class NativeKernel:
    """A `void f(...)` at `address` called through ctypes: arrays are passed as their data
    pointer, scalars by value. The object that owns the code must outlive this."""

    def __init__(self, address: int, kinds: Sequence[str], name: str = "kernel") -> None:
        self.name = name
        self.kinds = tuple(kinds)
        proto = ctypes.CFUNCTYPE(None, *(_CTYPES_OF_KIND[k] for k in self.kinds))
        self._fn = proto(address)

    def __call__(self, args: Sequence[KernelArg]) -> None:
        if len(args) != len(self.kinds):
            raise TypeError(f"@{self.name} takes {len(self.kinds)} arguments, got {len(args)}")
        self._fn(*(a.ctypes.data if isinstance(a, np.ndarray) else a for a in args))


class JitKernels:
    """Kernels compiled from an llvm-level module by lowering/jit.py, looked up as
    `device{K}_{name}` (the name convert-to-llvm gives device K's `@name`)."""

    def __init__(self, module: ModuleOp, devices: Sequence[int] | None = None) -> None:
        from xdsl_multi.lowering import jit  # the JIT is only needed by compiled runs

        self._compiled = jit.compile_kernels(module)
        self._devices = None if devices is None else set(devices)

    def kernel(self, device: int, name: str) -> Kernel:
        for symbol in (f"device{device}_{name}", name):
            found = self._compiled.get(symbol)  # type: ignore[attr-defined]
            if found is not None:
                return found
        raise KeyError(name)


# ---------------------------------------------------------------------------------------------
# Interpreted and Python kernels
# ---------------------------------------------------------------------------------------------


class PythonKernels:
    """Kernels given as Python functions, by `name` (every device) or `(device, name)`."""

    def __init__(self, table: Mapping[str | tuple[int, str], Kernel]) -> None:
        self._table = dict(table)

    def kernel(self, device: int, name: str) -> Kernel:
        if (device, name) in self._table:
            return self._table[(device, name)]
        return self._table[name]


class InterpKernels:
    """Each device module's kernel-level `func.func`s, run by xDSL's interpreter (scf, memref,
    arith, math, func). Arrays are copied into the interpreter's memory and back."""

    def __init__(self, device_modules: Mapping[int, ModuleOp]) -> None:
        self._modules = dict(device_modules)

    def kernel(self, device: int, name: str) -> Kernel:
        module = self._modules[device]
        f = SymbolTable.lookup_symbol(module, name)
        if not isinstance(f, func.FuncOp) or not f.body.blocks:
            raise KeyError(name)
        return _InterpretedKernel(module, f)


class _InterpretedKernel:
    def __init__(self, module: ModuleOp, f: func.FuncOp) -> None:
        from xdsl.interpreter import Interpreter
        from xdsl.interpreters.arith import ArithFunctions
        from xdsl.interpreters.builtin import BuiltinFunctions
        from xdsl.interpreters.func import FuncFunctions
        from xdsl.interpreters.math import MathFunctions
        from xdsl.interpreters.memref import MemRefFunctions
        from xdsl.interpreters.scf import ScfFunctions

        self._name = f.sym_name.data
        self._types = f.function_type.inputs.data
        self._interpreter = Interpreter(module)
        for functions in (
            ArithFunctions(),
            BuiltinFunctions(),
            FuncFunctions(),
            MathFunctions(),
            MemRefFunctions(),
            ScfFunctions(),
        ):
            self._interpreter.register_implementations(functions)

    def __call__(self, args: Sequence[KernelArg]) -> None:
        from xdsl.interpreters.builtin import xtype_for_el_type
        from xdsl.interpreters.shaped_array import ShapedArray
        from xdsl.interpreters.utils.ptr import RawPtr, TypedPtr

        if len(args) != len(self._types):
            raise TypeError(f"@{self._name} takes {len(self._types)} arguments, got {len(args)}")
        values: list[object] = []
        for a, t in zip(args, self._types, strict=True):
            if isinstance(a, np.ndarray) and isinstance(t, MemRefType):
                xtype = xtype_for_el_type(t.get_element_type(), 64)
                data = np.ascontiguousarray(a).astype(a.dtype, copy=False)
                ptr = TypedPtr(RawPtr(bytearray(data.tobytes())), xtype=xtype)
                values.append(ShapedArray(ptr, list(a.shape)))
            else:
                values.append(a)
        self._interpreter.call_op(self._name, tuple(values))
        for a, v in zip(args, values, strict=True):
            if isinstance(a, np.ndarray) and isinstance(v, ShapedArray):
                raw = v.data_ptr.raw.memory
                a[...] = np.frombuffer(raw, a.dtype, count=a.size).reshape(a.shape)

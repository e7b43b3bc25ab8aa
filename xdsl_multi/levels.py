"""The five levels of a program (DESIGN.md, docs/architecture.md) and how to tell which one a
module is at. The one place that names them: the pipeline (pipeline.py), the interpreter, the
compile cache and the tools all ask here. Imports only xDSL and the dialects, so everyone can
use it without the runtime.

```python
from xdsl_multi.levels import Level, detect_level
detect_level(module)        # Level.MULTI, SPMD, DEVICE, KERNEL or LLVM
```

| level | how it is recognized (first rule that holds, from the bottom up) |
|---|---|
| `LLVM` | a kernel is an `llvm.func` with a body (convert-to-llvm's output) |
| `KERNEL` | a device module (or the module alone) has a `func.func` kernel (`multi.kernel`) or a host schedule over memrefs (form-kernels' output) |
| `DEVICE` | nested `builtin.module`s with `devidx.device = K` (specialize-devices' output) |
| `SPMD` | a `multi.signature` attribute or a `devidx` op (multi-to-devidx's output) |
| `MULTI` | anything else: tensors with `#multi` encodings and `multi` ops |
"""

from __future__ import annotations

from enum import Enum

from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp

from xdsl_multi.dialects.devidx import DEVICE_ATTR, Devidx
from xdsl_multi.dialects.multi import KERNEL_ATTR, SIGNATURE_ATTR


class Level(Enum):
    """The levels in pipeline order (docs/architecture.md has the picture)."""

    MULTI = "multi"
    SPMD = "spmd"
    DEVICE = "device"
    KERNEL = "kernel"
    LLVM = "llvm"


class LevelError(Exception):
    """The module's device modules contradict each other (no level can be told)."""


def device_modules(module: ModuleOp) -> dict[int, ModuleOp]:
    """The nested device modules of a specialized module (`devidx.device = K`), by K."""
    found: dict[int, ModuleOp] = {}
    for op in module.body.block.ops:
        if isinstance(op, ModuleOp) and DEVICE_ATTR in op.attributes:
            attr = op.attributes[DEVICE_ATTR]
            if not isinstance(attr, IntegerAttr):
                raise LevelError(f"{DEVICE_ATTR} must be an integer attribute, found {attr}")
            k = attr.value.data
            if k in found:
                raise LevelError(f"two nested modules have {DEVICE_ATTR} = {k}")
            found[k] = op
    return found


def is_llvm_level(module: ModuleOp) -> bool:
    """Some kernel is an `llvm.func` with a body."""
    return any(isinstance(op, llvm.FuncOp) and op.body.blocks for op in module.walk())


def is_kernel_level(module: ModuleOp) -> bool:
    """Device modules with kernels (`multi.kernel`) or host schedules over memrefs
    (form-kernels made them; a device-level @main may call helper functions on tensors), or
    such a module alone (form-kernels on a lone @main, one device). Also true at the llvm
    level, whose host schedules are still over memrefs."""
    for mod in device_modules(module).values() or [module]:
        for op in mod.walk():
            if isinstance(op, func.FuncOp) and (
                KERNEL_ATTR in op.attributes
                or any(
                    isinstance(t, MemRefType)
                    for t in (*op.function_type.inputs, *op.function_type.outputs)
                )
            ):
                return True
    return False


def detect_level(module: ModuleOp) -> Level:
    """The level `module` is at (the module docstring's table). Raises LevelError."""
    if is_llvm_level(module):
        return Level.LLVM
    if is_kernel_level(module):
        return Level.KERNEL
    if device_modules(module):
        return Level.DEVICE
    if SIGNATURE_ATTR in module.attributes:
        return Level.SPMD
    if any(op.dialect_name() == Devidx.name for op in module.walk()):
        return Level.SPMD
    return Level.MULTI


__all__ = [
    "Level",
    "LevelError",
    "detect_level",
    "device_modules",
    "is_kernel_level",
    "is_llvm_level",
]

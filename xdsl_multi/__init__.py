"""xdsl-multi: tinygrad multi-device ops as xDSL dialects.

The public Python API (SPEC §7, docs/python-api.md), loaded on first use so that
`import xdsl_multi` stays cheap (no llvmlite, no mpi4py, no pass modules):

```python
import xdsl_multi as xm
prog = xm.compile("examples/layernorm.mlir")     # xm.Program; bad input: xm.CompileError
```
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xdsl_multi.api import CompileError, Program, compile
    from xdsl_multi.builder import Builder

_LAZY = {
    "compile": "xdsl_multi.api",
    "Program": "xdsl_multi.api",
    "CompileError": "xdsl_multi.api",
    "Builder": "xdsl_multi.builder",
}
"""Public name -> the module that defines it."""


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'xdsl_multi' has no attribute '{name}'")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


__all__ = ["Builder", "CompileError", "Program", "compile"]

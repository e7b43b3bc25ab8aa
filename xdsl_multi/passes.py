"""The one list of this project's dialects, passes and targets, resolved lazily.

Each entry maps a name to `"module:attribute"`. Nothing is imported until a factory is called,
so `xdsl-opt` and `multi-opt` start without loading our dialects or passes.

Adding a pass is one line in `_PASSES`:

    "devidx-simplify": "xdsl_multi.transforms.devidx_simplify.devidx_simplify:DevidxSimplify",

Entries whose module does not exist yet are left out (`importlib.util.find_spec`), so the table
can name planned work; test/test_registry.py checks that every entry whose module exists
resolves to the right kind of object with the name used here.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from xdsl.ir import Dialect
    from xdsl.passes import ModulePass
    from xdsl.utils.target import Target

_DIALECTS: dict[str, str] = {
    "multi": "xdsl_multi.dialects.multi:Multi",
    "tg": "xdsl_multi.dialects.tg:TG",
    "devidx": "xdsl_multi.dialects.devidx:Devidx",
}

_PASSES: dict[str, str] = {
    "multi-to-devidx": "xdsl_multi.transforms.multi_to_devidx.multi_to_devidx:MultiToDevidx",
    "devidx-simplify": "xdsl_multi.transforms.devidx_simplify.devidx_simplify:DevidxSimplify",
    "specialize-devices": "xdsl_multi.transforms.specialize_devices.specialize_devices:SpecializeDevices",
    "form-kernels": "xdsl_multi.transforms.form_kernels.form_kernels:FormKernels",
    "convert-to-llvm": "xdsl_multi.lowering.convert_to_llvm:ConvertToLLVM",
    "multi-to-llvm": "xdsl_multi.pipeline:MultiToLLVM",
}


LLVM_KERNELS_TARGET = "multi-llvm"
"""Our `-t llvm` (SPEC §5) under the name stock `xdsl-opt` knows it by: xDSL has its own
`llvm` target, and two plugins defining one target name break every `xdsl-opt` start."""

_TARGETS: dict[str, str] = {
    LLVM_KERNELS_TARGET: "xdsl_multi.lowering.llvm_target:LLVMKernelsTarget",
}


def resolve(target: str) -> Any:
    """Import `"module:attribute"` and return the attribute."""
    module_name, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module_name), attribute)


def _module_exists(target: str) -> bool:
    module_name = target.partition(":")[0]
    try:
        return importlib.util.find_spec(module_name) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


def _factories(table: Mapping[str, str]) -> dict[str, Callable[[], Any]]:
    # A partial takes no parameters: xDSL calls a target factory that takes any as a legacy
    # `(module, output)` target.
    return {
        name: partial(resolve, target) for name, target in table.items() if _module_exists(target)
    }


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    """Dialect name -> factory, for every dialect whose module exists."""
    return _factories(_DIALECTS)


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Pass name -> factory returning the pass class, for every pass whose module exists."""
    return _factories(_PASSES)


def get_all_targets() -> dict[str, Callable[[], type[Target]]]:
    """Target name -> factory returning the target class."""
    return _factories(_TARGETS)


def registered_entries() -> dict[str, dict[str, str]]:
    """The raw tables (including entries whose module is not written yet), for tests and docs."""
    return {"dialects": dict(_DIALECTS), "passes": dict(_PASSES), "targets": dict(_TARGETS)}

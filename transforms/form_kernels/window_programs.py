"""Programs whose devices differ only in their shard windows: for them, form-kernels' SPMD
builder gives every device the kernels specialize-devices would, in one pass instead of N.

```mlir
// SPMD level, after devidx-simplify (BENCH W7: 1000 rows over 3 devices)
%d = devidx.device_num : index
%lo = arith.muli %d, %c334 : index                   // d only in index arithmetic ...
%p = tg.pad %x [[%lo, %hi], [0, 0]] invalid : ...    // ... that ends in pad/shrink bounds
%s = tg.shrink %p [[0, 1000], [0, 999]] : ...
```

Every device runs the same tensor ops on a window of the logical tensor that moves with d,
and nothing moves between devices. specialize-devices would fold d into N copies and
simplify each; form-kernels{spmd=true} keeps d symbolic: index arithmetic cancels it where
the windows are the same (even shards: kernels with no d), and where a pad's check moves
with d it branches into one version per device, each with the loop splits specialize-devices
gives (kernel_analysis.py `device_versions`; versions that differ only in bounds share one
loop nest, as specialized mode's `share_kernels_across_devices` merges them). So the kernels
are the same code (BENCH W1, W2, W4, W7, C1: the same LLVM IR, test_window_programs.py),
and the default pipeline builds them that way (pipeline.py `lower_for_runtime`).

Not such a program (specialize-devices goes on): any message between devices (a fetch or a
collective: specialized mode narrows messages per sender), a device-dependent choice of
values (a select on d, `devidx.stack`/`devidx.index`: SPMD mode would run whole kernels
whose values only some devices use), and more than MAX_VERSIONS devices (SPMD mode then
keeps a moving check inside the loops instead of versions).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType, IntegerType, ModuleOp
from xdsl.ir import Operation, SSAValue

from xdsl_multi.dialects import devidx, tg
from xdsl_multi.dialects.devidx import DEVICE_ATTR
from xdsl_multi.dialects.multi import listed_devices
from xdsl_multi.transforms.form_kernels.kernel_analysis import MAX_VERSIONS

_LOCAL = (devidx.DeviceNumOp, devidx.InvalidOp, devidx.LookupOp)
"""The devidx ops that involve no other device and no choice of values by d."""


def windows_only(module: ModuleOp) -> bool:
    """Whether `module` (the SPMD level: `multi.devices` on it, no device modules in it) is a
    program whose devices differ only in their shard windows (the module docstring): at most
    MAX_VERSIONS devices, no devidx op but `device_num`, `invalid` and `lookup`, and every
    value computed from d is an `index` (or an `i1` comparison of them) that ends, through
    `arith` and `devidx.lookup`, in the bounds of a `tg.pad` or `tg.shrink`."""
    devices = listed_devices(module)
    if not devices or len(devices) > MAX_VERSIONS:
        return False
    device_numbers: list[SSAValue] = []
    for op in module.walk():
        if isinstance(op, ModuleOp) and DEVICE_ATTR in op.attributes:
            return False  # already specialized
        if op.dialect_name() == "devidx" and not isinstance(op, _LOCAL):
            return False
        if isinstance(op, devidx.DeviceNumOp):
            device_numbers.append(op.result)
    return _ends_in_bounds(device_numbers)


def _ends_in_bounds(values: list[SSAValue]) -> bool:
    """Whether every use of `values`, and of what index arithmetic computes from them, is a
    bound of a pad or a shrink."""
    seen: set[SSAValue] = set(values)
    todo = list(values)
    while todo:
        value = todo.pop()
        for use in value.uses:
            user = use.operation
            if isinstance(user, tg.PadOp | tg.ShrinkOp):
                if use.index == 0:
                    return False  # the tensor itself, not a bound
                continue
            if not _index_arithmetic(user):
                return False
            for result in user.results:
                if result not in seen:
                    seen.add(result)
                    todo.append(result)
    return True


def _index_arithmetic(op: Operation) -> bool:
    """An `arith` op or `devidx.lookup` whose results are all `index` or `i1` (a comparison
    of indices, or a select between them)."""
    if not (isinstance(op, devidx.LookupOp) or op.dialect_name() == "arith"):
        return False
    return all(
        isinstance(t, IndexType) or (isinstance(t, IntegerType) and t.width.data == 1)
        for t in op.result_types
    )


__all__ = ["windows_only"]

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
are the same code (BENCH W1, W2, W4, C1: the same LLVM IR, test_window_programs.py), and the
default pipeline builds them that way (pipeline.py `lower_for_runtime`). One exception, by
design: a reduction per output element over uneven rows (BENCH W7) keeps the check that
moves with d as one select per row instead of versions (kernel_analysis.py
`checks_per_reduction`): one loop nest where specialized mode splits off the padding rows,
with the same results and the same steady state.

Not such a program (specialize-devices goes on): any message between devices (a fetch or a
collective: specialized mode narrows messages per sender), a device-dependent choice of
values (a select on d, `devidx.stack`/`devidx.index`: SPMD mode would run whole kernels
whose values only some devices use), and more than MAX_VERSIONS devices (SPMD mode then
keeps a moving check inside the loops instead of versions).

One kind of message is let through, when asked (`windows_only(module, SMALL_ALLREDUCE)`):
an allreduce of at most SMALL_ALLREDUCE elements over every device, as one
`devidx.allreduce ... algorithm naive` (multi-to-devidx{collectives=ops}). Such an allreduce
is latency, not bandwidth (BENCH W3: a sum's one element): the runtime's collective moves it
as fast as specialized mode's messages and add kernel, and every kernel around it is the
same code either way. `small_allreduces_only` tells, at the multi level and on the types
alone, which programs may be such a program once lowered (pipeline.py tries those).
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import IndexType, IntegerType, ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue

from xdsl_multi.dialects import devidx, multi, tg
from xdsl_multi.dialects.devidx import DEVICE_ATTR
from xdsl_multi.dialects.multi import OnAttr, ShardAttr, listed_devices, placement_of
from xdsl_multi.transforms.form_kernels.kernel_analysis import MAX_VERSIONS

_LOCAL = (devidx.DeviceNumOp, devidx.InvalidOp, devidx.LookupOp)
"""The devidx ops that involve no other device and no choice of values by d."""


SMALL_ALLREDUCE = 1024
"""The most elements an allreduce may have in a windows-only program when allreduces are let
through (4 KB of f32: a message this small costs its latency, whoever moves it)."""


def windows_only(module: ModuleOp, allreduce_limit: int = 0) -> bool:
    """Whether `module` (the SPMD level: `multi.devices` on it, no device modules in it) is a
    program whose devices differ only in their shard windows (the module docstring): at most
    MAX_VERSIONS devices, no devidx op but `device_num`, `invalid` and `lookup` (and
    allreduces of at most `allreduce_limit` elements, `_small_allreduce`), and every value
    computed from d is an `index` (or an `i1` comparison of them) that ends, through `arith`
    and `devidx.lookup`, in the bounds of a `tg.pad` or `tg.shrink`."""
    devices = listed_devices(module)
    if not devices or len(devices) > MAX_VERSIONS:
        return False
    device_numbers: list[SSAValue] = []
    for op in module.walk():
        if isinstance(op, ModuleOp) and DEVICE_ATTR in op.attributes:
            return False  # already specialized
        if (
            op.dialect_name() == "devidx"
            and not isinstance(op, _LOCAL)
            and not (isinstance(op, devidx.AllreduceOp) and _small_allreduce(op, allreduce_limit))
        ):
            return False
        if isinstance(op, devidx.DeviceNumOp):
            device_numbers.append(op.result)
    return _ends_in_bounds(device_numbers)


def _small_allreduce(op: devidx.AllreduceOp, limit: int) -> bool:
    """An allreduce over every device (no groups, no members table) of a tensor of at most
    `limit` elements, scheduled naive."""
    t = op.value.type
    return (
        isinstance(t, TensorType)
        and math.prod(t.get_shape()) <= limit
        and op.algorithm.data == "naive"
        and op.group_mesh is None
        and op.members is None
    )


def small_allreduces_only(module: ModuleOp) -> bool:
    """Whether `module` (the multi level) may lower to a windows-only program with small
    allreduces, read off its ops' types: it has an allreduce (`multi.allreduce`, or an op
    that makes a `#multi.on` value over several devices out of a sharded one: a reduce over
    the shard axis) and every one is of at most SMALL_ALLREDUCE elements, on a device list
    (not a mesh) of at most MAX_VERSIONS devices, with no COPY, MSELECT or MSTACK (they move
    or choose values by device). A cheap filter: pipeline.py lowers the program and asks
    `windows_only` before taking the route."""
    devices = listed_devices(module)
    if not devices or len(devices) > MAX_VERSIONS:
        return False
    found = False
    for op in module.walk():
        if isinstance(op, multi.CopyOp | multi.MselectOp | multi.MstackOp):
            return False
        shards = [p for v in op.operands if isinstance(p := placement_of(v.type), ShardAttr)]
        if any(s.is_mesh for s in shards):
            return False  # a reduce over mesh dims: grouped allreduces
        if not (isinstance(op, multi.AllreduceOp) or shards):
            continue
        for t in op.result_types:
            on = placement_of(t)
            if isinstance(on, OnAttr) and on.num_devices > 1:
                assert isinstance(t, TensorType)
                if math.prod(t.get_shape()) > SMALL_ALLREDUCE:
                    return False
                found = True
    return found


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


__all__ = ["SMALL_ALLREDUCE", "small_allreduces_only", "windows_only"]

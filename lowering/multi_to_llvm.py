"""Pass `multi-to-llvm`: the whole pipeline from the multi level to LLVM (SPEC §5).

```
multi-to-devidx{allreduce, ring-threshold} -> devidx-simplify -> specialize-devices
  -> form-kernels -> convert-to-llvm
```

The result keeps each device's host schedule as MLIR (for the runtime) and its kernels in the
`llvm` dialect; `multi-opt -p multi-to-llvm -t llvm` prints every device's kernels as one LLVM
module. The options are those of the passes it runs, and `spmd=true` for SPMD mode
(multi-to-devidx, devidx-simplify, form-kernels{spmd=true}, convert-to-llvm).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xdsl_multi.lowering.convert_to_llvm import ConvertToLLVM
from xdsl_multi.transforms.devidx_simplify import DevidxSimplify
from xdsl_multi.transforms.form_kernels import FormKernels
from xdsl_multi.transforms.multi_to_devidx import MultiToDevidx
from xdsl_multi.transforms.specialize_devices import SpecializeDevices


@dataclass(frozen=True)
class MultiToLLVM(ModulePass):
    """multi-to-devidx, devidx-simplify, specialize-devices, form-kernels, convert-to-llvm."""

    name = "multi-to-llvm"

    allreduce: str = "auto"
    ring_threshold: int = 256000
    spmd: bool = False
    """SPMD mode: no specialize-devices; form-kernels{spmd=true} builds the kernels once."""

    def passes(self) -> tuple[ModulePass, ...]:
        lowering = MultiToDevidx(allreduce=self.allreduce, ring_threshold=self.ring_threshold)
        if self.spmd:
            return (lowering, DevidxSimplify(), FormKernels(spmd=True), ConvertToLLVM())
        return (lowering, DevidxSimplify(), SpecializeDevices(), FormKernels(), ConvertToLLVM())

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for p in self.passes():
            p.apply(ctx, op)

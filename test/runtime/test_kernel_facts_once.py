"""compile_schedules finds every kernel's IR with one walk of the program (issue 14, compile
time: it walked the whole program once per kernel call of every device, O(N^2) in the
device count: W6 at N = 8 with the ring allreduce, 72 calls, half a second), and finds the
same kernels, hence the same written arguments, as a lookup of each on its own."""

from __future__ import annotations

import pytest
from multi_programs import sum_to_every_device
from xdsl.context import Context

from xdsl_multi.compile_cache import to_runtime_form
from xdsl_multi.dialects import make_context
from xdsl_multi.dialects.parsing import parse_mlir
from xdsl_multi.lowering.kernel_facts import written_arguments
from xdsl_multi.pipeline import MultiToLLVM
from xdsl_multi.runtime import schedule
from xdsl_multi.runtime.interpreter.device_runs import device_modules
from xdsl_multi.runtime.kernels import find_kernel_ir


@pytest.mark.parametrize("runtime_form", [False, True])
@pytest.mark.parametrize("allreduce", ["ring", "all2all"])
def test_kernels_are_found_with_one_walk_of_the_program(
    allreduce: str, runtime_form: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = parse_mlir(make_context(), sum_to_every_device(4, 64))
    MultiToLLVM(allreduce=allreduce).apply(Context(), module)
    if runtime_form:
        to_runtime_form(module)
    walks = []
    index = schedule.defined_llvm_functions

    def counted(top):  # type: ignore[no-untyped-def]
        walks.append(top)
        return index(top)

    monkeypatch.setattr(schedule, "defined_llvm_functions", counted)
    schedules = schedule.compile_schedules(module, "threads")
    assert len(walks) == 1
    mods = device_modules(module)
    calls = 0
    for d, sched in enumerate(schedules):
        assert sched.kernel_names
        for name in sched.kernel_names:
            ir = find_kernel_ir(module, mods[d], d, name)  # on its own: a walk of its own
            assert ir is not None
            assert sched.written[name] == written_arguments(ir)
            calls += 1
    assert calls >= 4

"""The compiled runtime on the threads backend: schedules read into steps, memory plans,
hand-over sends, kernels through the JIT, xDSL's interpreter and Python functions, and every
failure path (a failing kernel, a receive that never comes)."""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Sequence

import numpy as np
import pytest
from kernel_programs import exchange_program, forward_program, parse
from xdsl.parser import Parser

from xdsl_multi.dialects import make_context
from xdsl_multi.runtime.buffers import (
    BufferType,
    DeviceMemory,
    Lifetime,
    aligned_copy,
    aligned_empty,
    allocated_meanwhile,
    is_aligned,
    peak_live_bytes,
    plan_memory,
)
from xdsl_multi.runtime.executor import ExecutionError
from xdsl_multi.runtime.kernels import KernelArg, PythonKernels
from xdsl_multi.runtime.placement import local_part, placed_local_part
from xdsl_multi.runtime.program import Program
from xdsl_multi.runtime.schedule import (
    Alloc,
    Call,
    Free,
    Recv,
    ScheduleError,
    Send,
    compile_schedules,
)
from xdsl_multi.runtime.values import dtype_of


def numpy_add(args: Sequence[KernelArg]) -> None:
    a, b, out = args
    np.add(a, b, out=out)  # type: ignore[call-overload]


def exchange_expected(x: np.ndarray, y: np.ndarray, n: int) -> list[np.ndarray]:
    s = (x + y).reshape(n, -1)
    t = np.stack([s[d] + s[(d - 1) % n] for d in range(n)])
    return [x + y, t[0] if n == 1 else t]  # one device: no device axis


def llvm_level(text: str):
    from xdsl_multi.lowering.convert_to_llvm import ConvertToLLVM

    module = parse(text)
    ConvertToLLVM().apply(make_context(), module)
    return module


# ---------------------------------------------------------------------------------------------
# Buffers and plans
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(), (0,), (1,), (3, 5), (7, 1, 9)])
@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.float16, np.float32, np.int64])
def test_aligned_buffers(shape: tuple[int, ...], dtype: type) -> None:
    x = aligned_empty(shape, dtype)
    assert x.shape == shape and x.dtype == dtype and is_aligned(x)
    src = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape).astype(dtype)
    y = aligned_copy(src)
    assert is_aligned(y) and np.array_equal(y, src) and not np.shares_memory(y, src)


DEVICES4 = ["CPU:0", "CPU:1", "CPU:2", "CPU:3"]


@pytest.mark.parametrize(
    "type_text, shape",
    [
        ('tensor<5x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>', (5, 3)),
        ('tensor<2x4xf32, #multi.shard<["CPU:1", "CPU:0", "CPU:2"], axis = 1>>', (4, 10)),
        ('tensor<1x2xi32, #multi.shard<["CPU:2", "CPU:3"], axis = 0>>', (1, 3)),
        (
            f"tensor<2x2xf32, #multi.shard<{DEVICES4}, mesh = [2, 2], axes = [0, 1]>>".replace("'", '"'),
            (3, 4),
        ),
        ('tensor<2x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>', (4, 2, 3)),
        ("tensor<2x3xf32>", (2, 3)),
        ("tensor<f32>", ()),
    ],
)
def test_a_placed_part_is_a_fresh_aligned_copy_of_the_local_part(
    type_text: str, shape: tuple[int, ...]
) -> None:
    """The runtime's placement writes each device's part once into a fresh aligned buffer,
    with the padding beyond a shard's block zeroed and devices off the list all zeros."""
    t = Parser(make_context(), type_text).parse_type()
    x = (np.arange(int(np.prod(shape))) + 1).reshape(shape).astype(dtype_of(t))
    for d in range(len(DEVICES4)):
        want = local_part(t, x, d, DEVICES4)
        for _ in range(3):  # fresh memory may hold anything: padding must be written
            got = placed_local_part(t, x, d, DEVICES4)
            assert got.shape == want.shape and got.dtype == want.dtype
            assert np.array_equal(got, want), (d, got, want)
            assert is_aligned(got) and not np.shares_memory(got, x)
            got[...] = 7  # garbage for the next allocation to reuse


def test_a_call_places_inputs_without_touching_the_callers_arrays() -> None:
    with Program(parse(forward_program()), PythonKernels({"kernel0": numpy_add})) as program:
        x = np.arange(4, dtype=np.float32)
        placed = program.place([x, x])
        for part in (p for parts in placed for p in parts):
            assert isinstance(part, np.ndarray) and not np.shares_memory(part, x)
            part[...] = -1
        np.testing.assert_array_equal(x, np.arange(4, dtype=np.float32))
        result = program.gather(program.run_placed(program.place([x, x])))
        np.testing.assert_array_equal(result[0], 2 * x)


def test_plan_reuses_slots_of_dead_buffers_and_never_overlaps_live_ones() -> None:
    rng = np.random.default_rng(0)
    for _ in range(50):
        lts = []
        for b in range(12):
            start = int(rng.integers(0, 20))
            lts.append(
                Lifetime(b, int(rng.integers(0, 5)) * 64, start, start + int(rng.integers(0, 6)))
            )
        plan = plan_memory(lts)
        for a in lts:
            for b in lts:
                if a.buffer < b.buffer and plan.slot_of[a.buffer] == plan.slot_of[b.buffer]:
                    assert a.end < b.start or b.end < a.start, (a, b)
        for lt in lts:
            assert plan.slot_bytes[plan.slot_of[lt.buffer]] >= lt.nbytes
        assert plan.total_bytes >= plan.peak_bytes == peak_live_bytes(lts)
    chain = [Lifetime(b, 100, b, b + 1) for b in range(10)]  # each lives two steps
    plan = plan_memory(chain)
    assert len(plan.slot_bytes) == 2 and plan.peak_bytes == 200


# ---------------------------------------------------------------------------------------------
# Schedules
# ---------------------------------------------------------------------------------------------


def test_schedule_steps_frees_and_plan() -> None:
    sched = compile_schedules(parse(exchange_program(2)), "threads")[0]
    kinds = [type(s) for s in sched.steps]
    assert kinds == [Alloc, Call, Send, Recv, Alloc, Call, Free]
    assert sched.steps[-1] == Free((3,))  # the received buffer, after its last use
    assert sched.results == (2, 4)
    assert sched.written == {"kernel0": frozenset({2})}
    # s is handed over (live to the end), t is a result: two slots of 16 bytes
    assert sched.plan.peak_bytes == 32 and sched.plan.total_bytes == 32


def test_mpi_plans_a_buffer_for_each_receive() -> None:
    sched = compile_schedules(parse(exchange_program(2)), "mpi")[0]
    assert sched.plan.peak_bytes == 48


def _edit(text: str, old: str, new: str, count: int = 1) -> str:
    assert old in text
    return text.replace(old, new, count)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "devidx.send %s to 1 channel 0",
            "devidx.send %s to 1 channel 5",
            "device 0 sends 0 message(s) to device 1 on channel 0, but device 1 receives 1",
        ),
        (
            "devidx.send %s to 1 channel 0",
            "devidx.send %s to 7 channel 0",
            "device 0: step 2 (send to device 7 channel 0): there is no device 7",
        ),
        (
            "memref.dealloc %r : memref<4xf32>",
            "memref.dealloc %s : memref<4xf32>",
            "uses a buffer after its memref.dealloc",
        ),
        (
            "%s = memref.alloc() : memref<4xf32>",
            "%s = memref.alloc() : memref<4xf32>\n      %q = memref.alloca() : memref<4xf32>",
            "not a host-schedule op",
        ),
    ],
)
def test_schedule_errors(old: str, new: str, message: str) -> None:
    text = _edit(exchange_program(2), old, new)
    with pytest.raises(ScheduleError, match=re.escape(message)):
        compile_schedules(parse(text), "threads")


def test_type_mismatch_and_deadlock_are_found_before_running() -> None:
    text = exchange_program(2)
    head, tail = forward_program().split("@device_1")
    tail = tail.replace("memref<4xf32> {", "memref<4xi32> {").replace(
        "channel 3 : memref<4xf32>", "channel 3 : memref<4xi32>"
    )
    wrong = head + "@device_1" + tail.replace("%r : memref<4xf32>", "%r : memref<4xi32>")
    with pytest.raises(ScheduleError, match="sent as float32.4., received as int32.4."):
        compile_schedules(parse(wrong), "threads")
    # both devices receive before they send
    swapped = text.replace("      devidx.send %s to {d} channel 0 : memref<4xf32>\n", "")
    for d in range(2):
        send = f"      devidx.send %s to {1 - d} channel 0 : memref<4xf32>\n"
        recv = f"      %r = devidx.recv from {1 - d} channel 0 : memref<4xf32>\n"
        swapped = swapped.replace(send + recv, recv + send, 1)
    with pytest.raises(ScheduleError, match="deadlock: device 0 at step 2 .recv from device 1"):
        compile_schedules(parse(swapped), "threads")


# ---------------------------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 3])
def test_jit_program_allocates_its_memory_while_compiling(n: int) -> None:
    """Program allocates device slots while LLVM compiles (`allocated_meanwhile`), at most
    the planned ones; the first run allocates what is left, and computes what later runs
    do."""
    text = exchange_program(n, 4 * n)
    x = np.arange(4 * n, dtype=np.float32)
    y = np.linspace(-1, 1, 4 * n, dtype=np.float32)
    with Program(llvm_level(text)) as program:
        planned = [sum(s.plan.slot_bytes) for s in program.schedules]
        assert all(0 <= h <= p for h, p in zip(program.held_bytes, planned, strict=True))
        for _ in range(2):
            outputs = program([x, y])
            assert program.held_bytes == planned
            for got, want in zip(outputs, exchange_expected(x, y, n), strict=True):
                np.testing.assert_array_equal(got, want)


def two_slot_memory() -> DeviceMemory:
    return DeviceMemory(plan_memory([Lifetime(0, 3 << 20, 0, 1), Lifetime(1, 64, 1, 2)]))


def test_memory_is_allocated_on_the_thread_while_the_body_runs() -> None:
    memories = [two_slot_memory(), two_slot_memory()]
    with allocated_meanwhile(memories):
        deadline = time.monotonic() + 60  # (no timing claim: just not forever)
        while any(m.allocated_bytes < sum(m.plan.slot_bytes) for m in memories):
            assert time.monotonic() < deadline, "the allocating thread never finished"
            time.sleep(0.001)
    assert all(m.allocated_bytes == sum(m.plan.slot_bytes) for m in memories)


def test_allocation_stops_when_asked() -> None:
    stop = threading.Event()
    stop.set()
    memory = two_slot_memory()
    assert memory.allocate(stop) is False
    assert memory.allocated_bytes < sum(memory.plan.slot_bytes)  # the rest: the first run's
    assert memory.allocate() is True
    assert memory.allocated_bytes == sum(memory.plan.slot_bytes)


def test_allocation_failure_on_the_thread_reaches_the_caller() -> None:
    class Failing:
        def allocate(self, stop: threading.Event) -> bool:
            raise MemoryError("no room for slot 0")

    ran = []
    with (
        pytest.raises(MemoryError, match="no room for slot 0"),
        allocated_meanwhile([Failing()]),  # type: ignore[list-item]
    ):
        ran.append(True)
    assert ran == [True]  # the body ran to its end first


def test_allocate_keeps_slots_and_contents() -> None:
    plan = plan_memory([Lifetime(0, 10_000, 0, 1), Lifetime(1, 64, 1, 2)])
    memory = DeviceMemory(plan)
    assert memory.allocate() is True
    assert memory.allocated_bytes == sum(plan.slot_bytes)
    view = memory.view(0, BufferType((2500,), np.dtype(np.float32)))
    view[:] = 7
    memory.allocate()  # (again: the same slots, their contents kept)
    assert memory.view(0, BufferType((2500,), np.dtype(np.float32))) is view
    assert (view == 7).all()


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("kernels", ["jit", "interp"])
def test_exchange_program_runs_and_reruns(n: int, kernels: str) -> None:
    text = exchange_program(n, 4 * n)
    module = llvm_level(text) if kernels == "jit" else parse(text)
    x = np.arange(4 * n, dtype=np.float32)
    y = np.linspace(-1, 1, 4 * n, dtype=np.float32)
    x0, y0 = x.copy(), y.copy()
    with Program(module) as program:
        outputs = program([x, y])
        for got, want in zip(outputs, exchange_expected(x, y, n), strict=True):
            np.testing.assert_array_equal(got, want)
        placed = program.place([x, y])
        assert all(is_aligned(a) for dev in placed for a in dev)  # type: ignore[arg-type]
        first = program.run_placed(placed)
        addresses = [[r.ctypes.data for r in dev] for dev in first]  # type: ignore[union-attr]
        held = program.held_bytes
        for _ in range(3):  # steady state: the same device memory, nothing new allocated
            again = program.run_placed(placed)
            assert [[r.ctypes.data for r in dev] for dev in again] == addresses  # type: ignore[union-attr]
            assert program.held_bytes == held
        assert program.peak_bytes == [32] * n
    np.testing.assert_array_equal(x, x0)
    np.testing.assert_array_equal(y, y0)


def test_gathered_outputs_survive_the_next_run() -> None:
    with Program(parse(exchange_program(2)), PythonKernels({"kernel0": numpy_add})) as program:
        ones = np.ones(8, np.float32)
        first = program([ones, ones])
        program([ones * 5, ones])
        np.testing.assert_array_equal(first[0], 2 * ones)


@pytest.mark.parametrize("write_received", [False, True])
def test_sends_hand_the_array_over_unless_someone_writes_it(write_received: bool) -> None:
    with Program(
        parse(forward_program(write_received)), PythonKernels({"kernel0": numpy_add})
    ) as program:
        sends = [s for s in program.schedules[0].steps if isinstance(s, Send)]
        assert [s.copy for s in sends] == [write_received]
        x = np.arange(4, dtype=np.float32)
        local = program.run_placed(program.place([x, x]))
        assert (local[1][0] is local[0][0]) is not write_received
        np.testing.assert_array_equal(local[0][0], 2 * x)  # the sender's buffer is intact
        np.testing.assert_array_equal(program.gather(local)[0], 2 * x)


def test_device_threads_are_pinned_to_their_own_cores() -> None:
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        pytest.skip("needs two cores")
    seen: dict[int, set[int]] = {}
    lock = threading.Lock()

    def kernel_on(device: int):
        def record(args: Sequence[KernelArg]) -> None:
            with lock:
                seen[device] = os.sched_getaffinity(0)
            numpy_add(args)

        return record

    kernels = PythonKernels({(d, "kernel0"): kernel_on(d) for d in range(2)})
    with Program(parse(exchange_program(2)), kernels, pin_threads=True) as program:
        program([np.ones(8, np.float32)] * 2)
    assert seen == {0: {cores[0]}, 1: {cores[1]}}
    assert os.sched_getaffinity(0) == set(cores)  # the caller's thread got its affinity back


def test_threads_are_pinned_by_default_only_for_big_kernels() -> None:
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs two cores")
    kernels = PythonKernels({"kernel0": numpy_add})
    small = Program(parse(exchange_program(2)), kernels)
    big = Program(parse(exchange_program(2, 1 << 20)), kernels)
    with small, big:
        assert [g.core for g in small._backend.groups] == [None, None]
        assert None not in [g.core for g in big._backend.groups]


def test_more_devices_than_cores_share_threads_in_turns(monkeypatch: pytest.MonkeyPatch) -> None:
    """5 devices on 2 cores: 2 threads run devices 0-1 and 2-4 in turns (a ring of sends)."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    threads: dict[int, str] = {}

    def record(device: int):
        def kernel(args: Sequence[KernelArg]) -> None:
            threads[device] = threading.current_thread().name
            numpy_add(args)

        return kernel

    kernels = PythonKernels({(d, "kernel0"): record(d) for d in range(5)})
    with Program(parse(exchange_program(5, 20)), kernels, pin_threads=False) as program:
        assert [[r.device for r in g.runners] for g in program._backend.groups] == [
            [0, 1],
            [2, 3, 4],
        ]
        x = np.arange(20, dtype=np.float32)
        for got, want in zip(program([x, x]), exchange_expected(x, x, 5), strict=True):
            np.testing.assert_array_equal(got, want)
    assert threads[0] == threads[1] == threading.current_thread().name
    assert threads[2] == threads[3] == threads[4] != threads[0]


def test_compiled_kernels_release_the_gil() -> None:
    """While both devices run a ~50 ms compiled kernel, this thread keeps running Python: the
    kernels are called through ctypes, which releases the GIL (so devices overlap too)."""
    n = 4096
    m = f"memref<{n}xf32>"
    spin = f"""
    func.func @kernel0(%a: {m}, %b: {m}, %out: {m}) attributes {{multi.kernel}} {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %cn = arith.constant {n} : index
      %ck = arith.constant 60000 : index
      scf.for %k = %c0 to %ck step %c1 {{
        scf.for %i = %c0 to %cn step %c1 {{
          %x = memref.load %a[%i] : {m}
          %y = memref.load %out[%i] : {m}
          %z = arith.addf %x, %y : f32
          memref.store %z, %out[%i] : {m}
        }}
      }}
      func.return
    }}"""
    shard = '#multi.shard<["CPU:0", "CPU:1"], axis = 0>'
    devices = ""
    for d in range(2):
        devices += f"""
  builtin.module @device_{d} attributes {{devidx.device = {d} : i64}} {{
    {spin}
    func.func @main(%x: {m}) -> {m} {{
      %s = memref.alloc() : {m}
      func.call @kernel0(%x, %x, %s) : ({m}, {m}, {m}) -> ()
      func.return %s : {m}
    }}
  }}"""
    text = (
        f'builtin.module attributes {{multi.devices = ["CPU:0", "CPU:1"], multi.signature = '
        f"(tensor<{2 * n}xf32, {shard}>) -> tensor<{2 * n}xf32, {shard}>}} {{{devices}\n}}"
    )
    with Program(llvm_level(text)) as program:
        placed = program.place([np.ones(2 * n, np.float32)])
        program.run_placed(placed)
        runner = threading.Thread(target=program.run_placed, args=(placed,))
        start = time.perf_counter()
        runner.start()
        spins = 0
        while runner.is_alive():
            spins += 1
        elapsed = time.perf_counter() - start
    assert elapsed > 0.01
    assert spins > 1000, (spins, elapsed)


# ---------------------------------------------------------------------------------------------
# Failures
# ---------------------------------------------------------------------------------------------


def test_a_failing_kernel_ends_the_run_naming_device_and_step() -> None:
    calls = {"n": 0}

    def fails_once(args: Sequence[KernelArg]) -> None:
        calls["n"] += 1
        if calls["n"] == 1:
            raise ValueError("bad buffer")
        numpy_add(args)

    kernels = PythonKernels({"kernel0": numpy_add, (1, "kernel0"): fails_once})
    with Program(parse(exchange_program(2)), kernels, recv_timeout=30) as program:
        start = time.perf_counter()
        with pytest.raises(ExecutionError) as info:
            program([np.ones(8, np.float32)] * 2)
        assert time.perf_counter() - start < 5  # device 0 did not wait out its timeout
        assert str(info.value) == (
            "device 1 failed at step 1 (call @kernel0): ValueError: bad buffer"
        )
        assert (info.value.device, info.value.step) == (1, 1)
        # the program is usable again, with no stale message left over
        outputs = program([np.ones(8, np.float32)] * 2)
        np.testing.assert_array_equal(outputs[0], np.full(8, 2, np.float32))


def test_a_receive_that_never_comes_times_out_naming_sender_and_channel() -> None:
    def slow(args: Sequence[KernelArg]) -> None:
        time.sleep(1.0)
        numpy_add(args)

    kernels = PythonKernels({"kernel0": numpy_add, (0, "kernel0"): slow})
    with Program(parse(forward_program()), kernels, recv_timeout=0.2) as program:
        start = time.perf_counter()
        with pytest.raises(ExecutionError) as info:
            program([np.ones(4, np.float32)] * 2)
        assert time.perf_counter() - start < 5
    assert str(info.value) == (
        "device 1 failed at step 0 (recv from device 0 channel 3): no message from device 0 "
        "on channel 3 after 0.2 s"
    )


def test_a_missing_kernel_and_bad_inputs_are_reported_before_running() -> None:
    with pytest.raises(ScheduleError, match="calls @kernel0, which the kernel library"):
        Program(parse(exchange_program(2)), PythonKernels({}))
    from xdsl_multi.runtime.values import InterpreterError

    with Program(parse(exchange_program(2)), PythonKernels({"kernel0": numpy_add})) as program:
        with pytest.raises(InterpreterError, match="expected shape"):
            program.place([np.ones(7, np.float32)] * 2)
        with pytest.raises(InterpreterError, match="expected dtype float32"):
            program.place([np.ones(8, np.float64)] * 2)


ALIASED_WRITE = """
builtin.module attributes {multi.devices = ["CPU:0"]} {
  builtin.module @device_0 attributes {devidx.device = 0 : i64} {
    func.func @k(%a: memref<4xf32>, %b: memref<4xf32>) attributes {multi.kernel} {
      %c0 = arith.constant 0 : index
      %v = memref.load %a[%c0] : memref<4xf32>
      memref.store %v, %b[%c0] : memref<4xf32>
      func.return
    }
    func.func @main(%x: memref<4xf32>) -> memref<4xf32> {
      %y = memref.alloc() : memref<4xf32>
      "memref.copy"(%x, %y) : (memref<4xf32>, memref<4xf32>) -> ()
      func.call @k(%y, %y) : (memref<4xf32>, memref<4xf32>) -> ()
      func.return %y : memref<4xf32>
    }
  }
}
"""


def test_a_compiled_kernel_never_gets_the_buffer_it_writes_twice() -> None:
    """convert-to-llvm makes buffer arguments noalias: a schedule passing the buffer a compiled
    kernel writes as another of its arguments is refused, not run with undefined results."""
    from xdsl_multi.lowering.convert_to_llvm import ConvertToLLVM

    module = parse(ALIASED_WRITE)
    compile_schedules(module, "threads")  # kernel-level (not compiled): no noalias, accepted
    ConvertToLLVM().apply(make_context(), module)
    with pytest.raises(ScheduleError, match=r"passes one buffer to @k twice and writes it"):
        compile_schedules(module, "threads")

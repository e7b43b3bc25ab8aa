"""form-kernels rolls repeated loops back into a loop (loop_rolling.py; issue 14, BENCH C1's
cold first call: LLVM compiled 47 copies of the same loop).

Kernel-level programs written here are run by the reference interpreter before and after
`roll_repeated_loops` (the same ops in the same order: the same bits) and compiled on threads
against the interpreter; multi-level programs that repeat a step (C1 and random ones, on any
device subset in any order, shards even and uneven) are run through the whole pipeline, both
modes, compiled, against the interpreter on the program as written.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from bench_sources import load_gen_c1  # test/support, on pythonpath
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.passes import PassPipeline

import xdsl_multi as xm
from xdsl_multi.dialects import make_context
from xdsl_multi.lowering.convert_to_llvm import ConvertToLLVM
from xdsl_multi.lowering.jit import KernelCache
from xdsl_multi.passes import get_all_passes
from xdsl_multi.runtime.interpreter.interpreter import run_module
from xdsl_multi.runtime.interpreter.kernel_level import run_kernel_module
from xdsl_multi.runtime.program import Program
from xdsl_multi.transforms.form_kernels.kernel_codegen import KERNEL_ATTR
from xdsl_multi.transforms.form_kernels.loop_rolling import MIN_REPEATS, roll_repeated_loops

N = 8
M = f"memref<{N}xf32>"
T = f'tensor<{N}xf32, #multi.on<["CPU:0"]>>'


def parse(text: str) -> ModuleOp:
    module = Parser(make_context(), text).parse_module()
    module.verify()
    return module


def kernels(module: ModuleOp) -> list[func.FuncOp]:
    return [
        op for op in module.walk() if isinstance(op, func.FuncOp) and KERNEL_ATTR in op.attributes
    ]


def loops(op: func.FuncOp | ModuleOp) -> list[scf.ForOp]:
    return [o for o in op.walk() if isinstance(o, scf.ForOp)]


def top_loops(module: ModuleOp) -> list[scf.ForOp]:
    """The loops of the one kernel's body, not those nested in them."""
    (kernel,) = kernels(module)
    return [op for op in kernel.body.block.ops if isinstance(op, scf.ForOp)]


def trips(loop: scf.ForOp) -> int:
    return loop.ub.owner.value.value.data  # type: ignore[union-attr]


def unit(k: int, *, scale: str = "%half", read: str = "%s", alloca: bool = False) -> str:
    """One repetition: t_k = sum(s := s * scale + m_{k-1}); m_k = t_k / 8 (scratch `read`
    updated in place)."""
    extra = f"%junk{k} = memref.alloca() : {M}" if alloca else ""
    return f"""
      {extra}
      %t{k} = scf.for %i{k} = %c0 to %cn step %c1 iter_args(%acc{k} = %zero) -> (f32) {{
        %v{k} = memref.load {read}[%i{k}] : {M}
        %w{k} = arith.mulf %v{k}, {scale} : f32
        %u{k} = arith.addf %w{k}, %m{k - 1} : f32
        memref.store %u{k}, {read}[%i{k}] : {M}
        %a{k} = arith.addf %acc{k}, %u{k} : f32
        scf.yield %a{k} : f32
      }}
      %m{k} = arith.mulf %t{k}, %eighth : f32"""


def kernel_program(units: list[str], tail: str) -> str:
    """A one-device kernel-level program: s = x; the units; out[i] = s[i] + <tail>."""
    return f"""
builtin.module attributes {{multi.devices = ["CPU:0"], multi.signature = ({T}) -> {T}}} {{
  builtin.module @device_0 attributes {{devidx.device = 0 : i64}} {{
    func.func @kernel0(%x: {M}, %out: {M}) attributes {{multi.kernel}} {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %cn = arith.constant {N} : index
      %zero = arith.constant 0.0 : f32
      %half = arith.constant 0.5 : f32
      %third = arith.constant 0.333 : f32
      %eighth = arith.constant 0.125 : f32
      %m0 = arith.constant 1.0 : f32
      %s = memref.alloca() : {M}
      scf.for %j = %c0 to %cn step %c1 {{
        %xj = memref.load %x[%j] : {M}
        memref.store %xj, %s[%j] : {M}
      }}
      {"".join(units)}
      scf.for %j = %c0 to %cn step %c1 {{
        %sj = memref.load %s[%j] : {M}
        %oj = arith.addf %sj, {tail} : f32
        memref.store %oj, %out[%j] : {M}
      }}
      func.return
    }}
    func.func @main(%x: {M}) -> {M} {{
      %o = memref.alloc() : {M}
      func.call @kernel0(%x, %o) : ({M}, {M}) -> ()
      func.return %o : {M}
    }}
  }}
}}
"""


def rolled_and_checked(text: str, tmp_path, monkeypatch) -> tuple[int, ModuleOp]:
    """Roll `text`'s kernel; the interpreter gives the same bits before and after, and the
    rolled program compiled on threads matches it. Returns the runs rolled and the module."""
    x = np.random.default_rng(7).uniform(-1, 1, size=N).astype(np.float32)
    before = parse(text)
    want = run_kernel_module(before, [x])
    after = parse(text)
    (kernel,) = kernels(after)
    rolled = roll_repeated_loops(kernel.body.block)
    after.verify()
    got = run_kernel_module(after, [x])
    np.testing.assert_array_equal(got[0], want[0])
    monkeypatch.setenv("XDSL_MULTI_CACHE_DIR", str(tmp_path))
    llvm_level = after.clone()
    ConvertToLLVM().apply(make_context(), llvm_level)
    with Program(llvm_level, kernel_cache=KernelCache(tmp_path)) as program:
        np.testing.assert_allclose(program([x])[0], want[0], rtol=1e-5, atol=1e-5)
    return rolled, after


def test_a_run_becomes_one_loop_that_carries_its_value(tmp_path, monkeypatch) -> None:
    reps = 6
    text = kernel_program([unit(k) for k in range(1, reps + 1)], f"%m{reps}")
    rolled, module = rolled_and_checked(text, tmp_path, monkeypatch)
    assert rolled == 1
    top = top_loops(module)
    assert len(top) == 3  # copy, the rolled run, output
    run = top[1]
    assert len(run.iter_args) == 1 and len(run.results) == 1 and trips(run) == reps
    assert len(loops(module)) == 4  # (was reps + 2)


def test_the_last_unit_stays_after_the_loop_when_its_other_results_are_used(
    tmp_path, monkeypatch
) -> None:
    """The tail reads t_6 (not carried: the units carry m): unit 6 is peeled."""
    reps = 6
    text = kernel_program([unit(k) for k in range(1, reps + 1)], f"%t{reps}")
    rolled, module = rolled_and_checked(text, tmp_path, monkeypatch)
    assert rolled == 1
    top = top_loops(module)
    assert len(top) == 4 and trips(top[1]) == reps - 1  # copy, 5 units rolled, unit 6, output


@pytest.mark.parametrize(
    "case",
    ["too-few", "different-constant", "alloca", "other-scratch"],
)
def test_runs_that_are_not_rolled_keep_their_loops(case: str, tmp_path, monkeypatch) -> None:
    reps = 6
    units = [unit(k) for k in range(1, reps + 1)]
    tail = f"%m{reps}"
    if case == "too-few":
        units = units[: MIN_REPEATS - 1]
        tail = f"%m{MIN_REPEATS - 1}"
    elif case == "different-constant":  # units 2 and 5 scale by a third: no 3 alike in a row
        units = [unit(k, scale="%third" if k in (2, 5) else "%half") for k in range(1, reps + 1)]
    elif case == "alloca":
        units = [unit(k, alloca=True) for k in range(1, reps + 1)]
    elif case == "other-scratch":  # units 2 and 5 update another scratch row
        units = [unit(k, read="%s2" if k in (2, 5) else "%s") for k in range(1, reps + 1)]
    text = kernel_program(units, tail)
    if case == "other-scratch":
        text = text.replace(
            f"%s = memref.alloca() : {M}",
            f"%s = memref.alloca() : {M}\n      %s2 = memref.alloca() : {M}\n"
            f"      scf.for %q = %c0 to %cn step %c1 {{\n"
            f"        memref.store %half, %s2[%q] : {M}\n      }}",
        )
    count = len(units) + 2 + (1 if case == "other-scratch" else 0)
    rolled, module = rolled_and_checked(text, tmp_path, monkeypatch)
    assert rolled == 0
    assert len(loops(module)) == count


def test_values_used_after_the_run_come_from_the_right_repetition(tmp_path, monkeypatch) -> None:
    """The tail reads t_2 and t_5, from the middle of the chain: the run that rolls is the
    one whose outside uses are its start and its carried end (units m_2 t_3 .. m_4 t_5,
    carrying t), so t_2 is its starting value and t_5 its result."""
    units = [unit(k) for k in range(1, 7)]
    units[-1] += "\n      %late = arith.addf %t2, %t5 : f32"
    rolled, module = rolled_and_checked(kernel_program(units, "%late"), tmp_path, monkeypatch)
    assert rolled == 1
    assert len(top_loops(module)) == 6  # copy, units 1-2, the rolled run, unit 6, output


def test_nested_runs_roll_inside_out(tmp_path, monkeypatch) -> None:
    """Runs inside a loop body roll; the body with its rolled loop then repeats (4 outer
    units of 5 inner ones): both levels roll."""
    inner = 5
    outer = []
    for o in range(1, 5):
        body = "".join(unit(10 * o + k) for k in range(1, inner + 1))
        body = body.replace(f"%m{10 * o} ", f"%it{o} ")  # the first inner unit reads it
        outer.append(
            f"""
      %mo{o} = scf.for %r{o} = %c0 to %c1 step %c1 iter_args(%it{o} = %mo{o - 1}x) -> (f32) {{
        {body}
        scf.yield %m{10 * o + inner} : f32
      }}
      %mo{o}x = arith.addf %mo{o}, %zero : f32"""
        )
    text = kernel_program(outer, "%mo4x").replace("%m0 = arith.constant", "%mo0x = arith.constant")
    rolled, module = rolled_and_checked(text, tmp_path, monkeypatch)
    assert rolled == 5  # 4 inner runs, then the outer one
    (kernel,) = kernels(module)
    assert len(loops(kernel)) == 6  # copy, outer roll, its one-trip loop, inner roll, its loop,
    # output


def c1(iters: int, devices: int = 2, size: int = 8) -> str:
    return load_gen_c1().c1_program(size, iters, devices)


def lowered(text: str, spmd: bool) -> ModuleOp:
    """`text` at the kernel level (after form-kernels), in either mode."""
    pipeline = (
        "multi-to-devidx,devidx-simplify,form-kernels{spmd=true}"
        if spmd
        else "multi-to-devidx,devidx-simplify,specialize-devices,form-kernels"
    )
    module = parse(text)
    PassPipeline.parse_spec(get_all_passes(), pipeline).apply(make_context(), module)
    module.verify()
    return module


@pytest.mark.parametrize("spmd", [False, True])
def test_bench_c1_chain_rolls(spmd: bool, tmp_path, monkeypatch) -> None:
    """C1's 50 iterations: 47 loops in the ping-pong of two scratch rows become one loop of
    23 repetitions of two (the odd one stays); the kernel has 7 loops and 2 nested (was 52)."""
    text = c1(50)
    module = lowered(text, spmd)
    kernel = kernels(module)[0]
    assert len(loops(kernel)) == 1 + 6 + 2
    runs = [op for op in loops(kernel) if any(isinstance(o, scf.ForOp) for o in op.body.ops)]
    assert [trips(r) for r in runs[1:]] == [23]
    x = np.random.default_rng(3).uniform(-1, 1, size=(8, 8)).astype(np.float32)
    want = run_module(parse(text), [x])[0]
    np.testing.assert_allclose(run_module(module, [x])[0], want, rtol=1e-5, atol=1e-5)
    monkeypatch.setenv("XDSL_MULTI_CACHE_DIR", str(tmp_path))
    program = xm.compile(text, spmd=spmd)
    try:
        np.testing.assert_allclose(program(x)[0], want, rtol=1e-4, atol=1e-4)
    finally:
        program.close()


def repeated_step_program(rng: random.Random, reps: int) -> tuple[str, tuple[int, int]]:
    """A step repeated `reps` times on x (rows sharded over a random subset of four devices
    in a random order, even or uneven): a few elementwise ops with constants, then a row
    reduction (sum or max) expanded and combined with the row."""
    all_devices = [f'"CPU:{k}"' for k in range(4)]
    chosen = rng.sample(all_devices, rng.randint(1, 3))
    rows, cols = rng.randint(3, 9), rng.choice([4, 8])
    enc = f"#multi.shard<[{', '.join(chosen)}], axis = 0>"
    full = f"tensor<{rows}x{cols}xf32, {enc}>"
    row = f"tensor<{rows}x1xf32, {enc}>"
    ew = [(rng.choice(["mulf", "addf", "maximumf", "minimumf", "subf"]), rng.uniform(-1.5, 1.5))
          for _ in range(rng.randint(1, 3))]
    kind = rng.choice(["add", "max"])
    combine = rng.choice(["subf", "addf", "mulf"])
    scale = rng.choice([1.0 / cols, 0.5])
    lines = [f"builtin.module attributes {{multi.devices = [{', '.join(all_devices)}]}} {{",
             f"  func.func @main(%x0: {full}) -> {full} {{",
             f"    %inv = arith.constant dense<{scale:.9e}> : {row}"]
    for j, (_, c) in enumerate(ew):
        lines.append(f"    %c{j} = arith.constant dense<{c:.9e}> : {full}")
    for i in range(reps):
        v = f"%x{i}"
        for j, (op, _) in enumerate(ew):
            lines.append(f"    %e{i}_{j} = arith.{op} {v}, %c{j} : {full}")
            v = f"%e{i}_{j}"
        lines += [
            f"    %r{i} = tg.reduce {kind} {v} [1] : {full} -> {row}",
            f"    %n{i} = arith.mulf %r{i}, %inv : {row}",
            f"    %b{i} = tg.expand %n{i} : {row} -> {full}",
            f"    %x{i + 1} = arith.{combine} {v}, %b{i} : {full}",
        ]
    lines += [f"    func.return %x{reps} : {full}", "  }", "}", ""]
    return "\n".join(lines), (rows, cols)


SEEDS = range(6)


def reps_of(seed: int) -> int:
    return 16 if seed % 2 else 5


@pytest.mark.parametrize("seed", SEEDS)
def test_random_repeated_steps_compiled_match_the_interpreter(
    seed: int, tmp_path, monkeypatch
) -> None:
    text, shape = repeated_step_program(random.Random(4100 + seed), reps_of(seed))
    x = np.random.default_rng(seed).uniform(-1, 1, size=shape).astype(np.float32)
    want = run_module(parse(text), [x])[0]
    monkeypatch.setenv("XDSL_MULTI_CACHE_DIR", str(tmp_path))
    for spmd in (False, True):
        np.testing.assert_allclose(
            run_module(lowered(text, spmd), [x])[0], want, rtol=1e-4, atol=1e-4
        )
        program = xm.compile(text, spmd=spmd)
        try:
            np.testing.assert_allclose(program(x)[0], want, rtol=1e-4, atol=1e-4, err_msg=text)
        finally:
            program.close()


def test_random_repeated_steps_do_roll() -> None:
    """The programs above reach the rolled path: most of the long ones roll (the chain's
    structure depends on the step; C1's is tested above)."""
    rolled = long = 0
    for seed in SEEDS:
        reps = reps_of(seed)
        text, _ = repeated_step_program(random.Random(4100 + seed), reps)
        if reps < 16:
            continue
        long += 1
        counts = [len(loops(k)) for k in kernels(lowered(text, False))]
        rolled += max(counts) < reps
    assert long == 3 and rolled == long, (rolled, long)

"""convert-to-llvm on whole modules: kernels in device modules get device-prefixed names, the
host schedule is left alone (its calls keep a declaration to refer to), identical kernels
compile once, `-t llvm` gives one LLVM module that llvmlite verifies, upstream MLIR accepts
our llvm dialect (when mlir-translate is installed), and input outside the kernel contract is
a clean pass failure."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import llvmlite.binding as llvm
import numpy as np
import pytest
from kernel_jit import aligned, aligned_copy, lower, parse
from xdsl.dialects import func
from xdsl.dialects import llvm as llvm_dialect
from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer
from xdsl.utils.exceptions import PassFailedException

from xdsl_multi.dialects import make_context
from xdsl_multi.lowering.convert_to_llvm import ConvertToLLVM
from xdsl_multi.lowering.jit import KernelCache
from xdsl_multi.lowering.llvm_target import llvm_ops, translate_kernels


def _device_module(k: int) -> str:
    return f"""
  builtin.module @device_{k} attributes {{devidx.device = {k} : i64}} {{
    func.func @k0(%x: memref<16xf32>, %y: memref<16xf32>) attributes {{multi.kernel}} {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %n = arith.constant 16 : index
      scf.for %i = %c0 to %n step %c1 {{
        %v = memref.load %x[%i] : memref<16xf32>
        %t = math.tanh %v : f32
        memref.store %t, %y[%i] : memref<16xf32>
      }}
      func.return
    }}
    func.func @main(%x: memref<16xf32>) -> memref<16xf32> {{
      %y = memref.alloc() : memref<16xf32>
      func.call @k0(%x, %y) : (memref<16xf32>, memref<16xf32>) -> ()
      func.return %y : memref<16xf32>
    }}
  }}"""


TWO_DEVICES = "builtin.module {" + _device_module(0) + _device_module(1) + "\n}"


def _text(op: object) -> str:
    from io import StringIO

    out = StringIO()
    Printer(stream=out).print_op(op)  # type: ignore[arg-type]
    return out.getvalue()


def _mains(module: ModuleOp) -> list[str]:
    return [
        _text(op)
        for op in module.walk()
        if isinstance(op, func.FuncOp) and op.sym_name.data == "main"
    ]


def test_device_kernels_are_renamed_and_host_is_untouched() -> None:
    before = parse(TWO_DEVICES)
    after = lower(TWO_DEVICES)
    assert _mains(after) == _mains(before)
    names = sorted(op.sym_name.data for op in llvm_ops(after))
    assert names == ["device0_k0", "device1_k0", "tanhf", "tanhf"]
    for inner in after.ops:
        assert isinstance(inner, ModuleOp)
        (declaration,) = [
            op for op in inner.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "k0"
        ]
        assert not declaration.body.blocks
        device = inner.attributes["devidx.device"].value.data  # type: ignore[attr-defined]
        assert declaration.attributes["multi.llvm_kernel"].data == f"device{device}_k0"  # type: ignore[attr-defined]


def test_one_llvm_module_for_all_devices_and_identical_kernels_compile_once() -> None:
    module = lower(TWO_DEVICES)
    ir_module = translate_kernels(module)
    text = str(ir_module)
    assert text.count('declare float @"tanhf"') == 1
    parsed = llvm.parse_assembly(text)
    parsed.verify()
    assert {f.name for f in parsed.functions if not f.is_declaration} == {
        "device0_k0",
        "device1_k0",
    }
    cache = KernelCache(disk=False)
    kernels = cache.compile_kernels(module)
    assert cache.stats.compiled == 1 and cache.stats.memory_hits == 1
    assert kernels["device0_k0"].address == kernels["device1_k0"].address
    x = aligned_copy(np.linspace(-3, 3, 16, dtype=np.float32))
    y = aligned(16, np.float32)
    kernels["device1_k0"](x, y)
    np.testing.assert_allclose(y, np.tanh(x), rtol=1e-6)


def test_multi_device_attribute_names_a_top_level_kernel() -> None:
    text = """
    func.func @scale(%x: memref<4xf64>, %n: index) attributes {multi.kernel, multi.device = 3 : i64} {
      func.return
    }"""
    (fn,) = [op for op in llvm_ops(lower(text)) if isinstance(op, llvm_dialect.FuncOp)]
    assert fn.sym_name.data == "device3_scale"
    assert str(fn.function_type) == "!llvm.func<void (!llvm.ptr, i64)>"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "%m = memref.alloc() : memref<4xi32>\n%r = memref.load %m[%c0] : memref<4xi32>",
            "cannot lower 'memref.alloc'",
        ),
        ("%r, %o = arith.addui_extended %a, %a : i32, i1", "cannot lower 'arith.addui_extended'"),
    ],
)
def test_ops_outside_the_contract_fail_cleanly(body: str, message: str) -> None:
    text = f"""
    func.func @k(%x: memref<4xi32>) attributes {{multi.kernel}} {{
      %c0 = arith.constant 0 : index
      %a = memref.load %x[%c0] : memref<4xi32>
      {body}
      memref.store %r, %x[%c0] : memref<4xi32>
      func.return
    }}"""
    with pytest.raises(PassFailedException, match=message):
        lower(text)


def test_kernel_with_results_fails_cleanly() -> None:
    text = """
    func.func @k(%x: memref<4xi32>) -> i32 attributes {multi.kernel} {
      %c = arith.constant 1 : i32
      func.return %c : i32
    }"""
    with pytest.raises(PassFailedException, match="returns values"):
        lower(text)


# ---------------------------------------------------------------------------------------------
# multi-opt
# ---------------------------------------------------------------------------------------------


def _multi_opt(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xdsl_multi.tools.multi_opt", *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )


def test_multi_opt_target_llvm_output_verifies() -> None:
    run = _multi_opt("-p", "convert-to-llvm", "-t", "llvm", stdin=TWO_DEVICES)
    assert run.returncode == 0, run.stderr
    module = llvm.parse_assembly(run.stdout)
    module.verify()
    assert module.get_function("device0_k0") and module.get_function("device1_k0")


def test_multi_opt_target_llvm_without_llvm_dialect_is_a_user_error() -> None:
    run = _multi_opt("-t", "llvm", stdin=TWO_DEVICES)
    assert run.returncode == 1
    assert "no llvm dialect to emit" in run.stderr and "Traceback" not in run.stderr


def _mlir_translate() -> str | None:
    for name in ("mlir-translate", "mlir-translate-22"):
        if path := shutil.which(name):
            return path
    return None


@pytest.mark.skipif(_mlir_translate() is None, reason="mlir-translate is not installed")
def test_upstream_mlir_translate_accepts_our_llvm_dialect() -> None:
    """Our llvm-dialect output (kernels of every element type, libm calls, intrinsics,
    allocas) goes through upstream `mlir-translate --mlir-to-llvmir`, which verifies it."""
    from kernel_jit import elementwise
    from test_codegen_elementwise import _FLOAT_CASTS, float_snippets, int_snippets

    parts = [elementwise(f"f_{t}", 8, t, float_snippets(t) + _FLOAT_CASTS[t], {})[0]
             for t in ("f32", "f64", "f16", "bf16")]  # fmt: skip
    parts += [elementwise(f"i_{t}", 8, t, int_snippets(t), {})[0] for t in ("i1", "i32", "i64")]
    from test_codegen_kernels import ALLOCA, IF_RESULTS, MATMUL, ROW_NORM

    parts += [ALLOCA, IF_RESULTS, MATMUL, ROW_NORM]
    module = lower("builtin.module {\n" + "\n".join(parts) + "\n}")
    ConvertToLLVM().apply(make_context(), module)  # idempotent: nothing left to convert
    only_llvm = ModuleOp([op.clone() for op in llvm_ops(module)])
    run = subprocess.run(
        [_mlir_translate() or "", "--mlir-to-llvmir"],
        input=_text(only_llvm),
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ},
    )
    assert run.returncode == 0, run.stderr[:4000]
    assert "define void @f_bf16" in run.stdout


def _scratch_kernel(k: int, rows: int) -> str:
    """A device module whose kernel differs from another device's only in a scratch size."""
    return f"""
  builtin.module @device_{k} attributes {{devidx.device = {k} : i64}} {{
    func.func @k0(%x: memref<4xf32>, %y: memref<4xf32>) attributes {{multi.kernel}} {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %n = arith.constant 4 : index
      %s = memref.alloca() : memref<{rows}xf32>
      scf.for %i = %c0 to %n step %c1 {{
        %v = memref.load %x[%i] : memref<4xf32>
        memref.store %v, %s[%i] : memref<{rows}xf32>
        %w = memref.load %s[%i] : memref<{rows}xf32>
        memref.store %w, %y[%i] : memref<4xf32>
      }}
      func.return
    }}
  }}"""


def test_identical_kernels_are_lowered_once_and_near_twins_are_not() -> None:
    """A kernel identical to another device's is the clone of its lowering (with its own name,
    device and libm declarations); one that differs only in a result type is lowered itself."""
    module = lower(TWO_DEVICES)
    bodies = [_text(op).split("\n", 1)[1] for op in llvm_ops(module) if op.body.blocks]
    assert len(bodies) == 2 and bodies[0] == bodies[1]
    near = lower("builtin.module {" + _scratch_kernel(0, 4) + _scratch_kernel(1, 8) + "\n}")
    near_bodies = [_text(op).split("\n", 1)[1] for op in llvm_ops(near) if op.body.blocks]
    assert len(near_bodies) == 2 and near_bodies[0] != near_bodies[1]
    assert "constant(4)" in near_bodies[0] and "constant(8)" in near_bodies[1]

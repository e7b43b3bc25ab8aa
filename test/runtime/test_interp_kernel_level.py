"""The reference interpreter at the kernel level (runtime/interpreter/kernel_level.py, ops_memref.py):
host schedules and kernels over memrefs run with the project's numerics, logical arrays in and
out through `multi.signature`, and every break of the kernel-level contract is an error that
names the op (docs/kernel-level.md)."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from xdsl_multi.dialects import make_context
from xdsl_multi.runtime.interpreter.interpreter import InterpreterError, run_module
from xdsl_multi.runtime.interpreter.kernel_level import ReferenceKernels

SIG = 'multi.devices = ["CPU:0", "CPU:1"], multi.signature = (tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>'

KERNEL = """
    func.func @kernel0(%x: memref<2xf32>, %out: memref<2xf32>) attributes {multi.kernel} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      scf.for %i = %c0 to %c2 step %c1 {
        %v = memref.load %x[%i] : memref<2xf32>
        %r = math.rsqrt %v : f32
        memref.store %r, %out[%i] : memref<2xf32>
      }
      func.return
    }"""


def program(main_body: str, kernel: str = KERNEL) -> ModuleOp:
    """Two devices; device 0 runs `main_body`, device 1 sends its x to device 0 and returns the
    kernel of its x."""
    text = f"""builtin.module attributes {{{SIG}}} {{
  builtin.module @device_0 attributes {{devidx.device = 0 : i64}} {{{kernel}
    func.func @main(%x: memref<2xf32>) -> memref<2xf32> {{
{main_body}
    }}
  }}
  builtin.module @device_1 attributes {{devidx.device = 1 : i64}} {{{kernel}
    func.func @main(%x: memref<2xf32>) -> memref<2xf32> {{
      devidx.send %x to 0 channel 0 : memref<2xf32>
      %y = memref.alloc() : memref<2xf32>
      func.call @kernel0(%x, %y) : (memref<2xf32>, memref<2xf32>) -> ()
      func.return %y : memref<2xf32>
    }}
  }}
}}"""
    return Parser(make_context(), text).parse_module()


GOOD = """      %r = devidx.recv from 1 channel 0 : memref<2xf32>
      %y = memref.alloc() : memref<2xf32>
      func.call @kernel0(%r, %y) : (memref<2xf32>, memref<2xf32>) -> ()
      memref.dealloc %r : memref<2xf32>
      func.return %y : memref<2xf32>"""

X = np.array([1.0, 4.0, 16.0, 0.25], np.float32)


def test_runs_with_logical_arrays_and_messages() -> None:
    (got,) = run_module(program(GOOD), [X])
    # device 0 computes rsqrt of device 1's share; device 1 of its own
    np.testing.assert_allclose(got, 1 / np.sqrt(np.concatenate([X[2:], X[2:]])), rtol=1e-6)


@pytest.mark.parametrize(
    "body, message",
    [
        (
            GOOD.replace(
                "func.return %y", "memref.dealloc %y : memref<2xf32>\n      func.return %y"
            ),
            "returns a buffer it freed",
        ),
        (
            GOOD.replace("      memref.dealloc %r : memref<2xf32>\n", "").replace(
                "func.call", "memref.dealloc %r : memref<2xf32>\n      func.call"
            ),
            "freed by memref.dealloc before this use",
        ),
        (
            GOOD.replace("memref.dealloc %r", "memref.dealloc %x"),
            "not allocated by memref.alloc",
        ),
        (
            """      %r = devidx.recv from 1 channel 0 : memref<2xf32>
      %y = memref.alloc() : memref<2xf32>
      func.return %y : memref<2xf32>""",
            "",
        ),
    ],
    ids=["result-freed", "use-after-free", "free-argument", "never-written"],
)
def test_contract_breaks_are_errors(body: str, message: str) -> None:
    if not message:  # a result never written holds NaN, visibly
        (got,) = run_module(program(body), [X])
        assert np.isnan(got[:2]).all()
        return
    with pytest.raises(InterpreterError, match=message):
        run_module(program(body), [X])


def test_out_of_bounds_index_is_an_error() -> None:
    kernel = KERNEL.replace("%c2 = arith.constant 2", "%c2 = arith.constant 3")
    with pytest.raises(InterpreterError, match="out of bounds"):
        run_module(program(GOOD, kernel), [X])


def test_reference_kernels_write_in_place() -> None:
    k = ReferenceKernels(program(GOOD)).kernel(0, "kernel0")
    out = np.zeros(2, np.float32)
    k([np.array([4.0, 0.25], np.float32), out])
    np.testing.assert_allclose(out, [0.5, 2.0])

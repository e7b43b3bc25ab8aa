"""The default pipeline's route for programs whose devices differ only in their shard windows
(transforms/form_kernels/window_programs.py, pipeline.py `lower_for_runtime`): which programs
take it, that it gives the kernels specialize-devices gives (the same LLVM IR where no device
is left without rows), and that what it runs is what the interpreter computes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from xdsl_multi import pipeline
from xdsl_multi.diagnostics import parse_module
from xdsl_multi.dialects import make_context
from xdsl_multi.levels import Level
from xdsl_multi.lowering.jit import split_kernels
from xdsl_multi.lowering.llvm_target import kernels_llvm_ir
from xdsl_multi.pipeline import MultiToLLVM
from xdsl_multi.runtime.interpreter.interpreter import run_module
from xdsl_multi.transforms.form_kernels.kernel_analysis import MAX_VERSIONS
from xdsl_multi.transforms.form_kernels.window_programs import (
    SMALL_ALLREDUCE,
    small_allreduces_only,
    windows_only,
)
from xdsl_multi.transforms.specialize_devices.specialize_devices import SpecializeDevices

ROOT = Path(__file__).resolve().parents[2]
ROUTE = ("multi-to-devidx", "devidx-simplify", "form-kernels{spmd=true}", "convert-to-llvm")
SMALL_ALLREDUCES_ROUTE = (
    'multi-to-devidx{collectives="ops"}',
    "devidx-simplify",
    "form-kernels{spmd=true}",
    "convert-to-llvm",
)
TABLE = (
    "multi-to-devidx",
    "devidx-simplify",
    "specialize-devices",
    "form-kernels",
    "convert-to-llvm",
)


def parse(text: str) -> ModuleOp:
    return parse_module(make_context(), text, "test.mlir")


def spmd_level(text: str, collectives: str = "fetches") -> ModuleOp:
    """`text` at the SPMD level, simplified (where the route is decided), its allreduces
    lowered to fetches (the table's multi-to-devidx) or to ops (SPMD mode's)."""
    module = parse(text)
    specs = pipeline.pipeline_specs(
        Level.MULTI, spmd=collectives == "ops", options={"multi-to-devidx": ""}
    )
    simplified = [s for s in specs if s.name in ("multi-to-devidx", "devidx-simplify")]
    pipeline.build_pipeline(tuple(simplified)).apply(make_context(), module)
    return module


def devices(n: int) -> str:
    return ", ".join(f'"CPU:{i}"' for i in range(n))


def row_sums(n: int, rows: int, cols: int) -> str:
    """(x * x).sum(axis=1) of x (rows, cols) sharded on axis 0 over n devices (BENCH W7's
    shape when uneven)."""
    return f"""
#s = #multi.shard<[{devices(n)}], axis = 0>
module attributes {{multi.devices = [{devices(n)}]}} {{
  func.func @main(%x: tensor<{rows}x{cols}xf32, #s>) -> tensor<{rows}x1xf32, #s> {{
    %sq = arith.mulf %x, %x : tensor<{rows}x{cols}xf32, #s>
    %r = tg.reduce add %sq [1] : tensor<{rows}x{cols}xf32, #s> -> tensor<{rows}x1xf32, #s>
    func.return %r : tensor<{rows}x1xf32, #s>
  }}
}}
"""


def squares_plus(n: int, rows: int, cols: int) -> str:
    """x * x + x of x (rows, cols) sharded on axis 0 over n devices: elementwise, uneven when
    n does not divide rows."""
    return f"""
#s = #multi.shard<[{devices(n)}], axis = 0>
module attributes {{multi.devices = [{devices(n)}]}} {{
  func.func @main(%x: tensor<{rows}x{cols}xf32, #s>) -> tensor<{rows}x{cols}xf32, #s> {{
    %sq = arith.mulf %x, %x : tensor<{rows}x{cols}xf32, #s>
    %y = arith.addf %sq, %x : tensor<{rows}x{cols}xf32, #s>
    func.return %y : tensor<{rows}x{cols}xf32, #s>
  }}
}}
"""


ALLREDUCE = f"""
#s = #multi.shard<[{devices(2)}], axis = 0>
#r = #multi.on<[{devices(2)}]>
module attributes {{multi.devices = [{devices(2)}]}} {{
  func.func @main(%x: tensor<8xf32, #s>) -> tensor<1xf32, #r> {{
    %y = tg.reduce add %x [0] : tensor<8xf32, #s> -> tensor<1xf32, #r>
    func.return %y : tensor<1xf32, #r>
  }}
}}
"""

SELECT_ON_D = """
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %d = devidx.device_num : index
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %d, %c0 : index
    %y = arith.addf %x, %x : tensor<4xf32>
    %z = arith.select %first, %x, %y : tensor<4xf32>
    func.return %z : tensor<4xf32>
  }
}
"""

PAD_OF_D = """
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<4xf32>) -> tensor<8xf32> {
    %d = devidx.device_num : index
    %c4 = arith.constant 4 : index
    %lo = arith.muli %d, %c4 : index
    %c1 = arith.constant 1 : index
    %e = arith.subi %c1, %d : index
    %hi = arith.muli %e, %c4 : index
    %p = tg.pad %x [[%lo, %hi]] invalid : tensor<4xf32> -> tensor<8xf32>
    func.return %p : tensor<8xf32>
  }
}
"""


# -- which programs ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    ["w1_elementwise", "w2_layernorm", "w4_matmul", "w7_uneven", "c1_chain"],
)
def test_communication_free_benchmarks_take_the_route(path: str) -> None:
    text = (ROOT / "bench" / "programs" / f"{path}.mlir").read_text()
    assert windows_only(spmd_level(text))
    assert pipeline.lower_for_runtime(parse(text)) == ROUTE


@pytest.mark.parametrize(
    "path",
    [
        "bench/programs/w5_megatron_mlp",
        "bench/programs/w6_allreduce_n2",
        "examples/allreduce_mstack",
        "examples/copies",
    ],
)
def test_programs_with_messages_are_specialized(path: str) -> None:
    text = (ROOT / f"{path}.mlir").read_text()
    assert not windows_only(spmd_level(text))
    assert pipeline.lower_for_runtime(parse(text)) == TABLE


def sum_rows_to_all(n: int, rows: int, cols: int, kind: str = "add", over: int = 0) -> str:
    """x (rows, cols) sharded on axis 0 over the first `over` (default: all n) of n devices,
    reduced over axis 0 to every one of those devices: a local reduce and an allreduce of
    `cols` elements (BENCH W3 with cols = 1)."""
    on = devices(over or n)
    return f"""
#s = #multi.shard<[{on}], axis = 0>
#r = #multi.on<[{on}]>
module attributes {{multi.devices = [{devices(n)}]}} {{
  func.func @main(%x: tensor<{rows}x{cols}xf32, #s>) -> tensor<1x{cols}xf32, #r> {{
    %y = tg.reduce {kind} %x [0] : tensor<{rows}x{cols}xf32, #s> -> tensor<1x{cols}xf32, #r>
    func.return %y : tensor<1x{cols}xf32, #r>
  }}
}}
"""


@pytest.mark.parametrize("path", ["bench/programs/w3_sum", "examples/uneven"])
def test_small_allreduces_take_spmd_modes_route(path: str) -> None:
    """BENCH W3's sum and the uneven example's column sums: windows and allreduces of a few
    elements. Lowered as the table does it they have fetches; as SPMD mode does, one
    `devidx.allreduce` each, which the route lets through."""
    text = (ROOT / f"{path}.mlir").read_text()
    assert small_allreduces_only(parse(text))
    assert not windows_only(spmd_level(text, "ops"))
    assert windows_only(spmd_level(text, "ops"), SMALL_ALLREDUCE)
    assert pipeline.lower_for_runtime(parse(text)) == SMALL_ALLREDUCES_ROUTE


def test_an_allreduce_over_small_allreduce_elements_is_specialized() -> None:
    at_limit, over = (
        sum_rows_to_all(2, 4, SMALL_ALLREDUCE),
        sum_rows_to_all(2, 4, SMALL_ALLREDUCE + 1),
    )
    assert small_allreduces_only(parse(at_limit))
    assert pipeline.lower_for_runtime(parse(at_limit)) == SMALL_ALLREDUCES_ROUTE
    assert not small_allreduces_only(parse(over))
    assert not windows_only(spmd_level(over, "ops"), SMALL_ALLREDUCE)
    assert pipeline.lower_for_runtime(parse(over)) == TABLE


@pytest.mark.parametrize(
    "options, routed",
    [("allreduce=naive", True), ("allreduce=auto", True), ("ring-threshold=0", False),
     ("allreduce=ring", False), ("allreduce=all2all", False)],
)  # fmt: skip
def test_an_allreduce_schedule_asked_for_is_specialized(options: str, routed: bool) -> None:
    """Over 3 devices, `auto` takes the ring for more than ring-threshold elements; a ring or
    an all2all (asked for, or chosen) is specialized mode's schedule."""
    ran = pipeline.lower_for_runtime(
        parse(sum_rows_to_all(3, 9, 4)), options={"multi-to-devidx": options}
    )
    assert ran[1:] == (SMALL_ALLREDUCES_ROUTE if routed else TABLE)[1:]


def test_a_program_the_route_refuses_is_lowered_from_where_it_was() -> None:
    """Sharded over two of three devices: its allreduce has a members table, which the
    route does not take (`windows_only`), though the types alone let it try. The table's
    passes then run on the program as it was before the try."""
    text = sum_rows_to_all(3, 6, 4, over=2)
    assert small_allreduces_only(parse(text))
    assert not windows_only(spmd_level(text, "ops"), SMALL_ALLREDUCE)
    module = parse(text)
    assert pipeline.lower_for_runtime(module) == TABLE
    expected = parse(text)
    MultiToLLVM().apply(make_context(), expected)
    assert sorted(kernel_definitions(module)) == sorted(kernel_definitions(expected))


@pytest.mark.parametrize("path", ["examples/copies", "examples/allreduce_mstack"])
def test_copies_and_choices_by_device_do_not_try_the_route(path: str) -> None:
    assert not small_allreduces_only(parse((ROOT / f"{path}.mlir").read_text()))


def test_a_reduce_over_mesh_dims_does_not_try_the_route() -> None:
    mesh = """
#s = #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>
#r = #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>
module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2", "CPU:3"]} {
  func.func @main(%x: tensor<4x4xf32, #s>) -> tensor<1x1xf32, #r> {
    %y = tg.reduce add %x [0, 1] : tensor<4x4xf32, #s> -> tensor<1x1xf32, #r>
    func.return %y : tensor<1x1xf32, #r>
  }
}
"""
    assert not small_allreduces_only(parse(mesh))


def test_d_only_in_pad_bounds_is_windows() -> None:
    assert windows_only(parse(PAD_OF_D))


def test_a_choice_by_d_is_not_windows() -> None:
    assert not windows_only(parse(SELECT_ON_D))


def test_d_leaving_index_arithmetic_is_not_windows() -> None:
    """A value computed from d that stays an index is fine; one that becomes data (an i32)
    is not."""

    def with_op(op: str) -> ModuleOp:
        return parse(PAD_OF_D.replace("func.return %p", f"{op}\n    func.return %p"))

    assert windows_only(with_op("%n = arith.addi %lo, %hi : index"))
    assert not windows_only(with_op("%n = arith.index_cast %lo : index to i32"))


def test_more_devices_than_versions_are_specialized() -> None:
    n = MAX_VERSIONS + 1
    assert windows_only(spmd_level(row_sums(MAX_VERSIONS, 30, 4)))
    assert not windows_only(spmd_level(row_sums(n, 30, 4)))
    assert pipeline.lower_for_runtime(parse(row_sums(n, 30, 4))) == TABLE


def test_a_specialized_module_is_not_rerouted() -> None:
    module = spmd_level(row_sums(3, 7, 5))
    SpecializeDevices().apply(make_context(), module)
    assert not windows_only(module)


# -- the same kernels ------------------------------------------------------------------------


def kernel_definitions(module: ModuleOp) -> list[str]:
    """The kernels' LLVM IR, names taken out, each once (twins are one)."""
    return sorted({k.definition for k in split_kernels(kernels_llvm_ir(module))[1]})


def both_ways(text: str) -> tuple[list[str], list[str]]:
    """The kernels of the runtime's route and of the table's pipeline (a module per device)."""
    routed = parse(text)
    assert pipeline.lower_for_runtime(routed) == ROUTE
    table = parse(text)
    MultiToLLVM().apply(make_context(), table)
    return kernel_definitions(routed), kernel_definitions(table)


@pytest.mark.parametrize("path", ["w1_elementwise", "w2_layernorm", "w4_matmul", "c1_chain"])
def test_benchmarks_get_the_specialized_kernels(path: str) -> None:
    routed, table = both_ways((ROOT / "bench" / "programs" / f"{path}.mlir").read_text())
    assert routed == table


@pytest.mark.parametrize("n, rows, cols", [(3, 7, 5), (4, 10, 3), (2, 5, 4), (5, 9, 16)])
def test_uneven_shards_get_the_specialized_kernels(n: int, rows: int, cols: int) -> None:
    routed, table = both_ways(squares_plus(n, rows, cols))
    assert routed == table


def test_a_device_without_rows_gets_its_version_in_one_kernel() -> None:
    """4 rows over 3 devices: device 2 owns none. Specialized, it has a kernel of its own
    that writes its padding row zeros; the route's one kernel branches on d into the same two
    versions (one per distinct device, SPMD mode's `device_versions`)."""
    routed, table = both_ways(squares_plus(3, 4, 8))
    assert len(routed) == 1 and len(table) == 2
    assert routed[0].count("br i1") > table[0].count("br i1")


def loop_headers(definition: str) -> int:
    return definition.count(" = phi  i64")


@pytest.mark.parametrize(
    "text",
    [
        (ROOT / "bench" / "programs" / "w7_uneven.mlir").read_text(),
        row_sums(3, 7, 5),
        row_sums(3, 4, 8),
        row_sums(5, 9, 16),
    ],
    ids=["w7", "3x7x5", "3x4x8", "5x9x16"],
)
def test_uneven_row_sums_keep_the_check_that_moves_with_d(text: str) -> None:
    """Row sums over uneven rows (BENCH W7): specialized, the short device's rows split into
    the ones it owns and a loop that zeroes its padding rows; the route's one
    kernel loops over every local row and selects each sum or 0 by the check that moves with
    d (kernel_analysis.checks_per_reduction): one loop nest, no padding loop, no branch on
    d. (The results: test_the_route_computes_what_the_interpreter_does.)"""
    routed, table = both_ways(text)
    assert len(routed) == 1
    (kernel,) = routed
    assert loop_headers(kernel) == 2  # the rows, the row's sum
    # specialized: the short device's loop of padding zeros too (in a kernel of its own, or
    # in the one kernel the devices share, bounds chosen on d)
    assert sum(loop_headers(k) for k in table) > 2
    assert kernel.count(" select ") == 1 and "br i1 %" in kernel


# -- what runs -------------------------------------------------------------------------------


@pytest.mark.parametrize("n, rows, cols", [(3, 7, 5), (3, 4, 8), (8, 9, 7), (2, 6, 3)])
def test_the_route_computes_what_the_interpreter_does(n: int, rows: int, cols: int) -> None:
    import xdsl_multi as xm

    text = row_sums(n, rows, cols)
    x = np.random.default_rng(n * rows + cols).standard_normal((rows, cols)).astype(np.float32)
    (want,) = run_module(parse(text), [x])
    with xm.compile(text) as program:
        (got,) = program(x)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got, (x * x).sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "n, rows, cols, kind",
    [(2, 8, 1, "add"), (3, 7, 5, "add"), (5, 9, 3, "max"), (8, 17, 2, "add"), (4, 4, 6, "max")],
)
def test_small_allreduces_compute_what_the_interpreter_does(
    n: int, rows: int, cols: int, kind: str
) -> None:
    import xdsl_multi as xm

    text = sum_rows_to_all(n, rows, cols, kind)
    assert pipeline.lower_for_runtime(parse(text)) == SMALL_ALLREDUCES_ROUTE
    x = np.random.default_rng(n * rows + cols).standard_normal((rows, cols)).astype(np.float32)
    (want,) = run_module(parse(text), [x])
    with xm.compile(text) as program:
        (got,) = program(x)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    numpy = x.sum(axis=0) if kind == "add" else x.max(axis=0)
    np.testing.assert_allclose(got, np.broadcast_to(numpy, (n, 1, cols)), rtol=1e-5, atol=1e-5)

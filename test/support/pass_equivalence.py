"""Run a module in the reference interpreter before and after a pass and compare, for the
numeric tests of devidx-simplify and specialize-devices.

`lit_chunks(path)` reads the `// -----` chunks of a lit test file so the lit tests' inputs double
as numeric tests. `prepare(text, n)` makes a chunk an SPMD program on n devices: its
`multi.devices` becomes n devices, `multi.signature` is added when missing (inputs unplaced, so
every device gets the same array, tensor outputs `#multi.on` every device, so every device's
result is compared), and scalar index/i1 results are turned into tensors (see
`tensorize_scalar_results`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    FunctionType,
    IndexType,
    IntegerType,
    ModuleOp,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.ir import Operation, SSAValue
from xdsl.parser import Parser
from xdsl.rewriter import InsertPoint, Rewriter

from xdsl_multi.dialects import devidx, make_context
from xdsl_multi.dialects.multi import OnAttr
from xdsl_multi.runtime.interpreter.interpreter import logical_signature, random_inputs, run_module

_SPLIT = re.compile(r"^// -----.*$", re.MULTILINE)
INDEX_RESULT_LIMIT = 64
"""Scalar index results in [0, 64) are compared exactly; other values all read as 0."""


def lit_chunks(path: Path) -> list[tuple[str, str]]:
    """(entry function name, chunk text) for every chunk of a lit file that defines a module."""
    out = []
    for chunk in _SPLIT.split(path.read_text()):
        m = re.search(r"func\.func @(\w+)", chunk)
        if m and "module" in chunk:
            out.append((m.group(1), chunk))
    return out


def devices(n: int) -> list[str]:
    return [f"CPU:{i}" for i in range(n)]


def parse(text: str) -> ModuleOp:
    module = Parser(make_context(), text).parse_module()
    module.verify()
    return module


def entry_function(module: ModuleOp, name: str) -> func.FuncOp:
    for op in module.walk():
        if isinstance(op, func.FuncOp) and op.sym_name.data == name:
            return op
    raise KeyError(name)


def device_modules(module: ModuleOp) -> list[ModuleOp]:
    """The nested per-device modules of a specialized module (empty at the SPMD level)."""
    return [
        op
        for op in module.body.block.ops
        if isinstance(op, ModuleOp) and "devidx.device" in op.attributes
    ]


def device_count(text: str) -> int | None:
    """How many device modules a specialized chunk has; None for an SPMD chunk."""
    found = parse(text)
    mods = device_modules(found)
    return len(mods) if mods else None


def _as_tensor(value: SSAValue, at: func.ReturnOp) -> SSAValue:
    """A tensor<1xi64> that tells the scalar's value apart: i1 as 0/1, an index or integer k in
    [0, 64) as k (other values read as 0)."""
    t = TensorType(i64, [1])
    is_bool = isinstance(value.type, IntegerType) and value.type.width.data == 1
    consts = [
        arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(t, [k]), t)
        for k in range(2 if is_bool else INDEX_RESULT_LIMIT)
    ]
    new: list[Operation] = list(consts)
    if is_bool:
        new.append(arith.SelectOp(value, consts[1].result, consts[0].result))
    else:
        if not isinstance(value.type, IndexType):
            cast = arith.IndexCastOp(value, IndexType())
            new.append(cast)
            value = cast.result
        stack = devidx.StackOp([c.result for c in consts])
        new += [stack, devidx.IndexOp(stack.result, value)]
    Rewriter.insert_op(new, InsertPoint.before(at))
    return new[-1].results[0]


def tensorize_scalar_results(module: ModuleOp, entry: str) -> None:
    """Make scalar i1/index results of `entry` tensors, so that every device's value is
    compared (a scalar result is an unplaced value: only device 0's would be read)."""
    f = entry_function(module, entry)
    ret = f.body.block.last_op
    assert isinstance(ret, func.ReturnOp)
    new_args = [
        _as_tensor(v, ret) if isinstance(v.type, IndexType | IntegerType) else v
        for v in ret.arguments
    ]
    ret.operands = new_args
    f.function_type = FunctionType.from_lists(
        f.function_type.inputs.data, [v.type for v in new_args]
    )


def prepare(text: str, n: int, entry: str) -> ModuleOp:
    """The chunk as an SPMD program on n devices (see the module docstring)."""
    module = parse(text)
    names = devices(n)
    module.attributes["multi.devices"] = ArrayAttr([StringAttr(x) for x in names])
    programs = device_modules(module) or [module]
    for program in programs:
        tensorize_scalar_results(program, entry)
    if "multi.signature" not in module.attributes:
        ftype = entry_function(programs[0], entry).function_type
        outs = [
            TensorType(t.element_type, t.get_shape(), OnAttr(names))
            if isinstance(t, TensorType)
            else t
            for t in ftype.outputs.data
        ]
        module.attributes["multi.signature"] = FunctionType.from_lists(ftype.inputs.data, outs)
    module.verify()
    return module


def check_pass_keeps_meaning(
    text: str,
    n: int,
    entry: str,
    apply: Callable[[ModuleOp], None],
    seeds: tuple[int, ...] = (0, 1),
    exact: bool = True,
) -> ModuleOp:
    """Run `entry` before and after `apply` on the prepared module; outputs must be equal
    (exactly, or allclose when a rewrite may reassociate floats). Returns the rewritten module."""
    before = prepare(text, n, entry)
    after = prepare(text, n, entry)
    apply(after)
    after.verify()
    for seed in seeds:
        inputs = random_inputs(logical_signature(before, entry), seed)
        want = run_module(before, inputs, entry=entry)
        got = run_module(after, inputs, entry=entry)
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype, w.dtype)
            if exact:
                np.testing.assert_array_equal(g, w)
            else:
                np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    return after

"""Facts defined once and used by every level (dialects/element_types.py, lowering/llvm_types.py,
`program_devices` in dialects/multi.py): the passes' integer division folds what the
interpreter computes, the numpy dtype table agrees with the widths, and the device list of a
program is the same wherever it is asked for."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    FunctionType,
    IndexType,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    bf16,
    f16,
    f32,
    f64,
    i1,
    i8,
    i16,
    i32,
    i64,
)

from xdsl_multi.dialects.element_types import (
    bit_width,
    is_bf16,
    is_bool,
    is_float,
    is_int,
    trunc_div,
    trunc_rem,
)
from xdsl_multi.dialects.multi import OnAttr, program_devices
from xdsl_multi.lowering.llvm_types import storage_dtype
from xdsl_multi.runtime.interpreter import numerics


def test_trunc_div_and_rem_are_the_interpreters_divsi_and_remsi() -> None:
    a, b = np.meshgrid(np.arange(-9, 10, dtype=np.int64), np.arange(-4, 5, dtype=np.int64))
    a, b = a.ravel(), b.ravel()
    want_q, want_r = numerics.divsi(a, b), numerics.remsi(a, b)
    got_q = [trunc_div(int(x), int(y)) for x, y in zip(a, b)]
    got_r = [trunc_rem(int(x), int(y)) for x, y in zip(a, b)]
    assert got_q == want_q.tolist()
    assert got_r == want_r.tolist()
    assert trunc_div(7, 0) == 0 and trunc_rem(-7, 0) == 0
    assert trunc_div(-7, 2) == -3 and trunc_rem(-7, 2) == -1


@pytest.mark.parametrize(
    ("t", "width", "dtype"),
    [
        (i1, 1, np.bool_),
        (i8, 8, np.int8),
        (i16, 16, np.int16),
        (i32, 32, np.int32),
        (i64, 64, np.int64),
        (IndexType(), 64, np.int64),
        (f16, 16, np.float16),
        (bf16, 16, np.float32),
        (f32, 32, np.float32),
        (f64, 64, np.float64),
    ],
)
def test_element_type_facts(t: object, width: int, dtype: type) -> None:
    for holder in (t, TensorType(t, [2, 3]), MemRefType(t, [4])):
        assert bit_width(holder) == width
        assert is_float(holder) == (dtype in (np.float16, np.float32, np.float64))
        assert is_int(holder) == (not is_float(holder))
        assert is_bool(holder) == (t == i1)
        assert is_bf16(holder) == (t == bf16)
    assert storage_dtype(t) == np.dtype(dtype)


def test_storage_dtype_refuses_what_numpy_cannot_hold() -> None:
    with pytest.raises(ValueError, match="no numpy dtype for i7"):
        storage_dtype(IntegerType(7))


def _main(inputs: list[TensorType], outputs: list[TensorType]) -> func.FuncOp:
    f = func.FuncOp("main", (inputs, outputs))
    f.body.block.add_op(func.ReturnOp(*f.body.block.args[: len(outputs)]))
    return f


def test_program_devices_listed_else_first_appearance() -> None:
    on_ba = TensorType(f32, [4], OnAttr(("B", "A")))
    on_c = TensorType(f32, [4], OnAttr(("C",)))
    listed = ModuleOp([_main([on_ba], [on_ba])])
    listed.attributes["multi.devices"] = ArrayAttr([StringAttr("A"), StringAttr("B")])
    assert program_devices(listed) == ["A", "B"]
    assert program_devices(ModuleOp([_main([on_ba], [on_ba])])) == ["B", "A"]
    # After multi-to-devidx the logical signature names the devices first.
    lowered = ModuleOp([_main([TensorType(f32, [4])], [TensorType(f32, [4])])])
    lowered.attributes["multi.signature"] = FunctionType.from_lists([on_c], [on_ba])
    assert program_devices(lowered) == ["C", "B", "A"]

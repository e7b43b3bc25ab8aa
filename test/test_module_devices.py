"""`verify_module_devices` (dialects/multi.py): the SPEC §1 rules no single op can check.

The lit tests (test/lit/dialects/module-devices-invalid.mlir, shard-axis-invalid.mlir) cover
the messages and locations through multi-opt; these call the function on IR built in Python,
as passes and other tools would.
"""

from __future__ import annotations

import pytest
from xdsl.dialects import func, test
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr, TensorType, f32

from xdsl_multi.dialects.multi import (
    OnAttr,
    PlacementError,
    ShardAttr,
    listed_devices,
    verify_module_devices,
)


def _devices(*names: str) -> ArrayAttr[StringAttr]:
    return ArrayAttr(StringAttr(n) for n in names)


def _on(*names: str) -> TensorType:
    return TensorType(f32, [4], OnAttr(names))


def _function(arg_type: TensorType) -> func.FuncOp:
    f = func.FuncOp("main", ((arg_type,), ()))
    f.body.block.add_op(func.ReturnOp())
    return f


def test_listed_devices_pass() -> None:
    module = ModuleOp([_function(_on("B", "A"))], {"multi.devices": _devices("A", "B", "C")})
    verify_module_devices(module)
    assert listed_devices(module) == ("A", "B", "C")


def test_without_the_attribute_any_device_goes() -> None:
    module = ModuleOp([_function(_on("anything"))])
    verify_module_devices(module)
    assert listed_devices(module) is None


def test_unlisted_device_of_an_argument_names_the_argument() -> None:
    f = _function(_on("A", "Z"))
    module = ModuleOp([f], {"multi.devices": _devices("A", "B")})
    with pytest.raises(PlacementError, match=r'argument 0: .* uses device "Z"') as info:
        verify_module_devices(module)
    # The signature and the argument both use Z: the argument is the more precise place.
    assert info.value.op is f
    assert info.value.arg is f.body.block.args[0]


def test_unlisted_device_of_a_result_names_the_op() -> None:
    op = test.TestOp(result_types=[_on("Z")])
    module = ModuleOp([op], {"multi.devices": _devices("A")})
    with pytest.raises(PlacementError, match=r'^test.op: result 0: .* uses device "Z"') as info:
        verify_module_devices(module)
    assert info.value.op is op
    assert info.value.arg is None


@pytest.mark.parametrize(
    ("devices", "message"),
    [
        (_devices(), "must be a non-empty list"),
        (StringAttr("A"), "must be a non-empty list"),
        (ArrayAttr([StringAttr("A"), ArrayAttr([])]), "entry 1 is"),
        (_devices("A", "B", "A"), 'lists device "A" twice'),
    ],
)
def test_malformed_attribute_is_reported_at_the_module(devices, message: str) -> None:
    module = ModuleOp([], {"multi.devices": devices})
    with pytest.raises(PlacementError, match=message) as info:
        verify_module_devices(module)
    assert info.value.op is module


def test_nearest_enclosing_list_applies() -> None:
    # One type object shared by both modules: checked against each module's own list.
    t = _on("A")
    inner = ModuleOp([test.TestOp(result_types=[t])], {"multi.devices": _devices("B")})
    outer = ModuleOp([test.TestOp(result_types=[t]), inner], {"multi.devices": _devices("A")})
    with pytest.raises(
        PlacementError,
        match=r'uses device "A", which the module\'s '
        r'multi.devices \["B"\]',
    ):
        verify_module_devices(outer)


def test_a_nested_module_without_a_list_inherits_it() -> None:
    inner = ModuleOp([test.TestOp(result_types=[_on("Z")])])
    outer = ModuleOp([inner], {"multi.devices": _devices("A")})
    with pytest.raises(PlacementError, match='uses device "Z"'):
        verify_module_devices(outer)


def test_shard_axis_past_rank_anywhere() -> None:
    bad = TensorType(f32, [4, 4], ShardAttr(["A"], 2))
    module = ModuleOp([test.TestOp(result_types=[bad])])
    with pytest.raises(PlacementError, match="sharded on axis 2, out of range for rank 2"):
        verify_module_devices(module)


def test_shard_axis_inside_a_function_type() -> None:
    bad = TensorType(f32, [4], ShardAttr(["A"], 1))
    f = func.FuncOp.external("ext", [], [bad])
    with pytest.raises(PlacementError, match="property 'function_type': .* axis 1, out of range"):
        verify_module_devices(ModuleOp([f]))

"""The scalars of an SPMD `@main` as functions of the device number d (`form-kernels{spmd}`).

In SPMD mode the kernels are built once for every device, so a pad's bound, a fetch's source or
a select's condition may depend on `devidx.device_num`. Each such scalar is a function of d
alone: `DeviceScalars.value(v, d)` evaluates it on device d, and `table(v)` lists it for
d = 0..N-1 (form-kernels turns a bound's table into an index expression of d, and a fetch's
table into each device's sends and receives).

```mlir
%d = devidx.device_num : index
%c4 = arith.constant 4 : index
%lo = arith.muli %d, %c4 : index     // table: [0, 4] on two devices
```

Integer arithmetic follows SPEC §4 (index arithmetic is `arith` on `index`): signed division
and remainder truncate toward zero, `floordivsi` rounds down; a division by zero is an error
of the program, reported at the op.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import PassFailedException

from xdsl_multi.dialects import devidx
from xdsl_multi.dialects.element_types import INDEX_BINARY, INDEX_COMPARE

Scalar = int | bool


_DIVISIONS = (
    arith.DivSIOp,
    arith.DivUIOp,
    arith.FloorDivSIOp,
    arith.CeilDivSIOp,
    arith.RemSIOp,
    arith.RemUIOp,
)


def is_device_scalar(value: SSAValue) -> bool:
    return isinstance(value.type, IndexType | IntegerType)


class DeviceScalars:
    """Evaluates scalar SSA values of an SPMD `@main` on each of `num_devices` devices."""

    def __init__(self, num_devices: int) -> None:
        self.num_devices = num_devices
        self._memo: dict[tuple[SSAValue, int], Scalar] = {}

    def table(self, value: SSAValue) -> list[Scalar]:
        """`value` on devices 0..N-1."""
        return [self.value(value, d) for d in range(self.num_devices)]

    def value(self, value: SSAValue, d: int) -> Scalar:
        key = (value, d)
        hit = self._memo.get(key)
        if hit is None:
            hit = self._evaluate(value, d)
            self._memo[key] = hit
        return hit

    def _evaluate(self, value: SSAValue, d: int) -> Scalar:
        op = value.owner
        if not isinstance(op, Operation) or not is_device_scalar(value):
            raise PassFailedException(
                f"form-kernels: the scalar {value.name_hint or value} is not computed from "
                "constants and devidx.device_num"
            )
        if isinstance(op, devidx.DeviceNumOp):
            return d
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
            v = op.value.value.data
            return bool(v) if _is_i1(value) else v
        if isinstance(op, devidx.LookupOp):
            i = int(self.value(op.index, d))
            if not 0 <= i < len(op.values):
                raise PassFailedException(
                    f"form-kernels: devidx.lookup: index {i} is outside the table of "
                    f"{len(op.values)} entries on device {d}"
                )
            return op.values[i]
        if isinstance(op, arith.IndexCastOp | arith.ExtSIOp | arith.ExtUIOp):
            return int(self.value(op.operands[0], d))
        if isinstance(op, arith.SelectOp):
            c = self.value(op.operands[0], d)
            return self.value(op.operands[1] if c else op.operands[2], d)
        if isinstance(op, arith.CmpiOp):
            pred = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
            a, b = (int(self.value(o, d)) for o in op.operands)
            return INDEX_COMPARE[pred](a, b)
        fold = INDEX_BINARY.get(type(op))
        if fold is not None:
            a, b = (int(self.value(o, d)) for o in op.operands)
            if b == 0 and isinstance(op, _DIVISIONS):
                raise PassFailedException(
                    f"form-kernels: {op.name} divides by zero on device {d}"
                )
            out = fold(a, b)
            return bool(out & 1) if _is_i1(value) else out
        raise PassFailedException(
            f"form-kernels: cannot evaluate the scalar op {op.name} per device (SPMD mode takes "
            "index arithmetic on devidx.device_num and constants)"
        )


def _is_i1(value: SSAValue) -> bool:
    t = value.type
    return isinstance(t, IntegerType) and t.width.data == 1

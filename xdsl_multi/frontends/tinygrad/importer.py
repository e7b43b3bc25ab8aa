"""`import_tensors`: tinygrad 0.14.0 `Tensor.uop` graphs as one multi-level `@main` (SPEC §8).

The walk starts at the tensors' UOps and stops at realized buffers, which become @main's
arguments (their numpy values are `inputs`). Each UOp is imported once per placement (memo):
a UOp with a device once, a device-less one (a constant, an arange, a mask, a numpy buffer) once
per device list it is consumed on, computed there. Splat constants are deduplicated by value and
type. Every op goes through `RULES`, one line per tinygrad op; the rules live by concept in
elementwise.py, movement.py, placement.py, stores.py and functions.py (each with its
mapping table).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from tinygrad.device import Device
from tinygrad.dtype import DType, dtypes
from tinygrad.tensor import Tensor
from tinygrad.uop.ops import GroupOp, Ops, UOp
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.utils.exceptions import VerifyException

from xdsl_multi.builder import Builder, tensor
from xdsl_multi.dialects.multi import OnAttr
from xdsl_multi.frontends.tinygrad import dtypes as tgdtypes
from xdsl_multi.frontends.tinygrad import elementwise, functions, movement, placement, stores
from xdsl_multi.frontends.tinygrad.context import ImportContext
from xdsl_multi.frontends.tinygrad.errors import UnsupportedGraph

Rule = Callable[[ImportContext, UOp, OnAttr | None], SSAValue]


def _const(ctx: ImportContext, u: UOp, where: OnAttr | None) -> SSAValue:
    """A CONST that is not an operand of an ALU op (those are splat at the ALU's type): a rank-0
    tensor where it is consumed."""
    value = elementwise.scalar_constant(u)
    assert value is not None and where is not None
    return ctx.constant(value, tensor([], tgdtypes.element_type(u.dtype, u.op.name), where))


RULES: dict[Ops, Rule] = {
    **{op: elementwise.alu for op in GroupOp.ALU},
    Ops.CAST: elementwise.cast,
    Ops.BITCAST: elementwise.bitcast,
    Ops.CONST: _const,
    Ops.STACK: elementwise.stack,
    Ops.RESHAPE: movement.reshape,
    Ops.EXPAND: movement.expand,
    Ops.PERMUTE: movement.permute,
    Ops.FLIP: movement.flip,
    Ops.PAD: movement.pad,
    Ops.SHRINK: movement.shrink,
    Ops.REDUCE: movement.reduce,
    Ops.COPY: placement.copy,
    Ops.UNSHARD: placement.unshard,
    Ops.MSELECT: placement.mselect,
    Ops.MSTACK: placement.mstack,
    Ops.ALLREDUCE: placement.allreduce,
    Ops.CONTIGUOUS: placement.contiguous,
    Ops.DETACH: placement.passthrough,
    Ops.CONTIGUOUS_BACKWARD: placement.passthrough,
    Ops.AFTER: stores.after,
    Ops.GETTUPLE: functions.gettuple,
}
"""tinygrad op -> the rule that builds it (BUFFER, a cut point, is the importer's own)."""


def _is_symbolic(u: UOp) -> bool:
    shape = u._shape
    return shape is not None and not all(isinstance(s, int) for s in shape)


def _symbolic_origin(u: UOp) -> UOp:
    """The op that makes `u`'s shape symbolic: follow the sources with symbolic shapes."""
    while (inner := next((s for s in u.src if _is_symbolic(s)), None)) is not None:
        u = inner
    return u


def _shape_text(shape: tuple[int | UOp, ...]) -> str:
    """A shape with its symbolic dims named by their variables (`(i, 4)`)."""

    def dim(s: int | UOp) -> str:
        if isinstance(s, int):
            return str(s)
        names = [x.arg.name for x in s.toposort() if x.op is Ops.BUFFER and x.arg.name]
        return "+".join(names) or s.op.name

    return "(" + ", ".join(dim(s) for s in shape) + ")"


def _buffer_array(u: UOp) -> np.ndarray:
    """The data of a BUFFER UOp as the numpy array `Program` takes: one device's buffer, or the
    buffers of a device tuple stacked (leading axis: the devices). A buffer without data (not
    allocated: `Tensor.empty`; or on tinygrad's NULL device, which stores nothing) is zeros;
    bfloat16 is read as its bits and widened to float32 (what `Program` takes for bf16)."""
    dt = u.arg.dtype
    program_dtype = tgdtypes.program_numpy_dtype(dt)
    size = int(u.shape[0])
    devices = u.device if isinstance(u.device, tuple) else (u.device,)
    realized = u.realized
    if realized is None or any(d.startswith("NULL") for d in devices):
        shape = (len(devices), size) if isinstance(u.device, tuple) else (size,)
        return np.zeros(shape, program_dtype)
    bufs = getattr(realized, "bufs", None) or [realized]
    arrays = [_read(b.as_memoryview(), dt, size) for b in bufs]
    return np.stack(arrays) if isinstance(u.device, tuple) else arrays[0]


def _read(memory: memoryview, dt: DType, size: int) -> np.ndarray:
    if dt == dtypes.bfloat16:
        bits = np.frombuffer(bytes(memory), dtype=np.uint16)[:size]
        return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)
    raw = np.frombuffer(bytes(memory), dtype=tgdtypes.user_numpy_dtype(dt))[:size]
    return raw.view(tgdtypes.program_numpy_dtype(dt))


def _erase_unused_ops(main: func.FuncOp) -> None:
    """Drop the ops whose results nothing uses (every op the rules build is pure): the
    broadcast before a scatter, the `multi.local` of the shard pattern once UNSHARD took its
    source."""
    for op in reversed(list(main.body.block.ops)):
        if not isinstance(op, func.ReturnOp) and all(not r.uses for r in op.results):
            main.body.block.erase_op(op)


class Importer(ImportContext):
    """Builds @main for one set of tensors; see the module docstring."""

    def __init__(self) -> None:
        self.b = Builder()
        self.b.function("main", [])
        main = self.b.module.body.block.last_op
        assert isinstance(main, func.FuncOp)
        self._main = main
        self._memo: dict[tuple[UOp, OnAttr | None], SSAValue] = {}
        self._constants: dict[tuple[object, Attribute], SSAValue] = {}
        self.inputs: list[np.ndarray] = []

    # ImportContext

    def value(self, u: UOp, where: OnAttr | None) -> SSAValue:
        key = (u, where if placement.is_placeless(u) else None)
        found = self._memo.get(key)
        if found is not None:
            return found
        if _is_symbolic(u):
            origin = _symbolic_origin(u)
            raise UnsupportedGraph(origin.op.name, f"symbolic shape {_shape_text(origin.shape)}")
        if u.op is Ops.BUFFER:
            result = self._argument(u, where)
        else:
            rule = RULES.get(u.op)
            if rule is None:
                raise UnsupportedGraph(u.op.name, "no rule imports this op")
            try:
                result = rule(self, u, where)
            except VerifyException as e:  # a combination the IR's verifiers reject
                raise UnsupportedGraph(u.op.name, f"the IR rejects it: {e}") from e
        self._memo[key] = result
        return result

    def constant(self, value: float | bool, like: TensorType) -> SSAValue:
        key = (repr(value), like)
        found = self._constants.get(key)
        if found is None:
            found = self._constants[key] = self.b.constant(value, like)
        return found

    def coerce(self, v: SSAValue, target: TensorType, unsigned: bool = False) -> SSAValue:
        t = v.type
        assert isinstance(t, TensorType)
        if t.element_type != target.element_type:
            v = self.b.cast(v, target.element_type, unsigned)
        shape, want = list(t.get_shape()), list(target.get_shape())
        if shape != want:
            if len(shape) < len(want):
                shape = [1] * (len(want) - len(shape)) + shape
                v = self.b.reshape(v, shape)
            if shape != want:
                v = self.b.expand(v, want)
        assert isinstance(v.type, TensorType)
        if v.type.encoding != target.encoding:
            v = self.b.copy(v, target.encoding)  # type: ignore[arg-type]
        return v

    # The cut: realized buffers are arguments

    def _argument(self, u: UOp, where: OnAttr | None) -> SSAValue:
        """A BUFFER as an argument of @main: on its device(s), or a host buffer on `where`."""
        if placement.is_placeless(u):
            assert where is not None
            placed = where
        else:
            placed = placement.devices_of(u.device)
        data = _buffer_array(u)
        if not placement.is_placeless(u) or placed.num_devices == 1:
            local_shape = list(data.shape[1:] if isinstance(u.device, tuple) else data.shape)
        else:
            local_shape = list(data.shape)
        arg_type = tensor(local_shape, tgdtypes.element_type(u.arg.dtype, u.op.name), placed)
        block = self._main.body.block
        arg = block.insert_arg(arg_type, len(block.args))
        arg.name_hint = f"buf{len(self.inputs)}"
        self.inputs.append(data)
        return arg

    def finish(self, tensors: tuple[Tensor, ...]) -> ModuleOp:
        default = OnAttr([Device.DEFAULT])
        results = [
            self.value(t.uop, default if placement.is_placeless(t.uop) else None) for t in tensors
        ]
        self.b.ret(*results)
        _erase_unused_ops(self._main)
        self._main.function_type = FunctionType.from_lists(
            [a.type for a in self._main.body.block.args], [r.type for r in results]
        )
        return self.b.finish()


def import_tensors(*tensors: Tensor) -> tuple[ModuleOp, list[np.ndarray]]:
    """The tensors' graphs as a module whose @main takes the realized buffers (`inputs`, in
    order) and returns the tensors (SPEC §8). Raises UnsupportedGraph for what the IR does not
    express."""
    importer = Importer()
    module = importer.finish(tensors)
    return module, importer.inputs

"""`xm.Builder`: multi-level IR built with xDSL's builders, result types inferred (SPEC §7).

```python
b = Builder(devices=["CPU:0", "CPU:1"])
(x,) = b.function("main", args=[tensor([8, 4], f32, shard(["CPU:0", "CPU:1"], axis=0))])
y = b.reduce("add", b.mulf(x, x), [0])        # tensor<1x4xf32, #multi.on<[...]>>: an allreduce
b.ret(y)
module = b.finish()
```

Every op's result type (shape, element type, encoding) comes from the op's own
`infer_result_type` in dialects/multi.py and dialects/tg.py, the function its verifier checks the
declared type against, so an illegal combination raises the verifier's message
(`VerifyException`) at build time. Where a rule admits several result types the method takes the
free choice as an argument (`copy`'s destination, `allreduce`'s devices, `reshape`'s and
`expand`'s shape, the result shape of a `pad` or `shrink` with dynamic bounds, `multi`'s logical
length, `cast`'s element type). Every op is verified as it is inserted.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder as XdslBuilder
from xdsl.builder import InsertPoint
from xdsl.dialects import arith, func, math
from xdsl.dialects.builtin import (
    ArrayAttr,
    FloatAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    NoneAttr,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from xdsl_multi.dialects import multi, tg
from xdsl_multi.dialects.multi import (
    DEVICES_ATTR,
    MeshAxis,
    OnAttr,
    ReduceKind,
    ShardAttr,
    program_devices,
    verify_module_devices,
)
from xdsl_multi.dialects.splat import splat_attr
from xdsl_multi.dialects.syntax import expect_tensor
from xdsl_multi.dialects.tg import Bound, CmpPredicate

__all__ = ["Builder", "on", "shard", "tensor"]


def on(devices: Sequence[str]) -> OnAttr:
    """`#multi.on<[devices]>`: one buffer per listed device."""
    return OnAttr(list(devices))


def shard(
    devices: Sequence[str],
    axis: int | None = None,
    *,
    mesh: Sequence[int] | None = None,
    axes: Sequence[MeshAxis] | None = None,
) -> ShardAttr:
    """`#multi.shard<[devices], axis = axis>`: the logical tensor split along `axis`; or
    `#multi.shard<[devices], mesh = [...], axes = [...]>` over a device mesh (SPEC §1.1, None in
    `axes` for `none`). An encoding that breaks §1.1's rules raises the verifier's message."""
    attr = ShardAttr(list(devices), axis, mesh=mesh, axes=axes)
    attr.verify()
    return attr


def tensor(
    shape: Sequence[int], element_type: Attribute, encoding: Attribute | None = None
) -> TensorType:
    """`tensor<shape x element_type, encoding>` (no encoding: an unplaced value)."""
    return TensorType(element_type, shape, NoneAttr() if encoding is None else encoding)


def _tensor(op_name: str, value: SSAValue) -> TensorType:
    """The operand's type as a tensor type, or the op verifier's error (multi ops name their
    operand "source", tg ops "operand")."""
    what = "source" if op_name.startswith("multi.") else "operand"
    return expect_tensor(op_name, what, value.type)


class Builder:
    """Builds one `builtin.module` of multi-level functions; see the module docstring.

    The type helpers are also reachable from the class (`xm.Builder.on`, `.shard`, `.tensor`),
    so that a user of the package root needs nothing else."""

    on = staticmethod(on)
    shard = staticmethod(shard)
    tensor = staticmethod(tensor)

    def __init__(
        self,
        devices: Sequence[str] | None = None,
        *,
        module: ModuleOp | None = None,
        insertion_point: InsertPoint | None = None,
    ):
        """`devices` becomes the module's `multi.devices` (else `finish` sets it to the names
        in order of first appearance). With `insertion_point`, ops go there (into any block
        of `module`) instead of into functions made by `function`."""
        self.module = ModuleOp([]) if module is None else module
        if devices is not None:
            self.module.attributes[DEVICES_ATTR] = ArrayAttr(StringAttr(d) for d in devices)
        self._top = InsertPoint.at_end(self.module.body.block)
        self._builder = XdslBuilder(insertion_point or self._top)
        self._function: func.FuncOp | None = None

    # ---------------------------------------------------------------------------------------
    # Functions and the module
    # ---------------------------------------------------------------------------------------

    def function(
        self, name: str, args: Sequence[Attribute], *, arg_names: Sequence[str] | None = None
    ) -> tuple[BlockArgument, ...]:
        """Start `func.func @name(args...)`; ops go into its body until `ret`. Returns the
        block arguments (`arg_names` are their SSA names, which `multi-run --input` uses)."""
        fn = func.FuncOp(name, FunctionType.from_lists(list(args), []))
        self._builder.insert(fn, self._top)
        block = fn.body.block
        for arg, arg_name in zip(block.args, arg_names or (), strict=False):
            arg.name_hint = arg_name
        self._function = fn
        self._builder.insertion_point = InsertPoint.at_end(block)
        return tuple(block.args)

    def ret(self, *values: SSAValue) -> None:
        """`func.return values...`, ending the current function; its result types are the
        values' types."""
        fn = self._function
        if fn is None:
            raise ValueError("Builder.ret: no function is open (call Builder.function first)")
        self._builder.insert(func.ReturnOp(*values))
        fn.function_type = FunctionType.from_lists(
            list(fn.function_type.inputs), [v.type for v in values]
        )
        self._function = None
        self._builder.insertion_point = self._top

    def finish(self) -> ModuleOp:
        """The module, verified (every op and SPEC §1's module rules), with `multi.devices`
        set."""
        if self._function is not None:
            raise ValueError(
                f"Builder.finish: function @{self._function.sym_name.data} has no return yet"
            )
        if DEVICES_ATTR not in self.module.attributes:
            names = program_devices(self.module)
            if names:
                self.module.attributes[DEVICES_ATTR] = ArrayAttr(StringAttr(n) for n in names)
        self.module.verify()
        verify_module_devices(self.module)
        return self.module

    def _insert(self, op: Operation) -> SSAValue:
        op.verify(verify_nested_ops=False)
        self._builder.insert(op)
        return op.results[0]

    # ---------------------------------------------------------------------------------------
    # Constants
    # ---------------------------------------------------------------------------------------

    def constant(self, value: float | bool, like: SSAValue | Attribute) -> SSAValue:
        """`arith.constant`: a splat of `value` with `like`'s type (a value or a type; a tensor
        type keeps its encoding), or a scalar of a float or integer type."""
        t = like.type if isinstance(like, SSAValue) else like
        if isinstance(t, TensorType):
            elt = t.element_type
            v = int(value) if isinstance(elt, IntegerType | IndexType) else float(value)
            attr: Attribute = splat_attr(t, v)  # compact: O(1) however large (dialects/splat.py)
        elif isinstance(t, IntegerType | IndexType):
            attr = IntegerAttr(int(value), t)
        else:
            attr = FloatAttr(float(value), t)  # type: ignore[arg-type]
        return self._insert(arith.ConstantOp(attr))

    def index(self, value: int) -> SSAValue:
        """`arith.constant value : index`, e.g. a dynamic bound of `pad` or `shrink`."""
        return self._insert(arith.ConstantOp(IntegerAttr(value, IndexType())))

    # ---------------------------------------------------------------------------------------
    # multi (SPEC §2)
    # ---------------------------------------------------------------------------------------

    def multi(
        self,
        x: SSAValue,
        axis: int | Sequence[MeshAxis],
        length: int | Sequence[int] | None = None,
        mesh: Sequence[int] | None = None,
    ) -> SSAValue:
        """`multi.multi`: per-device buffers as one tensor split along `axis`, or over the
        device `mesh` with `axis` its axes (`multi.multi %x axes [...]`). `length`: the logical
        length of the one split axis, or the logical shape; default the even lengths."""
        t = multi.MultiOp.infer_result_type(_tensor(multi.MultiOp.name, x), axis, length, mesh)
        return self._insert(multi.MultiOp(x, axis, t))

    def mselect(self, x: SSAValue, index: int) -> SSAValue:
        """`multi.mselect`: device number `index`'s buffer."""
        t = multi.MselectOp.infer_result_type(_tensor(multi.MselectOp.name, x), index)
        return self._insert(multi.MselectOp(x, index, t))

    def local(self, x: SSAValue) -> SSAValue:
        """`multi.local`: each device's local buffer of a shard value (`#multi.on`, the ceil
        shape; rows past the logical length are Invalid)."""
        t = multi.LocalOp.infer_result_type(_tensor(multi.LocalOp.name, x))
        return self._insert(multi.LocalOp(x, t))

    def mstack(self, *sources: SSAValue) -> SSAValue:
        """`multi.mstack`: single-device buffers as one multi-device value."""
        t = multi.MstackOp.infer_result_type([s.type for s in sources])
        return self._insert(multi.MstackOp(sources, t))

    def copy(self, x: SSAValue, destination: OnAttr | ShardAttr) -> SSAValue:
        """`multi.copy` to the placement `destination` (it decides the transfer)."""
        t = multi.CopyOp.infer_result_type(_tensor(multi.CopyOp.name, x), destination)
        return self._insert(multi.CopyOp(x, t))

    def allreduce(
        self, kind: ReduceKind | str, x: SSAValue, devices: Sequence[str] | None = None
    ) -> SSAValue:
        """`multi.allreduce add|mul|max` onto `devices` (default: the source's devices)."""
        t = multi.AllreduceOp.infer_result_type(kind, _tensor(multi.AllreduceOp.name, x), devices)
        return self._insert(multi.AllreduceOp(kind, x, t))

    # ---------------------------------------------------------------------------------------
    # tg (SPEC §3)
    # ---------------------------------------------------------------------------------------

    def reshape(self, x: SSAValue, shape: Sequence[int]) -> SSAValue:
        t = tg.ReshapeOp.infer_result_type(_tensor(tg.ReshapeOp.name, x), shape)
        return self._insert(tg.ReshapeOp(x, t))

    def permute(self, x: SSAValue, order: Sequence[int]) -> SSAValue:
        t = tg.PermuteOp.infer_result_type(_tensor(tg.PermuteOp.name, x), order)
        return self._insert(tg.PermuteOp(x, order, t))

    def expand(self, x: SSAValue, shape: Sequence[int]) -> SSAValue:
        t = tg.ExpandOp.infer_result_type(_tensor(tg.ExpandOp.name, x), shape)
        return self._insert(tg.ExpandOp(x, t))

    def pad(
        self,
        x: SSAValue,
        bounds: Sequence[tuple[Bound, Bound]],
        value: float | bool | None = None,
        *,
        shape: Sequence[int] | None = None,
    ) -> SSAValue:
        """`tg.pad` by per-axis (lo, hi) bounds (ints or `index` values) with `value`, or with
        Invalid when `value` is None. `shape` is needed when a bound is dynamic."""
        src = _tensor(tg.PadOp.name, x)
        fill = None if value is None else tg.pad_value_attr(value, src.element_type)
        if value is not None and fill is None:
            raise VerifyException(
                f"tg.pad: fill value {value!r} does not fit element type {src.element_type}"
            )
        t = tg.PadOp.infer_result_type(src, bounds, fill, shape)
        return self._insert(tg.PadOp(x, bounds, t, fill))

    def shrink(
        self,
        x: SSAValue,
        bounds: Sequence[tuple[Bound, Bound]],
        *,
        shape: Sequence[int] | None = None,
    ) -> SSAValue:
        """`tg.shrink` to rows [lo, hi) per axis. `shape` is needed when a bound is dynamic."""
        t = tg.ShrinkOp.infer_result_type(_tensor(tg.ShrinkOp.name, x), bounds, shape)
        return self._insert(tg.ShrinkOp(x, bounds, t))

    def flip(self, x: SSAValue, axes: Sequence[int]) -> SSAValue:
        t = tg.FlipOp.infer_result_type(_tensor(tg.FlipOp.name, x), axes)
        return self._insert(tg.FlipOp(x, axes, t))

    def reduce(self, kind: ReduceKind | str, x: SSAValue, axes: Sequence[int]) -> SSAValue:
        t = tg.ReduceOp.infer_result_type(kind, _tensor(tg.ReduceOp.name, x), axes)
        return self._insert(tg.ReduceOp(kind, x, axes, t))

    def contiguous(self, x: SSAValue) -> SSAValue:
        t = tg.ContiguousOp.infer_result_type(_tensor(tg.ContiguousOp.name, x))
        return self._insert(tg.ContiguousOp(x, t))

    def cmp(self, predicate: CmpPredicate | str, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        t = tg.CmpOp.infer_result_type(predicate, lhs.type, rhs.type)
        return self._insert(tg.CmpOp(predicate, lhs, rhs, t))

    def where(self, cond: SSAValue, true_value: SSAValue, false_value: SSAValue) -> SSAValue:
        tg.WhereOp.infer_result_type(cond.type, true_value.type, false_value.type)
        return self._insert(tg.WhereOp(cond, true_value, false_value))

    def cast(self, x: SSAValue, element_type: Attribute, unsigned: bool = False) -> SSAValue:
        """`tg.cast` (`unsigned`: the integer side is read or written as unsigned)."""
        t = tg.CastOp.infer_result_type(_tensor(tg.CastOp.name, x), element_type)
        return self._insert(tg.CastOp(x, t, unsigned))

    def threefry(self, x: SSAValue, key: SSAValue) -> SSAValue:
        """`tg.threefry`: tinygrad's THREEFRY of i64 lanes (counter, key and result share one
        type)."""
        return self._insert(tg.ThreefryOp(x, key))

    # ---------------------------------------------------------------------------------------
    # arith and math on tensors: all operands and the result share one type (SPEC §2)
    # ---------------------------------------------------------------------------------------

    def addf(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._insert(arith.AddfOp(lhs, rhs))

    def subf(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._insert(arith.SubfOp(lhs, rhs))

    def mulf(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._insert(arith.MulfOp(lhs, rhs))

    def divf(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._insert(arith.DivfOp(lhs, rhs))

    def maximumf(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._insert(arith.MaximumfOp(lhs, rhs))

    def minimumf(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._insert(arith.MinimumfOp(lhs, rhs))

    def negf(self, x: SSAValue) -> SSAValue:
        return self._insert(arith.NegfOp(x))

    def addi(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._insert(arith.AddiOp(lhs, rhs))

    def subi(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._insert(arith.SubiOp(lhs, rhs))

    def muli(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._insert(arith.MuliOp(lhs, rhs))

    def divsi(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._insert(arith.DivSIOp(lhs, rhs))

    def remsi(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._insert(arith.RemSIOp(lhs, rhs))

    def maxsi(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._insert(arith.MaxSIOp(lhs, rhs))

    def minsi(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._insert(arith.MinSIOp(lhs, rhs))

    def divui(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._insert(arith.DivUIOp(lhs, rhs))

    def remui(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._insert(arith.RemUIOp(lhs, rhs))

    def maxui(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._insert(arith.MaxUIOp(lhs, rhs))

    def andi(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._insert(arith.AndIOp(lhs, rhs))

    def ori(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._insert(arith.OrIOp(lhs, rhs))

    def xori(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._insert(arith.XOrIOp(lhs, rhs))

    def shli(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._insert(arith.ShLIOp(lhs, rhs))

    def shrsi(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._insert(arith.ShRSIOp(lhs, rhs))

    def shrui(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self._insert(arith.ShRUIOp(lhs, rhs))

    def bitcast(self, x: SSAValue, element_type: Attribute) -> SSAValue:
        """`arith.bitcast` of a tensor to another element type of the same width."""
        t = _tensor("arith.bitcast", x)
        return self._insert(arith.BitcastOp(x, TensorType(element_type, t.get_shape(), t.encoding)))

    def trunc(self, x: SSAValue) -> SSAValue:
        return self._insert(math.TruncOp(x))

    def exp(self, x: SSAValue) -> SSAValue:
        return self._insert(math.ExpOp(x))

    def exp2(self, x: SSAValue) -> SSAValue:
        return self._insert(math.Exp2Op(x))

    def log(self, x: SSAValue) -> SSAValue:
        return self._insert(math.LogOp(x))

    def log2(self, x: SSAValue) -> SSAValue:
        return self._insert(math.Log2Op(x))

    def sqrt(self, x: SSAValue) -> SSAValue:
        return self._insert(math.SqrtOp(x))

    def rsqrt(self, x: SSAValue) -> SSAValue:
        return self._insert(math.RsqrtOp(x))

    def tanh(self, x: SSAValue) -> SSAValue:
        return self._insert(math.TanhOp(x))

    def sin(self, x: SSAValue) -> SSAValue:
        return self._insert(math.SinOp(x))

    def cos(self, x: SSAValue) -> SSAValue:
        return self._insert(math.CosOp(x))

    def absf(self, x: SSAValue) -> SSAValue:
        return self._insert(math.AbsFOp(x))

    def erf(self, x: SSAValue) -> SSAValue:
        return self._insert(math.ErfOp(x))

"""The `llvm` dialect of a whole multi-device module as ONE LLVM IR module (SPEC §5, `-t llvm`).

xDSL's translator (`xdsl.backend.llvm.convert`) takes a module whose top level holds only
`llvm.func` and `llvm.mlir.global`. After convert-to-llvm the kernels sit next to host code and
inside the device modules, so `translate_kernels` collects every `llvm.func`/`llvm.mlir.global`
at any depth (host `func.func`s and schedules are skipped; a declaration such as `@tanhf` that
several device modules carry is declared once) and translates each op with xDSL's `convert_op`,
except for the ops listed in `_OWN_CONVERSIONS`, which it translates itself:
- float arithmetic and `llvm.fneg`: xDSL writes fast-math flags in the iteration order of a
  frozenset, which changes with the hash seed; the JIT keys its cache by this text, so the
  flags are written in LLVM's own order (`_FLAG_ORDER`);
- `llvm.call_intrinsic` with fast-math flags (xDSL refuses the flags), declaring the intrinsic
  with the exact, type-mangled name the op carries.

`LLVMKernelsTarget` replaces xDSL's `llvm` target in multi-opt (tools/multi_opt.py).

`kernels_llvm_ir` is the text of that module, or the text a module already carries in its
`multi.llvm_ir` attribute (the compile cache's runtime form, xdsl_multi/compile_cache.py, whose
`llvm.func`s only say which arguments each kernel writes).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO

from llvmlite import ir
from xdsl.backend.llvm.convert_op import convert_op, create_constant
from xdsl.backend.llvm.convert_type import convert_type
from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.utils.exceptions import DiagnosticException
from xdsl.utils.target import Target

ValueMap = dict[SSAValue, ir.Value]

_ARG_FLAGS = {
    "llvm.noalias": "noalias",
    "llvm.nonnull": "nonnull",
    "llvm.noundef": "noundef",
    "llvm.readonly": "readonly",
    "llvm.writeonly": "writeonly",
}


LLVM_IR_ATTR = "multi.llvm_ir"
"""On a top module: the LLVM IR text of all its kernels, as `translate_kernels` made it. The
`llvm.func` bodies of such a module only return (compile_cache.py), never translated."""


def kernels_llvm_ir(module: ModuleOp, *, triple: str | None = None) -> str:
    """The LLVM IR text of every kernel of `module`: its `multi.llvm_ir` attribute when it has
    one, else `translate_kernels`."""
    carried = module.attributes.get(LLVM_IR_ATTR)
    if isinstance(carried, StringAttr):
        return carried.data
    out, twins = _translate(module, triple=triple, data_layout="", share=True)
    text = str(out)
    for name, original in twins.items():
        # the twin's text is its original's under its own name (the names of the values and
        # blocks are numbered per function, so they are the same)
        twin_fn = out.get_global(name)
        original_fn = out.get_global(original)
        assert isinstance(twin_fn, ir.Function) and isinstance(original_fn, ir.Function)
        definition = str(original_fn).replace(
            f"{original_fn.get_reference()}(", f"{twin_fn.get_reference()}(", 1
        )
        declaration = str(twin_fn)
        assert text.count(declaration) == 1, declaration
        text = text.replace(declaration, definition, 1)
    return text


def llvm_ops(module: ModuleOp) -> Iterator[llvm.FuncOp | llvm.GlobalOp]:
    """The `llvm.func` and `llvm.mlir.global` ops of `module` and of its nested modules."""
    for op in module.ops:
        if isinstance(op, llvm.FuncOp | llvm.GlobalOp):
            yield op
        elif isinstance(op, ModuleOp):
            yield from llvm_ops(op)


def translate_kernels(
    module: ModuleOp, *, triple: str | None = None, data_layout: str = ""
) -> ir.Module:
    """One llvmlite module with every llvm function and global of `module` (any depth).

    Raises DiagnosticException when there is nothing in the llvm dialect to translate, or when
    two functions of the same name differ."""
    return _translate(module, triple=triple, data_layout=data_layout, share=False)[0]


def _translate(
    module: ModuleOp, *, triple: str | None, data_layout: str, share: bool
) -> tuple[ir.Module, dict[str, str]]:
    """`translate_kernels`; with `share`, a function whose translation would be that of an
    earlier one (another device's copy of a kernel) is only declared, and returned in the
    map twin name -> original name."""
    functions: dict[str, llvm.FuncOp] = {}
    globals_: dict[str, llvm.GlobalOp] = {}
    for op in llvm_ops(module):
        name = op.sym_name.data
        table: dict[str, llvm.FuncOp] | dict[str, llvm.GlobalOp]
        table = functions if isinstance(op, llvm.FuncOp) else globals_
        previous = table.get(name)
        if previous is None or _is_declaration(previous):
            table[name] = op  # type: ignore[assignment]
        elif not _is_declaration(op) or _signature(op) != _signature(previous):
            raise DiagnosticException(f"two different llvm symbols are named @{name}")
    if not functions and not globals_:
        _raise_nothing_to_emit(module)

    out = ir.Module()
    if triple is None:
        from llvmlite import binding

        triple = binding.get_default_triple()
    out.triple = triple
    if data_layout:
        out.data_layout = data_layout
    for g in globals_.values():
        _convert_global(g, out)
    # declarations (libm) first, then the kernels in the order of the module
    for f in sorted(functions.values(), key=lambda f: not _is_declaration(f)):
        _declare_function(f, out)
    twins: dict[str, str] = {}
    translated: dict[Attribute, list[llvm.FuncOp]] = {}
    for f in functions.values():
        if not f.body.blocks:
            continue
        if share:
            candidates = translated.setdefault(f.function_type, [])
            original = next((g for g in candidates if same_translation(g, f)), None)
            if original is not None:
                twins[f.sym_name.data] = original.sym_name.data
                continue
            candidates.append(f)
        _convert_body(f, out)
    return out, twins


def same_translation(a: llvm.FuncOp, b: llvm.FuncOp) -> bool:
    """Whether two `llvm.func`s translate to the same LLVM IR but for their names: the same
    signature, argument attributes and body (ops, types, properties, attributes, name hints
    and the way values and blocks are used). False when unsure."""
    if a.function_type != b.function_type or a.arg_attrs != b.arg_attrs:
        return False
    blocks_a, blocks_b = list(a.body.blocks), list(b.body.blocks)
    if len(blocks_a) != len(blocks_b):
        return False
    seen: dict[SSAValue | Block, SSAValue | Block] = {}
    for x, y in zip(blocks_a, blocks_b):
        if x.name_hint != y.name_hint or len(x.args) != len(y.args):
            return False
        seen[x] = y
        for u, v in zip(x.args, y.args):
            if u.type != v.type or u.name_hint != v.name_hint:
                return False
            seen[u] = v
    for x, y in zip(blocks_a, blocks_b):
        ops_x, ops_y = list(x.ops), list(y.ops)
        if len(ops_x) != len(ops_y):
            return False
        for o, p in zip(ops_x, ops_y):
            if not _same_op(o, p, seen):
                return False
    return True


def _same_op(o: Operation, p: Operation, seen: dict[SSAValue | Block, SSAValue | Block]) -> bool:
    if type(o) is not type(p) or o.regions or p.regions:
        return False
    if len(o.operands) != len(p.operands) or len(o.results) != len(p.results):
        return False
    if len(o.successors) != len(p.successors):
        return False
    if any(seen.get(u) is not v for u, v in zip(o.operands, p.operands)):
        return False
    if any(seen.get(u) is not v for u, v in zip(o.successors, p.successors)):
        return False
    if o.properties != p.properties or o.attributes != p.attributes:
        return False
    for u, v in zip(o.results, p.results):
        if u.type != v.type or u.name_hint != v.name_hint:
            return False
        seen[u] = v
    return True


def _is_declaration(op: llvm.FuncOp | llvm.GlobalOp) -> bool:
    return isinstance(op, llvm.FuncOp) and not op.body.blocks


def _signature(op: llvm.FuncOp | llvm.GlobalOp) -> object:
    return op.function_type if isinstance(op, llvm.FuncOp) else op.global_type


def _raise_nothing_to_emit(module: ModuleOp) -> None:
    op: Operation | None = next(
        (o for o in module.walk() if o is not module and not isinstance(o, ModuleOp)), None
    )
    found = f"op: {op.name}" if op is not None else "op: none (the module is empty)"
    raise NotImplementedError(
        f"Conversion not implemented for {found}; there is no llvm dialect to emit "
        "(lower the kernels with convert-to-llvm first)"
    )


def _convert_global(op: llvm.GlobalOp, out: ir.Module) -> None:
    g = ir.GlobalVariable(out, convert_type(op.global_type), name=op.sym_name.data)
    g.linkage = op.linkage.linkage.data
    if op.constant is not None:
        g.global_constant = True
    if isinstance(op.value, StringAttr):
        raw = op.value.data.encode()
        g.initializer = ir.Constant(ir.ArrayType(ir.IntType(8), len(raw)), bytearray(raw))  # pyright: ignore[reportAttributeAccessIssue]
    elif op.value is not None:
        g.initializer = create_constant(op.global_type, op.value)  # pyright: ignore[reportAttributeAccessIssue]


def _declare_function(op: llvm.FuncOp, out: ir.Module) -> None:
    fn_type = convert_type(op.function_type)
    assert isinstance(fn_type, ir.FunctionType)
    fn = ir.Function(out, fn_type, name=op.sym_name.data)
    if op.body.blocks:
        fn.attributes.add("nounwind")
    if op.arg_attrs is None:
        return
    for arg, attrs in zip(fn.args, op.arg_attrs.data):
        for key, value in attrs.data.items():
            if key in _ARG_FLAGS:
                arg.add_attribute(_ARG_FLAGS[key])
            elif key == "llvm.align" and isinstance(value, IntegerAttr):
                arg.attributes.align = value.value.data


def _convert_body(op: llvm.FuncOp, out: ir.Module) -> None:
    """The function's blocks, with a phi for each argument of a non-entry block (the
    branches fill in the incoming values), then each op."""
    fn = out.get_global(op.sym_name.data)
    assert isinstance(fn, ir.Function)
    blocks: dict[Block, ir.Block] = {}
    values: ValueMap = {}
    for i, block in enumerate(op.body.blocks):
        blocks[block] = fn.append_basic_block(name=block.name_hint or "")
        if i == 0:
            values.update(zip(block.args, fn.args))
    for block in list(op.body.blocks)[1:]:
        builder = ir.IRBuilder(blocks[block])
        for arg in block.args:
            values[arg] = builder.phi(convert_type(arg.type))  # pyright: ignore[reportArgumentType]
    for block in op.body.blocks:
        builder = ir.IRBuilder(blocks[block])
        if blocks[block].instructions:
            builder.position_after(blocks[block].instructions[-1])
        for inner in block.ops:
            own = _OWN_CONVERSIONS.get(type(inner))
            if own is not None:
                own(inner, builder, values)
            else:
                convert_op(inner, builder, values, blocks)


_FLAG_ORDER = ("nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc")
"""The order in which LLVM prints fast-math flags."""


def _flags(attr: llvm.FastMathAttr) -> list[str]:
    names = {f.value for f in attr.data}
    return [f for f in _FLAG_ORDER if f in names]


_FLOAT_BINARY: dict[type[Operation], str] = {
    llvm.FAddOp: "fadd",
    llvm.FSubOp: "fsub",
    llvm.FMulOp: "fmul",
    llvm.FDivOp: "fdiv",
    llvm.FRemOp: "frem",
}


def _convert_float_binary(op: Operation, builder: ir.IRBuilder, values: ValueMap) -> None:
    assert isinstance(op, llvm.AbstractFloatArithOp)
    build = getattr(builder, _FLOAT_BINARY[type(op)])
    lhs, rhs = (values[v] for v in op.operands)
    values[op.results[0]] = build(lhs, rhs, flags=_flags(op.fastmathFlags))


def _convert_fneg(op: Operation, builder: ir.IRBuilder, values: ValueMap) -> None:
    assert isinstance(op, llvm.FNegOp)
    values[op.res] = builder.fneg(values[op.arg], flags=_flags(op.fastmathFlags))  # pyright: ignore[reportArgumentType]


def _convert_call_intrinsic(op: Operation, builder: ir.IRBuilder, values: ValueMap) -> None:
    assert isinstance(op, llvm.CallIntrinsicOp)
    if op.op_bundle_operands:
        raise NotImplementedError("llvm.call_intrinsic: operand bundles are not supported")
    args = [values[a] for a in op.args]
    result_type = convert_type(op.ress.type) if op.ress is not None else ir.VoidType()
    name = op.intrin.data
    module = builder.module
    if name in module.globals:
        callee = module.globals[name]
    else:
        arg_types = [a.type for a in args]  # pyright: ignore[reportAttributeAccessIssue]
        callee = ir.Function(module, ir.FunctionType(result_type, arg_types), name)
    call = builder.call(callee, args, fastmath=_flags(op.fastmathFlags))
    if op.ress is not None:
        values[op.ress] = call


_OWN_CONVERSIONS: dict[type[Operation], Callable[[Operation, ir.IRBuilder, ValueMap], None]] = {
    **dict.fromkeys(_FLOAT_BINARY, _convert_float_binary),
    llvm.FNegOp: _convert_fneg,
    llvm.CallIntrinsicOp: _convert_call_intrinsic,
}


@dataclass(frozen=True)
class LLVMKernelsTarget(Target):
    """`-t llvm`: LLVM IR text of every kernel of every device (SPEC §5). Exits with a
    diagnostic (a NotImplementedError, which multi-opt reports as a user error) when the
    module holds no llvm dialect."""

    name = "llvm"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        print(kernels_llvm_ir(module), file=output)

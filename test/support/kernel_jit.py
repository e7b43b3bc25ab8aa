"""Kernel-level MLIR builders and a compile-and-run helper, for the codegen tests.

A kernel (the form-kernels contract) is a `func.func` with `multi.kernel` over static memrefs.
`elementwise` writes one for a list of scalar op snippets and, for the snippets that xDSL accepts
on tensors, the same computation as a tensor program, which the reference interpreter runs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from xdsl_multi.dialects import make_context
from xdsl_multi.dialects.parsing import parse_mlir
from xdsl_multi.lowering.convert_to_llvm import ConvertToLLVM
from xdsl_multi.lowering.jit import ALIGNMENT, CompiledKernel, KernelCache

DTYPES: dict[str, np.dtype] = {
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(np.float32),  # bf16 values held in float32
    "i1": np.dtype(np.bool_),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "index": np.dtype(np.int64),
}


def aligned(shape: int | Sequence[int], dtype: np.dtype | type | str) -> np.ndarray:
    """A zeroed, C-contiguous array whose data is ALIGNMENT-byte aligned."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.zeros(nbytes + ALIGNMENT, np.uint8)
    offset = (-raw.ctypes.data) % ALIGNMENT
    return raw[offset : offset + nbytes].view(dtype).reshape(shape)


def aligned_copy(a: np.ndarray) -> np.ndarray:
    out = aligned(a.shape, a.dtype)
    out[...] = a
    return out


def parse(text: str) -> ModuleOp:
    module = parse_mlir(make_context(), text)
    module.verify()
    return module


def lower(text: str) -> ModuleOp:
    """Parse, run convert-to-llvm, verify."""
    module = parse(text)
    ConvertToLLVM().apply(make_context(), module)
    module.verify()
    return module


def compile_text(text: str, cache: KernelCache) -> dict[str, CompiledKernel]:
    return cache.compile_kernels(lower(text))


def round_bf16(x: np.ndarray) -> np.ndarray:
    from xdsl_multi.runtime.values import round_bf16 as _round

    return _round(x)


# ---------------------------------------------------------------------------------------------
# Elementwise kernels from scalar snippets
# ---------------------------------------------------------------------------------------------

Oracle = Callable[..., np.ndarray]


@dataclass(frozen=True)
class Snippet:
    """Scalar MLIR computing `%r` from `%a`, `%b`, `%c` (types written `{T}`, result `{R}`).
    `oracle`: a numpy reference on the input arrays; None means the interpreter runs the same
    snippet on tensors."""

    text: str
    result: str = "{T}"
    oracle: Oracle | None = None
    label: str = ""

    def name(self) -> str:
        return self.label or self.text.split("=", 1)[1].split()[0]


def _instantiate(snippet: Snippet, index: int, types: dict[str, str]) -> tuple[list[str], str]:
    """The snippet's lines with its SSA names made unique and `{T}`-style types filled in."""
    text = snippet.text.format(**types)
    local = {m for m in re.findall(r"%([A-Za-z_]\w*)\s*=", text)}

    def rename(m: re.Match[str]) -> str:
        name = m.group(1)
        return f"%{name}_{index}" if name in local else m.group(0)

    lines = [re.sub(r"%([A-Za-z_]\w*)", rename, line).strip() for line in text.splitlines()]
    return [line for line in lines if line], snippet.result.format(**types)


def elementwise(
    name: str, n: int, in_type: str, snippets: Sequence[Snippet], extra_types: dict[str, str]
) -> tuple[str, str | None]:
    """(kernel module, tensor module for the interpreter or None). The kernel takes memrefs
    A, B, C of `n` x in_type and one output memref per snippet."""
    types = {"T": in_type, **extra_types}
    mem = f"memref<{n}x{in_type}>"
    args = [f"%A: {mem}", f"%B: {mem}", f"%C: {mem}"]
    body: list[str] = []
    tensor_lines: list[str] = []
    results: list[tuple[str, str]] = []
    for k, snippet in enumerate(snippets):
        lines, result_type = _instantiate(snippet, k, types)
        args.append(f"%O{k}: memref<{n}x{result_type}>")
        body += lines + [f"memref.store %r_{k}, %O{k}[%i] : memref<{n}x{result_type}>"]
        if snippet.oracle is None:
            tensor_lines += _tensorize(lines, n)
            results.append((f"%r_{k}", f"tensor<{n}x{result_type}>"))
    kernel = "\n".join(
        [
            f"func.func @{name}({', '.join(args)}) attributes {{multi.kernel}} {{",
            "  %c0 = arith.constant 0 : index",
            "  %c1 = arith.constant 1 : index",
            f"  %cn = arith.constant {n} : index",
            "  scf.for %i = %c0 to %cn step %c1 {",
            f"    %a = memref.load %A[%i] : {mem}",
            f"    %b = memref.load %B[%i] : {mem}",
            f"    %c = memref.load %C[%i] : {mem}",
            *("    " + line for line in body),
            "  }",
            "  func.return",
            "}",
        ]
    )
    if not results:
        return kernel, None
    tensor = f"tensor<{n}x{in_type}>"
    outs = ", ".join(t for _, t in results)
    program = "\n".join(
        [
            f"func.func @main(%a: {tensor}, %b: {tensor}, %c: {tensor}) -> ({outs}) {{",
            *("  " + line for line in tensor_lines),
            f"  func.return {', '.join(r for r, _ in results)} : {outs}",
            "}",
        ]
    )
    return kernel, program


_SCALAR_TYPE = re.compile(r"\b(f16|bf16|f32|f64|i1|i8|i16|i32|i64|index)\b")


def _tensorize(lines: list[str], n: int) -> list[str]:
    """Scalar snippet lines on tensors: types after the `:` become tensor<n x T>; scalar
    constants become splat tensors."""
    out = []
    for line in lines:
        head, sep, tail = line.rpartition(" : ")
        if "arith.constant" in line:
            value = line.split("arith.constant", 1)[1].split(":")[0].strip()
            lhs = line.split("=", 1)[0].strip()
            t = tail.strip()
            out.append(f"{lhs} = arith.constant dense<{value}> : tensor<{n}x{t}>")
            continue
        tail = _SCALAR_TYPE.sub(lambda m: f"tensor<{n}x{m.group(1)}>", tail)
        out.append(head + sep + tail)
    return out

"""The dialects of xdsl-multi: `multi` (tinygrad's multi-device ops), `tg` (movement, reduce and
elementwise helpers) and `devidx` (the symbolic device index).

`make_context()` gives a Context with these and the xDSL dialects the pipeline uses.
"""

from __future__ import annotations

from xdsl.context import Context


def make_context(*, allow_unregistered: bool = False) -> Context:
    """A fresh Context with builtin, func, arith, math, scf, cf, memref, llvm, vector (the
    kernel level's register tiles) and our dialects."""
    from xdsl.dialects.arith import Arith
    from xdsl.dialects.builtin import Builtin
    from xdsl.dialects.cf import Cf
    from xdsl.dialects.func import Func
    from xdsl.dialects.llvm import LLVM
    from xdsl.dialects.math import Math
    from xdsl.dialects.memref import MemRef
    from xdsl.dialects.scf import Scf
    from xdsl.dialects.vector import Vector

    from xdsl_multi.dialects.devidx import Devidx
    from xdsl_multi.dialects.multi import Multi
    from xdsl_multi.dialects.tg import TG

    ctx = Context(allow_unregistered=allow_unregistered)
    for dialect in (Builtin, Func, Arith, Math, Scf, Cf, MemRef, LLVM, Vector, Multi, TG, Devidx):
        ctx.load_dialect(dialect)
    return ctx

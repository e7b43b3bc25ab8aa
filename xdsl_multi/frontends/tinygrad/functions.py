"""tinygrad's `@function` (and TinyJit's captured calls): `GETTUPLE(FUNCTION(TUPLE(body...),
args...), i)` is inlined: element i of the body with each `PARAM` (slot k) replaced by argument
k, imported like any other graph. Our @main has no calls, so nothing else is needed.

| tinygrad | ours |
|---|---|
| GETTUPLE(FUNCTION(TUPLE(...), args...), i) | element i, its PARAMs substituted, inlined |
| GETTUPLE(TUPLE(...), i) | element i |
"""

from __future__ import annotations

from tinygrad.uop.ops import Ops, UOp
from xdsl.ir import SSAValue

from xdsl_multi.dialects.multi import OnAttr
from xdsl_multi.frontends.tinygrad.context import ImportContext
from xdsl_multi.frontends.tinygrad.errors import UnsupportedGraph


def gettuple(ctx: ImportContext, u: UOp, where: OnAttr | None) -> SSAValue:
    holder = u.src[0]
    if holder.op is Ops.TUPLE:
        return ctx.value(holder.src[u.arg], where)
    if holder.op is not Ops.FUNCTION or holder.src[0].op is not Ops.TUPLE:
        raise UnsupportedGraph(u.op.name, f"an element of a {holder.op.name}")
    body, args = holder.src[0], holder.src[1:]
    element = body.src[u.arg]
    params = {p: args[p.arg.slot] for p in element.toposort() if p.op is Ops.PARAM}
    return ctx.value(element.substitute(params), where)

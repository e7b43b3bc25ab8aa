"""Which loads of a register tile are B panels to pack (kernel_codegen.py `pack_panels` for
scalar tiles, vector_tile.py `pack_panels` for vector ones): the search both tiles share.

A panel is a load of a tiled reduction over one variable k that is strided along k (a
coefficient other than 0 or 1), contiguous along the tile's columns (and along the vector's
lanes), the same for every tile row, and whose other variables are bound where the panel is
filled (at or outside the tile column's loop). The tile's elements of row 0 then load the
same panel at shifted columns.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from xdsl_multi.transforms.form_kernels import index_maps as im
from xdsl_multi.transforms.form_kernels.index_maps import Ix, Var
from xdsl_multi.transforms.form_kernels.kernel_analysis import linear_coefficient
from xdsl_multi.transforms.form_kernels.scalar_graph import Graph, SNode, Valid, walk


class Frame(Protocol):
    depth: int


def packable(
    n: SNode,
    k: Var,
    tj: Var,
    ti: Var,
    lane: Var | None,
    column_frame: Frame,
    var_at: Mapping[Var, tuple[Frame, object]],
) -> bool:
    """Whether load `n` is a panel of the reduction over `k` for the tile column `tj` and row
    `ti` (`lane`: the vector tile's lane variable, None for a scalar tile)."""
    own = {k} if lane is None else {k, lane}
    if k not in n.fv or tj not in n.fv or ti in n.fv or not own <= n.fv:
        return False
    for v in n.fv - own:
        bound = var_at.get(v)
        if bound is None or bound[0].depth > column_frame.depth:
            return False
    ck = linear_coefficient(n, k)
    return (
        ck is not None
        and ck not in (0, 1)
        and linear_coefficient(n, tj) == 1
        and (lane is None or linear_coefficient(n, lane) == 1)
    )


def panel_candidates(
    row0: Sequence[tuple[tuple[Ix, ...], SNode, Valid]],
    tiled: set[int],
    accepts: Callable[[SNode, Var], bool],
) -> tuple[list[dict[int, SNode]], dict[int, Var]]:
    """Per element of the tile's row 0: the loads (by id) of its tiled one-variable
    reductions that `accepts(load, k)`; and each such load's reduced variable k."""
    columns: list[dict[int, SNode]] = []
    ks: dict[int, Var] = {}
    for _, value, valid in row0:
        found: dict[int, SNode] = {}
        for r in walk([value, *([valid] if isinstance(valid, SNode) else [])]):
            if r.id not in tiled or len(r.reduce.vars) != 1:
                continue
            k = r.reduce.vars[0]
            for n in walk(r.operands):
                if n.kind == "load" and accepts(n, k):
                    found[n.id] = n
                    ks[n.id] = k
        columns.append(found)
    return columns, ks


def shifted_loads(
    g: Graph, base: SNode, tj: Var, step: int, columns: Sequence[dict[int, SNode]]
) -> list[SNode] | None:
    """The load `base` of element 0 with the tile column shifted by `step * c` for each
    element c, or None when one of them is not among element c's candidates (`columns`)."""
    leaf, index = base.payload
    loads: list[SNode] = []
    for c, found in enumerate(columns):
        shift = {tj: im.add_const(im.var(tj), step * c)}
        load = g.load(leaf, tuple(im.substitute(x, shift) for x in index))
        if load.id not in found:
            return None
        loads.append(load)
    return loads

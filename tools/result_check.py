"""`multi-run --check`: compare a backend's logical outputs with the reference interpreter's.

Integers and booleans must be equal. Floats may differ by rounding, since compiled kernels
reassociate reductions and contract multiply-adds: |got - want| <= atol + rtol * |want| with
rtol per dtype (RTOL) and atol = rtol * the largest |want| of that result, so an element that
cancels to near zero is judged against the scale of its result; NaN matches NaN and an
infinity must match exactly. A result computed through a less precise float type (an f32
`math.exp` cast to f64) is judged by that type's rtol (`result_rtols`): its digits beyond f32's
are rounding of the f32 step, which libm and numpy need not round alike.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, OpResult, SSAValue

from xdsl_multi.dialects.element_types import bit_width, is_bf16, is_float

RTOL = {np.dtype(np.float16): 2e-3, np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-12}
BF16_RTOL = 1e-2
"""bf16 keeps 8 bits of mantissa (numpy has no bf16 dtype: such results come as f32)."""


def _type_rtol(t: Attribute) -> float:
    """The rtol of a value of type `t` (0 for non-floats)."""
    if not is_float(t):
        return 0.0
    if is_bf16(t):
        return BF16_RTOL
    return RTOL.get(np.dtype(f"float{bit_width(t)}"), 1e-5)


def result_rtols(module: ModuleOp, entry: str = "main") -> list[float]:
    """For each result of function `entry`: the largest rtol of the float results of the ops
    that compute it (0 where none is a float), so a value that went through f32 on its way to
    f64 is judged as f32. The function's arguments do not count: both sides get the same
    inputs."""
    f = next(
        (op for op in module.walk() if isinstance(op, func.FuncOp) and op.sym_name.data == entry),
        None,
    )
    ret = f.body.blocks[-1].last_op if f is not None and f.body.blocks else None
    if not isinstance(ret, func.ReturnOp):
        return []

    def cone(v: SSAValue) -> float:
        todo, seen, worst = [v], set[SSAValue](), 0.0
        while todo:
            value = todo.pop()
            if value in seen or not isinstance(value, OpResult):
                continue
            seen.add(value)
            for inner in value.op.walk():  # the op, and any op in its regions
                worst = max(worst, 0.0, *(_type_rtol(r.type) for r in inner.results))
            todo.extend(value.op.operands)
        return worst

    return [cone(v) for v in ret.operands]


def _close(got: np.ndarray, want: np.ndarray, rtol_floor: float = 0.0) -> np.ndarray:
    if got.dtype.kind != "f":
        return got == want
    rtol = max(RTOL.get(got.dtype, 1e-5), rtol_floor)
    finite = np.isfinite(want)
    scale = float(np.max(np.abs(want[finite]), initial=0.0))
    with np.errstate(all="ignore"):
        near = np.abs(got.astype(np.float64) - want) <= rtol * (scale + np.abs(want))
    same_special = (np.isnan(got) & np.isnan(want)) | (~finite & (got == want))
    return np.where(finite, near, same_special)


def first_mismatch(
    got: Sequence[np.ndarray],
    want: Sequence[np.ndarray],
    backend: str,
    rtols: Sequence[float] = (),
) -> str | None:
    """None if every result matches, else a sentence naming the result and the first
    mismatching element: its index and both values. `rtols` (`result_rtols` of the program)
    loosens each float result to the least precise float type that computed it."""
    if len(got) != len(want):
        return f"{backend} gives {len(got)} results, interp {len(want)}"
    floors = list(rtols) + [0.0] * (len(got) - len(rtols))
    for j, (g, w) in enumerate(zip(got, want, strict=True)):
        if g.shape != w.shape or g.dtype != w.dtype:
            return (
                f"result{j}: {backend} gives {g.dtype}{list(g.shape)}, interp "
                f"{w.dtype}{list(w.shape)}"
            )
        bad = np.argwhere(~_close(g, w, floors[j]))
        if len(bad):
            index = tuple(int(i) for i in bad[0])
            where = f" at index {index}" if index else ""
            return (
                f"result{j} differs{where}: {backend} {g[index].item()!r}, interp "
                f"{w[index].item()!r} "
                f"({len(bad)} of {g.size} elements differ)"
            )
    return None

"""`multi-run --check`: compare a backend's logical outputs with the reference interpreter's.

Integers and booleans must be equal. Floats may differ by rounding, since compiled kernels
reassociate reductions and contract multiply-adds: |got - want| <= atol + rtol * |want| with
rtol per dtype (RTOL) and atol = rtol * the largest |want| of that result, so an element that
cancels to near zero is judged against the scale of its result; NaN matches NaN and an
infinity must match exactly.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

RTOL = {np.dtype(np.float16): 2e-3, np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-12}


def _close(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    if got.dtype.kind != "f":
        return got == want
    rtol = RTOL.get(got.dtype, 1e-5)
    finite = np.isfinite(want)
    scale = float(np.max(np.abs(want[finite]), initial=0.0))
    with np.errstate(all="ignore"):
        near = np.abs(got.astype(np.float64) - want) <= rtol * (scale + np.abs(want))
    same_special = (np.isnan(got) & np.isnan(want)) | (~finite & (got == want))
    return np.where(finite, near, same_special)


def first_mismatch(
    got: Sequence[np.ndarray], want: Sequence[np.ndarray], backend: str
) -> str | None:
    """None if every result matches, else a sentence naming the result and the first
    mismatching element: its index and both values."""
    if len(got) != len(want):
        return f"{backend} gives {len(got)} results, interp {len(want)}"
    for j, (g, w) in enumerate(zip(got, want, strict=True)):
        if g.shape != w.shape or g.dtype != w.dtype:
            return (
                f"result{j}: {backend} gives {g.dtype}{list(g.shape)}, interp "
                f"{w.dtype}{list(w.shape)}"
            )
        bad = np.argwhere(~_close(g, w))
        if len(bad):
            index = tuple(int(i) for i in bad[0])
            where = f" at index {index}" if index else ""
            return (
                f"result{j} differs{where}: {backend} {g[index].item()!r}, interp "
                f"{w[index].item()!r} "
                f"({len(bad)} of {g.size} elements differ)"
            )
    return None

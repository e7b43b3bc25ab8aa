"""`run`: import tinygrad tensors, compile the module, run it (SPEC §8)."""

from __future__ import annotations

import numpy as np
from tinygrad.tensor import Tensor
from xdsl.dialects.builtin import TensorType

from xdsl_multi.api import compile as compile_module
from xdsl_multi.dialects.multi import OnAttr
from xdsl_multi.frontends.tinygrad import dtypes as tgdtypes
from xdsl_multi.frontends.tinygrad.importer import import_tensors


def run(*tensors: Tensor, backend: str = "threads") -> tuple[np.ndarray, ...]:
    """The tensors' values computed by xdsl-multi, as tinygrad's `Tensor.numpy()` gives them: a
    value on several devices (not sharded) is its first device's buffer; unsigned dtypes come
    back unsigned."""
    module, inputs = import_tensors(*tensors)
    result_types = module.body.block.last_op.function_type.outputs.data  # type: ignore[union-attr]
    with compile_module(module, backend=backend) as prog:
        outputs = prog(*inputs)
    values = []
    for t, out, rtype in zip(tensors, outputs, result_types, strict=True):
        assert isinstance(rtype, TensorType)
        enc = rtype.encoding
        if isinstance(enc, OnAttr) and enc.num_devices > 1:
            out = out[0]
        values.append(np.asarray(out).view(tgdtypes.user_numpy_dtype(t.dtype)))
    return tuple(values)

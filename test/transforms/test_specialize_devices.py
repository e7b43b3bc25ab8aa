"""specialize-devices keeps every program's meaning: the reference interpreter gives the same
logical outputs for the SPMD module (devices in lockstep) and for the specialized one (one
module per device, sends delivered to receives), on 1, 2, 3 and 4 devices.

- every chunk of the pass's lit test, on its own device count;
- the hand-written SPMD programs of test/support/spmd_programs.py;
- multi-level programs lowered by multi-to-devidx (every copy kind, allreduces, sharded
  reductions), compared with the multi-level run itself.
Structure is checked too: no device_num or fetch is left, every send has exactly one matching
receive (same channel, swapped devices), channels are unique.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import multi_programs as P  # test/support, on pythonpath
import numpy as np
import pass_equivalence as E
import pytest
import spmd_programs as S
from xdsl.dialects.builtin import ArrayAttr, ModuleOp
from xdsl.utils.exceptions import PassFailedException

from xdsl_multi.dialects import devidx, make_context
from xdsl_multi.runtime.interpreter.interpreter import logical_signature, random_inputs, run_module
from xdsl_multi.transforms.devidx_simplify.devidx_simplify import DevidxSimplify
from xdsl_multi.transforms.multi_to_devidx.multi_to_devidx import MultiToDevidx
from xdsl_multi.transforms.specialize_devices.specialize_devices import (
    DEVICE_ATTR,
    SpecializeDevices,
)

LIT_FILE = Path(__file__).resolve().parents[1] / "lit" / "transforms" / "specialize-devices.mlir"
DEVICE_COUNTS = [1, 2, 3, 4]


def specialize(module: ModuleOp) -> None:
    SpecializeDevices().apply(make_context(), module)
    check_structure(module)


def check_structure(module: ModuleOp) -> None:
    """One module per device numbered 0..N-1, no device_num or fetch left, every send matched by
    exactly one receive with the same channel and swapped devices, channels unique."""
    devices = module.attributes["multi.devices"]
    assert isinstance(devices, ArrayAttr)
    mods = E.device_modules(module)
    assert [m.attributes[DEVICE_ATTR].value.data for m in mods] == list(range(len(devices.data)))  # type: ignore[attr-defined]
    assert [m.sym_name.data for m in mods if m.sym_name] == [f"device_{k}" for k in range(len(mods))]
    sends: Counter[tuple[int, int, int]] = Counter()
    recvs: Counter[tuple[int, int, int]] = Counter()
    for k, m in enumerate(mods):
        for op in m.walk():
            assert not isinstance(op, devidx.DeviceNumOp | devidx.FetchOp), op
            if isinstance(op, devidx.SendOp):
                sends[(k, op.dest.value.data, op.channel.value.data)] += 1
            if isinstance(op, devidx.RecvOp):
                recvs[(op.source.value.data, k, op.channel.value.data)] += 1
    assert sends == recvs
    assert all(c == 1 for c in sends.values())
    channels = [c for _, _, c in sends]
    assert len(channels) == len(set(channels))


def messages(module: ModuleOp) -> int:
    return sum(isinstance(op, devidx.SendOp) for op in module.walk())


def _lit_chunks() -> list[object]:
    out = []
    for entry, text in E.lit_chunks(LIT_FILE):
        devices = E.parse(text).attributes["multi.devices"]
        assert isinstance(devices, ArrayAttr)
        out.append(pytest.param(text, entry, len(devices.data), id=entry + f"-{len(out)}"))
    return out


@pytest.mark.parametrize(("text", "entry", "n"), _lit_chunks())
def test_lit_chunk_keeps_meaning(text: str, entry: str, n: int) -> None:
    E.check_pass_keeps_meaning(text, n, entry, specialize)


@pytest.mark.parametrize("n", DEVICE_COUNTS)
@pytest.mark.parametrize("name", sorted(S.PROGRAMS))
def test_spmd_program_keeps_meaning(name: str, n: int) -> None:
    E.check_pass_keeps_meaning(S.PROGRAMS[name](n), n, "main", specialize, exact=False)


@pytest.mark.parametrize("n", DEVICE_COUNTS)
@pytest.mark.parametrize("name", sorted(S.PROGRAMS))
def test_simplify_then_specialize_keeps_meaning(name: str, n: int) -> None:
    def both(module: ModuleOp) -> None:
        DevidxSimplify().apply(make_context(), module)
        specialize(module)

    E.check_pass_keeps_meaning(S.PROGRAMS[name](n), n, "main", both, exact=False)


@pytest.mark.parametrize("n", DEVICE_COUNTS)
def test_fetch_ring_sends_one_message_per_device(n: int) -> None:
    after = E.check_pass_keeps_meaning(S.fetch_ring(n), n, "main", specialize)
    assert messages(after) == (n if n > 1 else 0)


@pytest.mark.parametrize("n", DEVICE_COUNTS)
def test_mselect_keeps_work_on_its_device_only(n: int) -> None:
    after = E.check_pass_keeps_meaning(S.mselect_style(n), n, "main", specialize)
    for k, m in enumerate(E.device_modules(after)):
        exps = [op for op in m.walk() if op.name == "math.exp"]
        assert len(exps) == (1 if k == n - 1 else 0)
        assert not any(isinstance(op, devidx.InvalidOp) for op in m.walk())


def _multi_cases(n: int) -> dict[str, str]:
    cases = {f"copy-{k}": v for k, v in P.copy_cases(n, 7).items()}
    cases["multi"] = P.multi_of_buffers(n, 7)
    cases["mselect"] = P.mselect(n, n - 1)
    cases["mstack"] = P.mstack(n)
    for kind in ("add", "max"):
        cases[f"allreduce-{kind}"] = P.allreduce(n, kind, (3, 4))
        cases[f"reduce-shard-{kind}"] = P.reduce_over_shard_axis(n, 7, kind)
    cases["row-ops"] = P.row_ops(n, 7)
    return cases


MULTI_CASES = [
    pytest.param(n, name, id=f"{name}-{n}") for n in DEVICE_COUNTS for name in _multi_cases(n)
]


@pytest.mark.parametrize(("n", "name"), MULTI_CASES)
def test_lowered_multi_program_keeps_meaning(n: int, name: str) -> None:
    """multi level -> multi-to-devidx -> devidx-simplify -> specialize-devices, against the
    multi-level run."""
    text = _multi_cases(n)[name]
    before = E.parse(text)
    after = E.parse(text)
    ctx = make_context()
    MultiToDevidx().apply(ctx, after)
    DevidxSimplify().apply(ctx, after)
    after.verify()
    specialize(after)
    after.verify()
    for seed in (0, 1):
        inputs = random_inputs(logical_signature(before, "main"), seed)
        want = run_module(before, inputs)
        got = run_module(after, inputs)
        for g, w in zip(got, want, strict=True):
            assert g.shape == w.shape and g.dtype == w.dtype
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def test_non_constant_source_is_rejected() -> None:
    text = """
    builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
      func.func @main(%x: tensor<2xf32>, %j: index) -> tensor<2xf32> {
        %f = devidx.fetch %x from %j : tensor<2xf32>
        func.return %f : tensor<2xf32>
      }
    }"""
    with pytest.raises(PassFailedException, match="does not fold to a constant on device 0"):
        SpecializeDevices().apply(make_context(), E.parse(text))


def test_source_out_of_range_is_rejected() -> None:
    text = """
    builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
      func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
        %d = devidx.device_num : index
        %c1 = arith.constant 1 : index
        %s = arith.addi %d, %c1 : index
        %f = devidx.fetch %x from %s : tensor<2xf32>
        func.return %f : tensor<2xf32>
      }
    }"""
    with pytest.raises(PassFailedException, match="its source device is 2, outside"):
        SpecializeDevices().apply(make_context(), E.parse(text))

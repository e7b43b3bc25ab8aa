"""`xdsl_multi.builder.Builder` (SPEC §7 `xm.Builder`): result types inferred by the rules the
verifiers check.

- every program in examples/ rebuilt with the Builder is structurally the parsed example;
- each inference rule gives the type SPEC §2-§3 says (reduce over and off the shard axis,
  permute moving the axis, shrink selecting one shard, reshape, pad, expand, every kind of copy,
  allreduce, ...);
- each illegal combination raises, at build time, the message the op's verifier gives for the
  same op built with a declared result type;
- a built Megatron MLP runs in the interpreter and through the pipeline and the threads
  runtime, checked against numpy.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp, TensorType, f32, i1, i32, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

import xdsl_multi
from xdsl_multi.builder import Builder, on, shard, tensor
from xdsl_multi.dialects import make_context, multi, tg
from xdsl_multi.dialects.multi import CopyKind, copy_kind
from xdsl_multi.dialects.parsing import parse_mlir
from xdsl_multi.pipeline import lower_for_runtime
from xdsl_multi.runtime.interpreter.interpreter import run_module
from xdsl_multi.runtime.program import Program

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
D2 = ["CPU:0", "CPU:1"]
D3 = ["CPU:0", "CPU:1", "CPU:2"]
D4 = ["CPU:0", "CPU:1", "CPU:2", "CPU:3"]


# --------------------------------------------------------------------------------------------
# The examples, rebuilt
# --------------------------------------------------------------------------------------------


def _matmul(
    b: Builder,
    a: SSAValue,
    w: SSAValue,
    a_to: Attribute | None = None,
    w_to: Attribute | None = None,
) -> SSAValue:
    """a @ w as the examples write it: broadcast both to (M, N, K), multiply, reduce K; `a_to`
    and `w_to` copy the broadcast operands to a placement first."""
    assert isinstance(a.type, TensorType) and isinstance(w.type, TensorType)
    m, k = a.type.get_shape()
    n = w.type.get_shape()[1]
    ae = b.expand(b.reshape(a, [m, 1, k]), [m, n, k])
    if a_to is not None:
        ae = b.copy(ae, a_to)  # type: ignore[arg-type]
    we = b.expand(b.reshape(b.permute(w, [1, 0]), [1, n, k]), [m, n, k])
    if w_to is not None:
        we = b.copy(we, w_to)  # type: ignore[arg-type]
    return b.reshape(b.reduce("add", b.mulf(ae, we), [2]), [m, n])


def _relu(b: Builder, x: SSAValue) -> SSAValue:
    return b.maximumf(x, b.constant(0.0, like=x))


def build_megatron_mlp() -> ModuleOp:
    b = Builder(devices=D2)
    x, w1, w2 = b.function(
        "main",
        [tensor([4, 8], f32, on(D2)), tensor([8, 8], f32, on(D2)), tensor([8, 8], f32, on(D2))],
    )
    h = _relu(b, _matmul(b, x, w1))
    b.ret(b.allreduce("add", _matmul(b, h, w2)))
    return b.finish()


def build_megatron_mlp_shard() -> ModuleOp:
    b = Builder(devices=D2)
    x, w1, w2 = b.function(
        "main",
        [
            tensor([4, 8], f32, on(D2)),
            tensor([8, 16], f32, shard(D2, 1)),
            tensor([16, 8], f32, shard(D2, 0)),
        ],
    )
    h = _relu(b, _matmul(b, x, w1, a_to=shard(D2, 1)))
    b.ret(_matmul(b, h, w2))
    return b.finish()


def build_dp_mlp() -> ModuleOp:
    b = Builder(devices=D2)
    x, w1, w2 = b.function(
        "main",
        [
            tensor([8, 16], f32, shard(D2, 0)),
            tensor([16, 32], f32, on(D2)),
            tensor([32, 4], f32, on(D2)),
        ],
    )
    h = _relu(b, _matmul(b, x, w1, w_to=shard(D2, 0)))
    b.ret(_matmul(b, h, w2, w_to=shard(D2, 0)))
    return b.finish()


def build_layernorm() -> ModuleOp:
    b = Builder(devices=D2)
    (x,) = b.function("main", [tensor([8, 16], f32, shard(D2, 0))])
    like = tensor([8, 1], f32, shard(D2, 0))
    inv_n, eps = b.constant(0.0625, like=like), b.constant(1.0e-05, like=like)
    mu = b.mulf(b.reduce("add", x, [1]), inv_n)
    d = b.subf(x, b.expand(mu, [8, 16]))
    var = b.mulf(b.reduce("add", b.mulf(d, d), [1]), inv_n)
    rstd = b.rsqrt(b.addf(var, eps))
    b.ret(b.mulf(d, b.expand(rstd, [8, 16])))
    return b.finish()


def build_uneven() -> ModuleOp:
    b = Builder(devices=D3)
    (x,) = b.function("main", [tensor([7, 5], f32, shard(D3, 0))])
    rows = b.reduce("add", b.mulf(x, x), [1])
    b.ret(rows, b.reduce("add", x, [0]))
    return b.finish()


def build_allreduce_mstack() -> ModuleOp:
    b = Builder(devices=D4)
    args = b.function("main", [tensor([4, 4], f32, on([d])) for d in D4])
    t = b.mstack(*args)
    b.ret(b.allreduce("add", t), b.allreduce("max", t))
    return b.finish()


def build_mesh_matmul() -> ModuleOp:
    b = Builder(devices=D4)

    def mesh(axes: list[int | None]) -> multi.ShardAttr:
        return shard(D4, mesh=[2, 2], axes=axes)

    a, w = b.function(
        "main", [tensor([7, 6], f32, mesh([0, None])), tensor([6, 10], f32, mesh([None, 1]))]
    )
    ae = b.copy(b.expand(b.reshape(a, [7, 1, 6]), [7, 10, 6]), mesh([0, 1]))
    we = b.expand(b.reshape(b.permute(w, [1, 0]), [1, 10, 6]), [7, 10, 6])
    c = b.reshape(b.reduce("add", b.mulf(ae, b.copy(we, mesh([0, 1]))), [2]), [7, 10])
    b.ret(c, b.copy(c, on(D4)))
    return b.finish()


def build_copies() -> ModuleOp:
    b = Builder(devices=D2)
    (x,) = b.function("main", [tensor([8, 4], f32, on(["CPU:0"]))])
    xs = b.copy(x, shard(D2, 0))
    two, one = b.constant(2.0, like=xs), b.constant(1.0, like=xs)
    e = b.addf(b.mulf(xs, two), one)
    g = b.copy(e, on(["CPU:1"]))
    bc = b.copy(g, on(D2))
    ag = b.copy(e, on(D2))
    rs = b.copy(e, shard(D2, 1))
    sw = b.copy(b.mstack(x, g), on(["CPU:1", "CPU:0"]))
    b.ret(g, bc, ag, rs, sw)
    return b.finish()


BUILT: dict[str, Callable[[], ModuleOp]] = {
    "megatron_mlp": build_megatron_mlp,
    "megatron_mlp_shard": build_megatron_mlp_shard,
    "dp_mlp": build_dp_mlp,
    "layernorm": build_layernorm,
    "uneven": build_uneven,
    "allreduce_mstack": build_allreduce_mstack,
    "copies": build_copies,
    "mesh_matmul": build_mesh_matmul,
}


def test_every_example_is_rebuilt() -> None:
    assert sorted(BUILT) == sorted(p.stem for p in EXAMPLES.glob("*.mlir"))


@pytest.mark.parametrize("name", sorted(BUILT))
def test_built_example_is_the_parsed_example(name: str) -> None:
    parsed = parse_mlir(make_context(), (EXAMPLES / f"{name}.mlir").read_text())
    built = BUILT[name]()
    assert built.is_structurally_equivalent(parsed), f"built:\n{built}\nparsed:\n{parsed}"


# --------------------------------------------------------------------------------------------
# Inference rules
# --------------------------------------------------------------------------------------------


def _args(*types: Attribute) -> tuple[Builder, tuple[SSAValue, ...]]:
    b = Builder()
    return b, b.function("f", list(types))


S0 = shard(D2, 0)
S1 = shard(D2, 1)
ON = on(D2)


def test_reduce_over_the_shard_axis_is_on_every_device_and_off_it_keeps_the_shard() -> None:
    b, (x,) = _args(tensor([8, 4], f32, S0))
    assert b.reduce("add", x, [0]).type == tensor([1, 4], f32, ON)
    assert b.reduce("max", x, [1]).type == tensor([8, 1], f32, S0)
    assert b.reduce("mul", x, [0, 1]).type == tensor([1, 1], f32, ON)


def test_permute_moves_the_shard_axis() -> None:
    b, (x,) = _args(tensor([8, 4, 2], f32, S1))
    assert b.permute(x, [2, 0, 1]).type == tensor([2, 8, 4], f32, shard(D2, 2))
    b, (y,) = _args(tensor([8, 4], f32, ON))
    assert b.permute(y, [1, 0]).type == tensor([4, 8], f32, ON)


def test_shrink_keeps_the_whole_shard_axis_or_selects_one_shard() -> None:
    b, (x,) = _args(tensor([7, 4], f32, shard(D3, 0)))
    assert b.shrink(x, [(0, 7), (1, 3)]).type == tensor([7, 2], f32, shard(D3, 0))
    assert b.shrink(x, [(6, 7), (0, 4)]).type == tensor([1, 4], f32, on(D3))
    lo = b.index(1)
    got = b.shrink(x, [(0, 7), (lo, 4)], shape=[7, 2]).type
    assert got == tensor([7, 2], f32, shard(D3, 0))


def test_reshape_moves_the_shard_axis_to_the_new_axis() -> None:
    b, (x,) = _args(tensor([8, 6], f32, S1))
    assert b.reshape(x, [8, 2, 3]).type == tensor([8, 2, 3], f32, S1)
    b, (y,) = _args(tensor([4, 8], f32, S0))
    assert b.reshape(y, [2, 2, 8]).type == tensor([2, 2, 8], f32, S0)
    assert b.reshape(y, [4, 1, 8]).type == tensor([4, 1, 8], f32, S0)


def test_pad_and_expand_keep_the_encoding() -> None:
    b, (x,) = _args(tensor([8, 1], f32, S0))
    assert b.pad(x, [(0, 0), (1, 2)], 0.0).type == tensor([8, 4], f32, S0)
    assert b.expand(x, [8, 5]).type == tensor([8, 5], f32, S0)
    hi = b.index(3)
    assert b.pad(x, [(0, 0), (0, hi)], shape=[8, 4]).type == tensor([8, 4], f32, S0)


def test_copies_of_every_kind() -> None:
    b, (x, y, z) = _args(
        tensor([8, 4], f32, S0), tensor([8, 4], f32, ON), tensor([8, 4], f32, on(["CPU:1"]))
    )
    cases = [
        (x, on(["CPU:1"]), CopyKind.TO_ONE),
        (z, ON, CopyKind.BROADCAST),
        (x, ON, CopyKind.BROADCAST),
        (y, on(["CPU:1", "CPU:0"]), CopyKind.PERMUTE),
        (z, S0, CopyKind.SCATTER),
        (x, S1, CopyKind.SCATTER),
        (y, S0, CopyKind.KEEP_SLICE),
    ]
    for src, dst, kind in cases:
        got = b.copy(src, dst)
        assert got.type == tensor([8, 4], f32, dst)
        assert copy_kind(src.type, got.type) is kind  # type: ignore[arg-type]


def test_allreduce_multi_mselect_mstack_cast_cmp_where() -> None:
    b, (x, a, c) = _args(
        tensor([4, 4], f32, ON),
        tensor([4, 4], i32, on(["CPU:0"])),
        tensor([4, 4], i32, on(["CPU:1"])),
    )
    assert b.allreduce("add", x).type == tensor([4, 4], f32, ON)
    assert b.allreduce("max", x, devices=["CPU:1"]).type == tensor([4, 4], f32, on(["CPU:1"]))
    assert b.multi(x, 0).type == tensor([8, 4], f32, S0)
    assert b.multi(x, 1, length=7).type == tensor([4, 7], f32, S1)
    assert b.mselect(x, 1).type == tensor([4, 4], f32, on(["CPU:1"]))
    assert b.mstack(c, a).type == tensor([4, 4], i32, on(["CPU:1", "CPU:0"]))
    assert b.cast(x, i32).type == tensor([4, 4], i32, ON)
    m = b.cmp("lt", x, x)
    assert m.type == tensor([4, 4], i1, ON)
    assert b.where(m, x, x).type == x.type
    assert b.constant(1.0, like=x).type == x.type


def test_local_unsigned_cast_and_threefry() -> None:
    b, (x, u, k) = _args(
        tensor([7, 4], f32, shard(["CPU:0", "CPU:1", "CPU:2"], 0)),
        tensor([4], i32, ON),
        tensor([4], i64, ON),
    )
    assert b.local(x).type == tensor([3, 4], f32, on(["CPU:0", "CPU:1", "CPU:2"]))
    cast = b.cast(u, f32, unsigned=True)
    assert cast.type == tensor([4], f32, ON) and cast.owner.is_unsigned
    assert b.cmp("ult", u, u).type == tensor([4], i1, ON)
    assert b.threefry(k, k).type == k.type
    with pytest.raises(VerifyException, match="source must be #multi.shard"):
        b.local(u)
    with pytest.raises(VerifyException, match="unsigned predicate 'ult' needs integer"):
        b.cmp("ult", cast, cast)
    with pytest.raises(VerifyException, match="tg.threefry"):
        b.threefry(u, u)


def test_finish_sets_the_device_list_in_order_of_first_appearance() -> None:
    b = Builder()
    (x,) = b.function("main", [tensor([4], f32, on(["CPU:1", "CPU:0"]))], arg_names=["x"])
    b.ret(b.negf(x))
    module = b.finish()
    assert [s.data for s in module.attributes["multi.devices"].data] == ["CPU:1", "CPU:0"]  # type: ignore[attr-defined]
    assert "%x: tensor<4xf32" in str(module)


# --------------------------------------------------------------------------------------------
# Illegal combinations: the builder raises the verifier's message
# --------------------------------------------------------------------------------------------


def _verifier_message(op: Operation) -> str:
    with pytest.raises(VerifyException) as info:
        op.verify()
    return str(info.value)


# Each case: argument types, the builder call, and the same op with a declared result type.
ILLEGAL: dict[
    str,
    tuple[
        list[Attribute],
        Callable[[Builder, tuple[SSAValue, ...]], object],
        Callable[[tuple[SSAValue, ...]], Operation],
    ],
] = {
    "flip-shard-axis": (
        [tensor([8, 4], f32, S0)],
        lambda b, a: b.flip(a[0], [0]),
        lambda a: tg.FlipOp(a[0], [0]),
    ),
    "pad-shard-axis": (
        [tensor([8, 4], f32, S0)],
        lambda b, a: b.pad(a[0], [(1, 0), (0, 0)], 0.0),
        lambda a: tg.PadOp(
            a[0], [(1, 0), (0, 0)], tensor([9, 4], f32, S0), tg.pad_value_attr(0.0, f32)
        ),
    ),
    "expand-shard-axis": (
        [tensor([2, 4], f32, S0)],
        lambda b, a: b.expand(a[0], [4, 4]),
        lambda a: tg.ExpandOp(a[0], tensor([4, 4], f32, S0)),
    ),
    "reshape-moves-elements": (
        [tensor([6, 4], f32, shard(D4, 0))],
        lambda b, a: b.reshape(a[0], [3, 8]),
        lambda a: tg.ReshapeOp(a[0], tensor([3, 8], f32, shard(D4, 0))),
    ),
    "reshape-element-count": (
        [tensor([6, 4], f32)],
        lambda b, a: b.reshape(a[0], [5, 5]),
        lambda a: tg.ReshapeOp(a[0], tensor([5, 5], f32)),
    ),
    "shrink-across-shards": (
        [tensor([8, 4], f32, S0)],
        lambda b, a: b.shrink(a[0], [(2, 6), (0, 4)]),
        lambda a: tg.ShrinkOp(a[0], [(2, 6), (0, 4)], tensor([4, 4], f32, ON)),
    ),
    "permute-not-a-permutation": (
        [tensor([8, 4], f32)],
        lambda b, a: b.permute(a[0], [0, 0]),
        lambda a: tg.PermuteOp(a[0], [0, 0], tensor([8, 8], f32)),
    ),
    "reduce-axis-out-of-range": (
        [tensor([8, 4], f32, S0)],
        lambda b, a: b.reduce("add", a[0], [2]),
        lambda a: tg.ReduceOp("add", a[0], [2], tensor([8, 4], f32, S0)),
    ),
    "cmp-operand-types": (
        [tensor([4], f32, ON), tensor([4], f32, S0)],
        lambda b, a: b.cmp("lt", a[0], a[1]),
        lambda a: tg.CmpOp("lt", a[0], a[1], tensor([4], i1, ON)),
    ),
    "where-condition": (
        [tensor([4], i1), tensor([4], f32, ON)],
        lambda b, a: b.where(a[0], a[1], a[1]),
        lambda a: tg.WhereOp(a[0], a[1], a[1]),
    ),
    "multi-of-a-shard": (
        [tensor([8, 4], f32, S0)],
        lambda b, a: b.multi(a[0], 0),
        lambda a: multi.MultiOp(a[0], 0, tensor([16, 4], f32, S0)),
    ),
    "multi-length-does-not-fit": (
        [tensor([4, 4], f32, ON)],
        lambda b, a: b.multi(a[0], 0, length=9),
        lambda a: multi.MultiOp(a[0], 0, tensor([9, 4], f32, S0)),
    ),
    "mselect-index": (
        [tensor([4], f32, ON)],
        lambda b, a: b.mselect(a[0], 2),
        lambda a: multi.MselectOp(a[0], 2, tensor([4], f32, on(["CPU:1"]))),
    ),
    "mstack-repeated-device": (
        [tensor([4], f32, on(["CPU:0"]))],
        lambda b, a: b.mstack(a[0], a[0]),
        lambda a: multi.MstackOp([a[0], a[0]], tensor([4], f32, ON)),
    ),
    "copy-of-unplaced": (
        [tensor([4], f32)],
        lambda b, a: b.copy(a[0], ON),
        lambda a: multi.CopyOp(a[0], tensor([4], f32, ON)),
    ),
    "copy-shard-axis-past-rank": (
        [tensor([4], f32, ON)],
        lambda b, a: b.copy(a[0], S1),
        lambda a: multi.CopyOp(a[0], tensor([4], f32, S1)),
    ),
    "allreduce-of-a-shard": (
        [tensor([4], f32, S0)],
        lambda b, a: b.allreduce("add", a[0]),
        lambda a: multi.AllreduceOp("add", a[0], tensor([4], f32, ON)),
    ),
    "allreduce-kind": (
        [tensor([4], f32, ON)],
        lambda b, a: b.allreduce("min", a[0]),
        lambda a: multi.AllreduceOp("min", a[0], tensor([4], f32, ON)),
    ),
    "addf-encodings-differ": (
        [tensor([4], f32, ON), tensor([4], f32, S0)],
        lambda b, a: b.addf(a[0], a[1]),
        lambda a: arith.AddfOp(a[0], a[1]),
    ),
}


@pytest.mark.parametrize("name", sorted(ILLEGAL))
def test_illegal_combination_raises_the_verifiers_message(name: str) -> None:
    types, build, declared = ILLEGAL[name]
    b, args = _args(*types)
    with pytest.raises(VerifyException) as info:
        build(b, args)
    want = _verifier_message(declared(args))
    assert str(info.value) == want
    assert not list(b.module.walk())[2:], "nothing was inserted"


# --------------------------------------------------------------------------------------------
# Running a built program
# --------------------------------------------------------------------------------------------


def _megatron_inputs(seed: int) -> tuple[list[np.ndarray], np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((4, 8), dtype=np.float32)
    w1 = rng.standard_normal((8, 16), dtype=np.float32)
    w2 = rng.standard_normal((16, 8), dtype=np.float32)
    want = np.maximum(x @ w1, 0) @ w2
    return [x, w1, w2], want


@pytest.mark.parametrize("build", [build_megatron_mlp_shard, build_megatron_mlp])
def test_built_megatron_mlp_runs_in_the_interpreter_and_the_threads_runtime(
    build: Callable[[], ModuleOp],
) -> None:
    (x, w1, w2), want = _megatron_inputs(0)
    if build is build_megatron_mlp:  # the weights as per-device buffers (#multi.on)
        w1, w2 = np.stack(np.split(w1, 2, axis=1)), np.stack(np.split(w2, 2, axis=0))
    replicated = np.stack([want, want])
    module = build()
    got = run_module(module, [x, w1, w2])
    np.testing.assert_allclose(got[0], replicated, rtol=1e-4, atol=1e-4)
    lower_for_runtime(module)
    with Program(module) as program:
        compiled = program([x, w1, w2])
    np.testing.assert_allclose(compiled[0], replicated, rtol=1e-4, atol=1e-4)


@pytest.mark.skipif(
    not (hasattr(xdsl_multi, "Builder") and hasattr(xdsl_multi, "compile")),
    reason="the package root does not export Builder and compile yet (SPEC §7)",
)
def test_megatron_script_compiles_runs_and_matches_numpy() -> None:
    script = EXAMPLES / "python" / "megatron_mlp.py"
    done = subprocess.run(
        [sys.executable, str(script)], check=False, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert "matches numpy" in done.stdout

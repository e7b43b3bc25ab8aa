"""Random VALID multi-level programs for the property-based equivalence tests.

A program is built op by op while tracking every SSA value's type (shape, element type,
placement encoding); an op is only emitted where the verifier rules of dialects/multi.py and
dialects/tg.py (SPEC §2-3) hold for the chosen operands, and every generated module is parsed and
verified before it is handed out (a program that does not verify is a generator bug and raises
`GeneratorBug`).

Coverage:
- device sets of N in {1, 2, 3, 4, 8} (weighted toward 2-4), with the module's `multi.devices`
  in canonical order, permuted, or omitted (names in order of first appearance); encodings on
  the whole list, reversed, rotated or on a random subset in random order;
- 1-3 arguments: sharded (on any axis, with even, uneven and EMPTY shards such as 4 rows over 3
  devices or 1 row over 4), on one device, on many devices, or unplaced; f32, i32 or i1;
- elementwise `arith` (addf subf mulf maximumf minimumf negf, addi subi muli maxsi minsi,
  andi ori xori) and `math` (tanh, exp on small values, absf), splat and non-splat
  `arith.constant dense<...> : tensor<..., #enc>`;
- `tg.cmp` (all predicates; ult ule ugt uge on integers), `tg.where`, `tg.cast` between f32, i32 and i1, `tg.reduce`
  add/mul/max over the shard axis (an allreduce) and off it, `tg.contiguous`;
- movement: reshape (keeping the shard boundary, including the even-split rule that changes the
  axis length), permute, expand of size-1 axes, pad (static and SSA `index` bounds) and shrink off
  the shard axis, shrink selecting one non-empty shard, flip off the shard axis;
- every `multi.copy` kind (to one device, all-gather, scatter, broadcast, on->on permute,
  keep-slice, reshard between axes and between device orders, subsets), `multi.multi`,
  `multi.mselect`, `multi.mstack`, `multi.allreduce` add/mul/max;
- Invalid lanes everywhere (issue 9): `tg.pad ... invalid` on any free axis, often first, and
  operands that may hold Invalid lanes preferred, so they meet every kind of op; a max over
  them (which may be the identity) is only returned; results that other ops also use, and
  often every value no op uses;
- Invalid probes (`Builder.probe_invalid`, in most programs): a value that may hold Invalid
  lanes is returned AND read, maybe through reshape/permute/flip/expand/shrink, by an op where
  a 0 read in those lanes gives another answer than Invalid (x + c, c - x, max/min with c, a
  cmp that holds at 0 and a where, exp, a mul reduce, a max reduce of -|x| - 1; x | true for
  i1), whose result is returned too: issue 9's class (a returned value read back as 0 by
  another kernel), which the rest of the generator met in ~1 program of 100.

Numerics: every value carries a bound on its magnitude and an estimate of how far it may drift
between levels of lowering (float sums in another order: a sharded reduce, a ring allreduce).
Ops are only chosen while the bound stays small and the drift stays far below the test tolerance
(rtol=1e-4, atol=1e-5); comparisons and float->int casts only read values that are bit-exact
across levels (no float sums in their history), so no discrete result can flip.

Two front ends share one generator: `programs()` is a hypothesis strategy (every choice is a
hypothesis draw, so failures shrink), `random_program(seed)` is a plain seeded function for
reproduction and benchmarks. Inputs come from `program_inputs(module, seed)`: bounded values
(floats in [-1, 1], small integers).
"""

from __future__ import annotations

import itertools
import math
import os
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, TypeVar

import numpy as np
from hypothesis import strategies as st
from xdsl.dialects.builtin import f32
from xdsl.utils.exceptions import VerifyException

import xdsl_multi as xm
from xdsl_multi.dialects.multi import OnAttr

T = TypeVar("T")

# ---------------------------------------------------------------------------------------------
# Limits
# ---------------------------------------------------------------------------------------------

MAX_OPS = 12
MAX_NUMEL = 192  # elements of any value (logical shape for shards, buffer shape for `on`)
MAX_RANK = 3
MAX_FLOAT_BOUND = 64.0
MAX_INT_BOUND = 1024
MAX_DRIFT = 2e-6  # far below atol=1e-5
EPS_OF = {"f32": 1.2e-7, "f64": 2.3e-16, "f16": 1e-3, "bf16": 8e-3}
"""Rounding per operation, with margin: f16 and bf16 values never take part in float sums in
another order (their drift would exceed MAX_DRIFT at once), they only appear bit-exact."""

FLOATS = ("f32", "f64", "f16", "bf16")
INTS = ("i32", "i64", "i16", "i8")
ELEMENT_TYPES = (*FLOATS, *INTS, "i1")
INT_BOUND = {"i8": 100, "i16": MAX_INT_BOUND, "i32": MAX_INT_BOUND, "i64": MAX_INT_BOUND}


def is_float(elt: str) -> bool:
    return elt in FLOATS


def is_int(elt: str) -> bool:
    """Integers other than i1."""
    return elt in INTS


def eps(elt: str) -> float:
    return EPS_OF.get(elt, 0.0)


def constant_pool(elt: str) -> Sequence[float | int]:
    return FLOAT_CONSTANTS if is_float(elt) else INT_CONSTANTS if is_int(elt) else (1, 0)


INVALID_PAD_P = 0.6
"""How often a `tg.pad` fills Invalid rather than a value."""
INVALID_START_P = 0.3
"""How often a program starts with an Invalid pad (of an argument), whose lanes then flow on."""
INVALID_OPERAND_P = 0.3
"""How often an op's operand is chosen among the values that may hold Invalid lanes."""
USED_RESULT_P = 0.5
"""How often one result is also an operand of other ops (not a sink)."""
ALL_SINKS_P = 0.5
"""How often every value no op uses is returned (up to MAX_RESULTS)."""
MAX_RESULTS = 6
PROBE_P = 0.9
"""How often a program ends with Invalid probes (`Builder.probe_invalid`): a value that may hold
Invalid lanes is returned AND read by an op where a 0 in those lanes gives another answer than
Invalid, whose result is returned too (issue 9: a returned value read back as 0 by another
kernel). Without them the class is found in ~1 program of 60; with them in most."""
MAX_PROBES = 2

# Ops that store their operand (Invalid lanes become 0) or reduce it (Invalid lanes become the
# identity): their results are free of Invalid (SPEC §4, rules 2-3).
MATERIALIZING = frozenset({"tg.contiguous", "multi.copy", "multi.allreduce", "tg.reduce"})

KNOWN_FINDINGS: dict[str, str] = {
    # name -> the pattern the generator avoids when the name is listed; empty while every
    # finding in test/regressions/ is fixed (past entries: where-same-branches,
    # keep-slice-invalid, invalid-pad-on-shard)
}
"""Patterns of known pipeline bugs (test/regressions/). Listing names in the environment variable
XDSL_MULTI_RANDOM_AVOID (comma-separated, or `all`) makes the generator avoid them, to hunt for
other bugs while these are open."""


def avoided_findings() -> frozenset[str]:
    raw = os.environ.get("XDSL_MULTI_RANDOM_AVOID", "")
    names = {n.strip() for n in raw.split(",") if n.strip()}
    if "all" in names:
        return frozenset(KNOWN_FINDINGS)
    unknown = names - set(KNOWN_FINDINGS)
    if unknown:
        raise ValueError(f"XDSL_MULTI_RANDOM_AVOID: unknown {sorted(unknown)}; known: "
                         f"{sorted(KNOWN_FINDINGS)}")
    return frozenset(names)


class GeneratorBug(AssertionError):
    """The generator produced a program that does not verify."""


# ---------------------------------------------------------------------------------------------
# Sources of choices
# ---------------------------------------------------------------------------------------------


class Chooser:
    """Every random choice of the generator. Simplest option first: hypothesis shrinks integers
    toward their lower bound, so index 0 / False / the first weighted option is the simplest."""

    def integer(self, lo: int, hi: int) -> int:
        raise NotImplementedError

    def choice(self, options: Sequence[T]) -> T:
        assert options, "choice from nothing"
        return options[self.integer(0, len(options) - 1)]

    def weighted(self, options: Sequence[tuple[T, int]]) -> T:
        options = [(o, w) for o, w in options if w > 0]
        total = sum(w for _, w in options)
        x = self.integer(0, total - 1)
        for o, w in options:
            if x < w:
                return o
            x -= w
        raise AssertionError("unreachable")

    def boolean(self, p: float) -> bool:
        """True with probability p (False is the simpler answer)."""
        return self.integer(0, 999) >= round(1000 * (1 - p))

    def subset(self, items: Sequence[T], min_size: int = 1) -> list[T]:
        """A non-trivial subset in the items' order."""
        assert len(items) >= min_size
        while True:
            chosen = [x for x in items if self.boolean(0.5)]
            if len(chosen) >= min_size:
                return chosen
            if min_size == 1:
                return [self.choice(items)]

    def permutation(self, items: Sequence[T]) -> list[T]:
        rest = list(items)
        out: list[T] = []
        while rest:
            out.append(rest.pop(self.integer(0, len(rest) - 1)))
        return out


class RandomChooser(Chooser):
    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)


class DrawChooser(Chooser):
    def __init__(self, draw: Callable[[st.SearchStrategy[Any]], Any]):
        self.draw = draw

    def integer(self, lo: int, hi: int) -> int:
        if lo == hi:
            return lo
        return self.draw(st.integers(lo, hi))


# ---------------------------------------------------------------------------------------------
# Types
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Enc:
    """None (unplaced), `#multi.on<devices>` or `#multi.shard<devices, axis>`."""

    kind: str  # "none" | "on" | "shard"
    devices: tuple[str, ...] = ()
    axis: int = -1

    @property
    def n(self) -> int:
        return len(self.devices)

    def text(self) -> str | None:
        names = ", ".join(f'"{d}"' for d in self.devices)
        if self.kind == "on":
            return f"#multi.on<[{names}]>"
        if self.kind == "shard":
            return f"#multi.shard<[{names}], axis = {self.axis}>"
        return None


NONE = Enc("none")


def on(devices: Sequence[str]) -> Enc:
    return Enc("on", tuple(devices))


def shard(devices: Sequence[str], axis: int) -> Enc:
    return Enc("shard", tuple(devices), axis)


def type_text(shape: Sequence[int], elt: str, enc: Enc) -> str:
    body = "x".join([*(str(d) for d in shape), elt])
    e = enc.text()
    return f"tensor<{body}, {e}>" if e else f"tensor<{body}>"


def local_length(length: int, n: int) -> int:
    return -(-length // n)


def shard_bounds(length: int, n: int, k: int) -> tuple[int, int]:
    s = local_length(length, n)
    return min(k * s, length), min((k + 1) * s, length)


@dataclass
class Val:
    name: str
    shape: tuple[int, ...]
    elt: str
    enc: Enc
    bound: float  # max |value|
    drift: float = 0.0  # possible difference between levels; 0 = bit-exact
    uses: int = 0
    invalid: bool = False  # may hold Invalid lanes (from `tg.pad ... invalid`)
    terminal: bool = False  # only returned, never an operand (a max that may be the identity)

    @property
    def type(self) -> str:
        return type_text(self.shape, self.elt, self.enc)

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def exact(self) -> bool:
        return self.drift == 0.0


# ---------------------------------------------------------------------------------------------
# Shape helpers (mirroring dialects/tg.py)
# ---------------------------------------------------------------------------------------------


def reshape_shard_axis(old: Sequence[int], new: Sequence[int], axis: int) -> int | None:
    before = math.prod(old[:axis])
    found = None
    for a2 in range(len(new)):
        if math.prod(new[:a2]) == before:
            found = a2
    return found


def reshape_result_axis(old: Sequence[int], new: Sequence[int], axis: int, n: int) -> int | None:
    """The new shard axis if reshaping a value sharded on `axis` over n devices is allowed."""
    a2 = reshape_shard_axis(old, new, axis)
    if a2 is None:
        return None
    if new[a2] == old[axis]:
        return a2
    if old[axis] % n == 0 and new[a2] % n == 0:
        local = list(old)
        local[axis] = old[axis] // n
        if math.prod(local[axis:]) % math.prod(new[a2 + 1 :]) == 0:
            return a2
    return None


@cache
def factorizations(numel: int, max_rank: int = MAX_RANK) -> tuple[tuple[int, ...], ...]:
    """Every ordered factorization of numel into 1..max_rank factors >= 1 (at most one 1)."""
    divs = [d for d in range(1, numel + 1) if numel % d == 0]
    out: list[tuple[int, ...]] = []

    def rec(rest: int, prefix: tuple[int, ...], rank: int) -> None:
        if len(prefix) == rank - 1:
            if prefix.count(1) + (rest == 1) <= 1 or numel == 1:
                out.append((*prefix, rest))
            return
        for d in divs:
            if rest % d == 0:
                rec(rest // d, (*prefix, d), rank)

    for rank in range(1, max_rank + 1):
        rec(numel, (), rank)
    return tuple(out)


def safe_pow(b: float, k: int) -> float:
    """b**k, or inf where it would overflow."""
    if b <= 1.0:
        return b**k
    return math.inf if k * math.log(b) > 100 else b**k


# ---------------------------------------------------------------------------------------------
# Constants
# ---------------------------------------------------------------------------------------------

FLOAT_CONSTANTS = (1.0, 0.5, -1.0, 2.0, 0.25, -0.5, 0.0, 3.0, -2.0, 0.75)
INT_CONSTANTS = (1, 0, 2, -1, 3, -2)


def scalar_text(v: float | bool, elt: str) -> str:
    if elt == "i1":
        return "true" if v else "false"
    if is_int(elt):
        return str(int(v))
    return repr(float(v))


def dense_text(shape: Sequence[int], values: Sequence[float | int | bool], elt: str) -> str:
    it = iter(values)

    def rec(dims: Sequence[int]) -> str:
        if not dims:
            return scalar_text(next(it), elt)
        return "[" + ", ".join(rec(dims[1:]) for _ in range(dims[0])) + "]"

    return rec(shape)


# ---------------------------------------------------------------------------------------------
# The program builder
# ---------------------------------------------------------------------------------------------


@dataclass
class Program:
    text: str
    num_devices: int
    num_ops: int
    op_names: list[str] = field(default_factory=list)
    probes: list[tuple[str, str]] = field(default_factory=list)
    """The Invalid probes (`Builder.probe_invalid`): (returned value, its distinguishing
    reader's returned result), as SSA names."""

    def __str__(self) -> str:
        return self.text


class NotApplicable(Exception):
    """The chosen op cannot be applied to the program's current values."""


class Builder:
    def __init__(self, c: Chooser):
        self.c = c
        self.lines: list[str] = []
        self.values: list[Val] = []
        self.counter = 0
        self.index_consts: dict[int, str] = {}
        self.op_names: list[str] = []
        self.pending: list[Val] = []
        self.avoid = avoided_findings()
        self.forced: Val | None = None  # the operand `pick` must return (an Invalid probe)
        self.returned: list[Val] = []  # values every program result list includes (probes)
        self.probes: list[tuple[str, str]] = []

    # ---- devices ------------------------------------------------------------------------------

    def choose_devices(self) -> None:
        c = self.c
        n = c.weighted([(2, 3), (1, 1), (3, 3), (4, 3), (8, 1)])
        self.n = n
        self.names = [f"CPU:{i}" for i in range(n)]
        self.module_order = c.weighted(
            [("canonical", 6), ("permuted", 2), ("omitted", 1)] if n > 1 else [("canonical", 3),
                                                                             ("omitted", 1)]
        )
        if self.module_order == "permuted":
            self.devices = c.permutation(self.names)
        else:
            self.devices = list(self.names)

    def devlist(self, min_len: int = 1, max_len: int | None = None) -> tuple[str, ...]:
        """A device list for an encoding: usually every device in module order."""
        c, devs = self.c, self.devices
        max_len = len(devs) if max_len is None else min(max_len, len(devs))
        assert 1 <= min_len <= max_len
        options = [("all", 8 if min_len <= len(devs) <= max_len else 0)]
        if len(devs) > 1:
            full = len(devs) <= max_len
            options += [("reversed", 2 if full else 0), ("rotated", 2 if full else 0),
                        ("subset", 5)]
        kind = c.weighted(options) if any(w for _, w in options) else "subset"
        if kind == "all":
            return tuple(devs)
        if kind == "reversed":
            return tuple(reversed(devs))
        if kind == "rotated":
            r = c.integer(1, len(devs) - 1)
            return tuple(devs[r:] + devs[:r])
        k = c.integer(min_len, max_len)
        picked = c.permutation(devs)[:k]
        return tuple(picked)

    def one_device(self) -> str:
        return self.c.choice(self.devices)

    # ---- values -------------------------------------------------------------------------------

    def fresh(self) -> str:
        self.counter += 1
        return f"%v{self.counter}"

    def add(self, line_fmt: str, shape: Sequence[int], elt: str, enc: Enc, bound: float,
            drift: float, op_name: str, terminal: bool = False) -> Val:
        operands, self.pending = self.pending, []
        if op_name == "tg.pad.invalid":
            invalid, op_name = True, "tg.pad"
        else:
            invalid = op_name not in MATERIALIZING and any(o.invalid for o in operands)
        v = Val(self.fresh(), tuple(shape), elt, enc, bound, drift, invalid=invalid,
                terminal=terminal)
        self.check_value(v)
        for o in operands:
            o.uses += 1
        self.lines.append(f"    {v.name} = " + line_fmt.format(res=v.type))
        self.values.append(v)
        self.op_names.append(op_name)
        return v

    def check_value(self, v: Val) -> None:
        if v.numel > MAX_NUMEL or len(v.shape) > MAX_RANK or any(d < 1 for d in v.shape):
            raise NotApplicable("too large")
        if v.terminal:  # the identity (-inf, the type's minimum) where a range is all Invalid
            return
        if is_float(v.elt) and (v.bound > MAX_FLOAT_BOUND or v.drift > MAX_DRIFT):
            raise NotApplicable("numerics")
        if is_int(v.elt) and v.bound > INT_BOUND[v.elt]:
            raise NotApplicable("numerics")

    def use(self, *vals: Val) -> None:
        """Declare the operands of the op that `add` emits next."""
        self.pending = list(vals)

    def pick(self, pred: Callable[[Val], bool]) -> Val:
        """A value satisfying pred, most recent first (shrinks toward the latest value); often
        one that may hold Invalid lanes, so that they meet every kind of op. While an Invalid
        probe runs, only its current value (`forced`)."""
        if self.forced is not None:
            if pred(self.forced) and not self.forced.terminal:
                return self.forced
            raise NotApplicable("the probed value does not fit")
        cands = [v for v in reversed(self.values) if pred(v) and not v.terminal]
        if not cands:
            raise NotApplicable("no operand")
        invalid = [v for v in cands if v.invalid]
        if invalid and self.c.boolean(INVALID_OPERAND_P):
            return self.c.choice(invalid)
        return self.c.choice(cands)

    def index_const(self, k: int) -> str:
        if k not in self.index_consts:
            name = f"%c{k}"
            self.lines.append(f"    {name} = arith.constant {k} : index")
            self.index_consts[k] = name
        return self.index_consts[k]

    # ---- arguments ----------------------------------------------------------------------------

    def shard_length(self, n: int) -> int:
        """A logical axis length over n devices: even, uneven, or with empty shards."""
        c = self.c
        kind = c.weighted([("even", 3), ("uneven", 3), ("short", 2)])
        if kind == "even":
            return n * c.integer(1, 3)
        if kind == "short":  # fewer rows than devices, or just one row: empty shards
            return c.integer(1, max(1, n - 1)) if n > 1 else 1
        return c.integer(1, 3 * n + 1)

    def random_shape(self, rank: int) -> list[int]:
        return [self.c.weighted([(3, 3), (2, 3), (4, 3), (1, 1), (5, 2), (6, 1), (8, 1)])
                for _ in range(rank)]

    def argument(self, i: int) -> Val:
        c = self.c
        elt = c.weighted([("f32", 16), ("i32", 4), ("i1", 2), ("f64", 1), ("f16", 1),
                          ("bf16", 1), ("i64", 1), ("i16", 1), ("i8", 1)])
        placement = c.weighted([("shard", 4), ("on-many", 3 if self.n > 1 else 0),
                                ("on-one", 2), ("none", 1)])
        while True:
            rank = c.weighted([(2, 4), (1, 2), (3, 2)])
            shape = self.random_shape(rank)
            if placement == "shard":
                devs = self.devlist()
                axis = c.integer(0, rank - 1)
                shape[axis] = self.shard_length(len(devs))
                enc = shard(devs, axis)
            elif placement == "on-many":
                enc = on(self.devlist(min_len=2))
            elif placement == "on-one":
                enc = on([self.one_device()])
            else:
                enc = NONE
            if math.prod(shape) <= MAX_NUMEL:
                break
        bound = 3.0 if is_int(elt) else 1.0
        v = Val(f"%a{i}", tuple(shape), elt, enc, bound)
        self.values.append(v)
        return v

    # ---- operands of a given type ---------------------------------------------------------------

    def constant(self, shape: Sequence[int], elt: str, enc: Enc) -> Val:
        c = self.c
        numel = math.prod(shape)
        pool: Sequence[float | int | bool]
        pool = constant_pool(elt)
        if numel <= 24 and c.boolean(0.3):
            vals = [c.choice(pool) for _ in range(numel)]
            body = dense_text(shape, vals, elt)
        else:
            vals = [c.choice(pool)]
            body = scalar_text(vals[0], elt)
        bound = max(abs(float(x)) for x in vals)
        return self.add(f"arith.constant dense<{body}> : {{res}}", shape, elt, enc,
                        bound, 0.0, "arith.constant")

    def operand_like(self, shape: Sequence[int], elt: str, enc: Enc,
                     exact: bool = False) -> Val:
        """An operand of exactly this type: an existing value, a constant, or a copy/mselect of
        a value with the same shape and element type placed elsewhere."""
        c = self.c
        shape = tuple(shape)

        def same(v: Val) -> bool:
            return (v.shape == shape and v.elt == elt and v.enc == enc
                    and (v.exact or not exact))

        def movable(v: Val) -> bool:
            return (v.shape == shape and v.elt == elt and v.enc.kind != "none"
                    and enc.kind != "none" and v.enc != enc and (v.exact or not exact))

        existing = [v for v in reversed(self.values) if same(v) and not v.terminal]
        others = [v for v in reversed(self.values) if movable(v) and not v.terminal]
        how = c.weighted([("existing", 5 if existing else 0), ("constant", 3),
                          ("copy", 2 if others else 0)])
        if how == "existing":
            return c.choice(existing)
        if how == "copy":
            src = c.choice(others)
            if (enc.kind == "on" and enc.n == 1 and src.enc.kind == "on"
                    and enc.devices[0] in src.enc.devices and c.boolean(0.5)):
                i = src.enc.devices.index(enc.devices[0])
                self.use(src)
                return self.add(f"multi.mselect {src.name}[{i}] : {src.type} -> {{res}}",
                                shape, elt, enc, src.bound, src.drift, "multi.mselect")
            self.use(src)
            return self.add(f"multi.copy {src.name} : {src.type} -> {{res}}", shape, elt, enc,
                            src.bound, src.drift, "multi.copy")
        return self.constant(shape, elt, enc)

    # ---- ops ----------------------------------------------------------------------------------

    def op_binary(self) -> None:
        x = self.pick(lambda v: True)
        ops = (
            [("addf", 3), ("mulf", 3), ("subf", 2), ("maximumf", 2), ("minimumf", 1)]
            if is_float(x.elt) else
            [("addi", 3), ("muli", 2), ("subi", 2), ("maxsi", 1), ("minsi", 1)]
            if is_int(x.elt) else
            [("andi", 1), ("ori", 1), ("xori", 1)]
        )
        name = self.c.weighted(ops)
        y = self.operand_like(x.shape, x.elt, x.enc)
        if self.c.boolean(0.5):
            x, y = y, x
        a, b = x.bound, y.bound
        inexact = not (x.exact and y.exact)
        if name in ("addf", "subf", "addi", "subi"):
            bound = a + b
            drift = x.drift + y.drift + (eps(x.elt) * bound if inexact else 0.0)
        elif name in ("mulf", "muli"):
            bound = a * b
            drift = x.drift * b + y.drift * a + (eps(x.elt) * bound if inexact else 0.0)
        else:
            bound = max(a, b) if x.elt != "i1" else 1.0
            drift = max(x.drift, y.drift)
        self.use(x, y)
        self.add(f"arith.{name} {x.name}, {y.name} : {{res}}", x.shape, x.elt, x.enc, bound,
                 drift, f"arith.{name}")

    def op_unary(self) -> None:
        x = self.pick(lambda v: is_float(v.elt))
        options = [("tanh", 4), ("negf", 2), ("absf", 1), ("exp", 2 if x.bound <= 2.5 else 0)]
        name = self.c.weighted(options)
        if name == "tanh":
            bound, drift = min(x.bound, 1.0), x.drift + (eps(x.elt) if x.drift else 0.0)
        elif name == "exp":
            bound = math.exp(x.bound)
            drift = (x.drift + eps(x.elt)) * bound if x.drift else 0.0
        else:
            bound, drift = x.bound, x.drift
        dialect = "arith" if name == "negf" else "math"
        self.use(x)
        self.add(f"{dialect}.{name} {x.name} : {{res}}", x.shape, x.elt, x.enc, bound, drift,
                 f"{dialect}.{name}")

    def op_cmp(self) -> None:
        x = self.pick(lambda v: v.elt != "i1" and v.exact)
        y = self.operand_like(x.shape, x.elt, x.enc, exact=True)
        unsigned = ("ult", "ule", "ugt", "uge") if is_int(x.elt) else ()
        pred = self.c.choice(("lt", "le", "gt", "ge", "eq", "ne", *unsigned))
        if self.c.boolean(0.5):
            x, y = y, x
        self.use(x, y)
        self.add(f"tg.cmp {pred} {x.name}, {y.name} : {x.type} -> {{res}}", x.shape, "i1", x.enc,
                 1.0, 0.0, "tg.cmp")

    def op_where(self) -> None:
        cond = self.pick(lambda v: v.elt == "i1")
        elt = self.c.weighted([("f32", 8), ("i32", 2), ("i1", 2), ("f16", 1), ("i8", 1)])
        x = self.operand_like(cond.shape, elt, cond.enc)
        y = self.operand_like(cond.shape, elt, cond.enc)
        self.use(cond, x, y)
        self.add(f"tg.where {cond.name}, {x.name}, {y.name} : {cond.type}, {{res}}", x.shape,
                 elt, x.enc, max(x.bound, y.bound), max(x.drift, y.drift), "tg.where")

    def op_cast(self) -> None:
        x = self.pick(lambda v: v.exact)
        weights = {"f32": 6, "i32": 4, "i1": 3, "f64": 1, "f16": 1, "bf16": 1, "i64": 1,
                   "i16": 1, "i8": 1}
        to = self.c.weighted([(t, w) for t, w in weights.items() if t != x.elt])
        if is_float(x.elt) and is_int(to):
            bound: float = math.floor(x.bound)
        elif to == "i1":
            bound = 1.0
        else:
            bound = x.bound
        self.use(x)
        self.add(f"tg.cast {x.name} : {x.type} -> {{res}}", x.shape, to, x.enc, bound, 0.0,
                 "tg.cast")

    def op_reduce(self) -> None:
        c = self.c
        x = self.pick(lambda v: True)
        rank = len(x.shape)
        axes = c.subset(range(rank))
        if x.enc.kind == "shard" and x.enc.axis not in axes and c.boolean(0.5):
            axes = sorted({*axes, x.enc.axis})  # reduce over the shard axis more often
        if c.boolean(0.2):
            axes = c.permutation(axes)
        # max over a range that is entirely Invalid gives the identity (-inf, the type's
        # minimum, false): such a max of a value that may hold Invalid is only returned
        kind = c.weighted([("add", 3), ("max", 3), ("mul", 1)]
                          if x.elt != "i1" else [("max", 1)])
        terminal = kind == "max" and x.invalid
        k = math.prod(x.shape[a] for a in axes)
        b, e = x.bound, x.drift
        if kind == "max":
            bound, drift = b, e
        elif kind == "add":
            bound = k * b
            drift = 0.0 if k == 1 else k * e + eps(x.elt) * k * b
        else:
            bound = safe_pow(b, k)
            drift = (0.0 if k == 1 else
                     k * safe_pow(max(b, 1.0), k - 1) * e + eps(x.elt) * k * bound)
        if not is_float(x.elt):
            drift = 0.0
        shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
        enc = x.enc
        if enc.kind == "shard" and enc.axis in axes:
            enc = on(enc.devices)
        self.use(x)
        axes_text = ", ".join(map(str, axes))
        self.add(f"tg.reduce {kind} {x.name} [{axes_text}] : {x.type} -> {{res}}", shape, x.elt,
                 enc, bound, drift, "tg.reduce", terminal)

    def op_reshape(self) -> None:
        x = self.pick(lambda v: True)
        cands: list[tuple[tuple[int, ...], Enc]] = []
        for new in factorizations(x.numel):
            if new == x.shape:
                continue
            if x.enc.kind == "shard":
                a2 = reshape_result_axis(x.shape, new, x.enc.axis, x.enc.n)
                if a2 is not None:
                    cands.append((new, shard(x.enc.devices, a2)))
            else:
                cands.append((new, x.enc))
        if not cands:
            raise NotApplicable("no reshape")
        seen = {(v.shape, v.enc) for v in self.values}
        meeting = [c for c in cands if c in seen]  # the type of a value it can meet again
        new, enc = self.c.choice(meeting if meeting and self.c.boolean(0.5) else cands)
        self.use(x)
        self.add(f"tg.reshape {x.name} : {x.type} -> {{res}}", new, x.elt, enc, x.bound,
                 x.drift, "tg.reshape")

    def op_permute(self) -> None:
        x = self.pick(lambda v: len(v.shape) >= 2)
        perms = [p for p in itertools.permutations(range(len(x.shape)))
                 if p != tuple(range(len(x.shape)))]
        order = self.c.choice(perms)
        shape = tuple(x.shape[i] for i in order)
        enc = x.enc
        if enc.kind == "shard":
            enc = shard(enc.devices, order.index(enc.axis))
        self.use(x)
        self.add(f"tg.permute {x.name} [{', '.join(map(str, order))}] : {x.type} -> {{res}}",
                 shape, x.elt, enc, x.bound, x.drift, "tg.permute")

    def _free_axes(self, v: Val) -> list[int]:
        return [a for a in range(len(v.shape)) if not (v.enc.kind == "shard" and a == v.enc.axis)]

    def op_expand(self) -> None:
        x = self.pick(lambda v: any(v.shape[a] == 1 for a in self._free_axes(v)))
        ones = [a for a in self._free_axes(x) if x.shape[a] == 1]

        def expands_to(v: Val) -> bool:
            return (v.enc == x.enc and len(v.shape) == len(x.shape) and v.shape != x.shape
                    and all(n == o or (o == 1 and i in ones)
                            for i, (o, n) in enumerate(zip(x.shape, v.shape, strict=True))))

        # back to the shape of a value it can meet again (x - max(x), broadcast products)
        targets = list(dict.fromkeys(v.shape for v in reversed(self.values) if expands_to(v)))
        if targets and self.c.boolean(0.6):
            shape = list(self.c.choice(targets))
        else:
            axes = self.c.subset(ones)
            shape = list(x.shape)
            for a in axes:
                shape[a] = self.c.integer(2, 4)
        self.use(x)
        self.add(f"tg.expand {x.name} : {x.type} -> {{res}}", shape, x.elt, x.enc, x.bound,
                 x.drift, "tg.expand")

    def _bound_text(self, k: int, dynamic_ok: bool) -> str:
        if dynamic_ok and self.c.boolean(0.15):
            return self.index_const(k)
        return str(k)

    def op_pad(self, invalid: bool | None = None) -> None:
        """`invalid`: the fill is Invalid (True), a value (False), or chosen (None)."""
        c = self.c
        x = self.pick(lambda v: bool(self._free_axes(v)))
        axes = c.subset(self._free_axes(x))
        bounds: list[str] = []
        shape = list(x.shape)
        for a in range(len(x.shape)):
            if a in axes:
                lo, hi = c.integer(0, 2), c.integer(0, 2)
                if lo + hi == 0:
                    hi = 1
                shape[a] += lo + hi
                bounds.append(f"[{self._bound_text(lo, True)}, {self._bound_text(hi, True)}]")
            else:
                bounds.append("[0, 0]")
        pool: Sequence[float | int] = (
            constant_pool(x.elt)
        )
        self.use(x)
        if invalid if invalid is not None else c.boolean(INVALID_PAD_P):
            # Invalid fill: stored as 0, the identity in reductions
            self.add(f"tg.pad {x.name} [{', '.join(bounds)}] invalid : {x.type} -> {{res}}",
                     shape, x.elt, x.enc, x.bound, x.drift, "tg.pad.invalid")
            return
        fill = c.choice(pool)
        bound = max(x.bound, abs(float(fill)))
        self.add(f"tg.pad {x.name} [{', '.join(bounds)}] value {scalar_text(fill, x.elt)} : "
                 f"{x.type} -> {{res}}", shape, x.elt, x.enc, bound, x.drift, "tg.pad")

    def op_shrink(self) -> None:
        c = self.c

        def can(v: Val) -> bool:
            if any(v.shape[a] > 1 for a in self._free_axes(v)):
                return True
            return v.enc.kind == "shard" and v.enc.n > 1
        x = self.pick(can)
        enc = x.enc
        bounds: list[str] = []
        shape = list(x.shape)
        select_shard = False
        nonempty: list[tuple[int, int]] = []
        if enc.kind == "shard":
            L = x.shape[enc.axis]
            owned = [shard_bounds(L, enc.n, k) for k in range(enc.n)]
            nonempty = [b for b in owned if b[1] > b[0] and b != (0, L)]
            free_shrinkable = any(x.shape[a] > 1 for a in self._free_axes(x))
            select_shard = bool(nonempty) and (not free_shrinkable or c.boolean(0.4))
        for a in range(len(x.shape)):
            size = x.shape[a]
            if enc.kind == "shard" and a == enc.axis:
                if select_shard:
                    lo, hi = c.choice(nonempty)
                    shape[a] = hi - lo
                    bounds.append(f"[{lo}, {hi}]")
                else:
                    bounds.append(f"[0, {size}]")
                continue
            if size > 1 and c.boolean(0.6):
                lo = c.integer(0, size - 1)
                hi = c.integer(lo + 1, size)
            else:
                lo, hi = 0, size
            shape[a] = hi - lo
            bounds.append(f"[{self._bound_text(lo, True)}, {self._bound_text(hi, True)}]")
        new_enc = on(enc.devices) if select_shard else enc
        self.use(x)
        self.add(f"tg.shrink {x.name} [{', '.join(bounds)}] : {x.type} -> {{res}}", shape, x.elt,
                 new_enc, x.bound, x.drift, "tg.shrink")

    def op_flip(self) -> None:
        x = self.pick(lambda v: bool(self._free_axes(v)))
        axes = self.c.subset(self._free_axes(x))
        self.use(x)
        self.add(f"tg.flip {x.name} [{', '.join(map(str, axes))}] : {{res}}", x.shape, x.elt,
                 x.enc, x.bound, x.drift, "tg.flip")

    def op_contiguous(self) -> None:
        x = self.pick(lambda v: True)
        self.use(x)
        self.add(f"tg.contiguous {x.name} : {{res}}", x.shape, x.elt, x.enc, x.bound, x.drift,
                 "tg.contiguous")

    def copy_destination(self, x: Val) -> Enc:
        c = self.c
        many = self.n > 1
        kind = c.weighted([
            ("shard", 4), ("to-one", 3), ("on-many", 3 if many else 0),
            ("permute", 2 if x.enc.kind == "on" and x.enc.n > 1 else 0),
            ("keep-slice", 2 if x.enc.kind == "on" and x.enc.n > 1 else 0),
        ])
        if kind == "to-one":
            return on([self.one_device()])
        if kind == "on-many":
            return on(self.devlist(min_len=2))
        if kind == "permute":
            devs = self.devlist(min_len=x.enc.n, max_len=x.enc.n)
            return on(devs)
        if kind == "keep-slice":
            return shard(x.enc.devices, c.integer(0, len(x.shape) - 1))
        return shard(self.devlist(), c.integer(0, len(x.shape) - 1))

    def op_copy(self) -> None:
        x = self.pick(lambda v: v.enc.kind != "none")
        dst = self.copy_destination(x)
        self.use(x)
        self.add(f"multi.copy {x.name} : {x.type} -> {{res}}", x.shape, x.elt, dst, x.bound,
                 x.drift, "multi.copy")

    def op_multi(self) -> None:
        x = self.pick(lambda v: v.enc.kind == "on")
        n = x.enc.n
        axis = self.c.integer(0, len(x.shape) - 1)
        s = x.shape[axis]
        length = self.c.integer((s - 1) * n + 1, s * n)
        shape = list(x.shape)
        shape[axis] = length
        self.use(x)
        self.add(f"multi.multi {x.name} axis {axis} : {x.type} -> {{res}}", shape, x.elt,
                 shard(x.enc.devices, axis), x.bound, x.drift, "multi.multi")

    def op_mselect(self) -> None:
        x = self.pick(lambda v: v.enc.kind == "on")
        i = self.c.integer(0, x.enc.n - 1)
        self.use(x)
        self.add(f"multi.mselect {x.name}[{i}] : {x.type} -> {{res}}", x.shape, x.elt,
                 on([x.enc.devices[i]]), x.bound, x.drift, "multi.mselect")

    def op_mstack(self) -> None:
        x = self.pick(lambda v: v.enc.kind != "none")
        devs = self.devlist()
        parts: list[Val] = []
        for dev in devs:
            if x.enc == on([dev]):
                parts.append(x)
            else:
                parts.append(self.operand_like(x.shape, x.elt, on([dev])))
        self.use(*parts)
        self.add(f"multi.mstack {', '.join(p.name for p in parts)} : "
                 f"{', '.join(p.type for p in parts)} -> {{res}}", x.shape, x.elt, on(devs),
                 max(p.bound for p in parts), max(p.drift for p in parts), "multi.mstack")

    def op_allreduce(self) -> None:
        c = self.c
        x = self.pick(lambda v: v.enc.kind == "on" and v.elt != "i1")
        kind = c.weighted([("add", 3), ("max", 2), ("mul", 1)])
        n = x.enc.n
        b, e = x.bound, x.drift
        if kind == "max":
            bound, drift = b, e
        elif kind == "add":
            bound = n * b
            drift = 0.0 if n == 1 else n * e + eps(x.elt) * n * b
        else:
            bound = safe_pow(b, n)
            drift = (0.0 if n == 1 else
                     n * safe_pow(max(b, 1.0), n - 1) * e + eps(x.elt) * n * bound)
        if not is_float(x.elt):
            drift = 0.0
        dst = on(self.devlist())
        self.use(x)
        self.add(f"multi.allreduce {kind} {x.name} : {x.type} -> {{res}}", x.shape, x.elt, dst,
                 bound, drift, "multi.allreduce")

    OPS: tuple[tuple[str, int], ...] = (
        ("binary", 6), ("unary", 3), ("copy", 5), ("reduce", 4), ("reshape", 2),
        ("permute", 2), ("shrink", 3), ("cmp", 2), ("where", 2), ("cast", 2), ("pad", 5),
        ("expand", 2), ("flip", 1), ("multi", 2), ("mselect", 1), ("mstack", 2),
        ("allreduce", 3), ("contiguous", 1),
    )

    # ---- the program --------------------------------------------------------------------------

    def build(self, max_ops: int = MAX_OPS) -> Program:
        c = self.c
        self.choose_devices()
        nargs = c.weighted([(1, 3), (2, 3), (3, 2)])
        args = [self.argument(i) for i in range(nargs)]
        target = c.integer(1, max_ops)
        attempts = 0
        invalid_start = c.boolean(INVALID_START_P)
        while len(self.op_names) < target and attempts < 8 * max_ops:
            attempts += 1
            kind = "pad" if invalid_start and attempts <= 2 else c.weighted(self.OPS)
            if kind == "pad":
                fill: bool | None = True if invalid_start and attempts <= 2 else None
                self.attempt(lambda: self.op_pad(fill))  # noqa: B023 (called at once)
            else:
                self.attempt(getattr(self, f"op_{kind}"))
        if c.boolean(PROBE_P):
            for _ in range(c.integer(1, MAX_PROBES)):
                for _ in range(4):
                    if self.attempt(self.probe_invalid):
                        break
        results = self.choose_results()
        return Program(self.module_text(args, results), self.n, len(self.op_names),
                       list(self.op_names), list(self.probes))

    def attempt(self, emit: Callable[[], None]) -> bool:
        """Run one op emitter; where it does not apply, undo everything it emitted."""
        saved = (len(self.lines), len(self.values), len(self.op_names), self.counter,
                 dict(self.index_consts), [v.uses for v in self.values], len(self.returned),
                 len(self.probes))
        try:
            emit()
            return True
        except NotApplicable:
            n_lines, n_vals, n_ops, counter, consts, uses, n_returned, n_probes = saved
            del self.lines[n_lines:], self.values[n_vals:], self.op_names[n_ops:]
            del self.returned[n_returned:], self.probes[n_probes:]
            self.counter, self.index_consts, self.pending = counter, consts, []
            for v, u in zip(self.values, uses, strict=False):
                v.uses = u
            return False
        finally:
            self.forced = None

    # ---- Invalid probes (issue 9) -------------------------------------------------------------

    PROBE_MOVES: tuple[tuple[str, int], ...] = (
        ("reshape", 2), ("permute", 2), ("flip", 2), ("expand", 2), ("shrink", 1),
    )
    """Movement ops between the returned value and its distinguishing reader (they carry
    Invalid lanes along, SPEC §4 rule 1)."""

    def probe_invalid(self) -> None:
        """Return a value that may hold Invalid lanes (made here by an Invalid pad if no value
        may), and read it, maybe through movement ops, by an op for which a 0 in those lanes
        gives another answer than Invalid (`distinguish`); return that reader's result too."""
        c = self.c
        cands = [v for v in reversed(self.values) if v.invalid and not v.terminal]
        if cands and c.boolean(0.8):
            v = c.choice(cands)
        else:
            self.op_pad(True)
            v = self.values[-1]
        self.returned.append(v)
        x = v
        self.probes.append((v.name, ""))
        for _ in range(c.weighted([(0, 3), (1, 3), (2, 1)])):
            self.forced = x
            getattr(self, f"op_{c.weighted(self.PROBE_MOVES)}")()
            x = self.values[-1]
        self.forced = None
        d = self.distinguish(x)
        self.returned.append(d)
        self.probes[-1] = (v.name, d.name)

    def splat(self, x: Val, value: float | bool) -> Val:
        """A splat constant of x's type."""
        return self.add(f"arith.constant dense<{scalar_text(value, x.elt)}> : {{res}}", x.shape,
                        x.elt, x.enc, abs(float(value)), 0.0, "arith.constant")

    def distinguishing_reduce(self, x: Val) -> Val:
        """A mul reduce of x (Invalid lanes give 1, 0 gives 0), or a max reduce of -|x| - 1 for
        floats (its valid lanes are <= -1, so a 0 read for Invalid lanes would be the max)."""
        c = self.c
        f = is_float(x.elt)
        axes = c.subset(range(len(x.shape)))
        k = math.prod(x.shape[a] for a in axes)
        red = "mul" if k <= 4 and c.boolean(0.6) else "max"
        if red == "max" and f and c.boolean(0.8):
            self.use(x)
            m = self.add(f"math.absf {x.name} : {{res}}", x.shape, x.elt, x.enc, x.bound,
                         x.drift, "math.absf")
            self.use(m)
            m = self.add(f"arith.negf {m.name} : {{res}}", x.shape, x.elt, x.enc, x.bound,
                         x.drift, "arith.negf")
            one = self.splat(x, -1.0)
            self.use(m, one)
            x = self.add(f"arith.addf {m.name}, {one.name} : {{res}}", x.shape, x.elt, x.enc,
                         x.bound + 1.0, x.drift + (eps(x.elt) * (x.bound + 1.0) if x.drift
                                                   else 0.0), "arith.addf")
        if red == "max":
            bound, drift = x.bound, x.drift
        else:
            bound = safe_pow(x.bound, k)
            drift = (0.0 if not f or k == 1 else
                     k * safe_pow(max(x.bound, 1.0), k - 1) * x.drift + eps(x.elt) * k * bound)
        enc = x.enc
        if enc.kind == "shard" and enc.axis in axes:
            enc = on(enc.devices)
        shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
        self.use(x)
        return self.add(f"tg.reduce {red} {x.name} [{', '.join(map(str, axes))}] : "
                        f"{x.type} -> {{res}}", shape, x.elt, enc, bound, drift, "tg.reduce",
                        terminal=red == "max")

    def distinguish(self, x: Val) -> Val:
        """An op reading x whose result differs where x's lanes are Invalid from where they
        are 0 (both store as 0): x + c or c - x (c != 0), max(x, c > 0), min(x, c < 0), a cmp
        that holds at 0 (then maybe a where of two nonzero values), exp, a max or mul reduce;
        for i1, x | true or x ^ true."""
        c = self.c
        if x.elt == "i1":
            name = c.choice(("ori", "xori"))
            t = self.splat(x, True)
            self.use(x, t)
            return self.add(f"arith.{name} {x.name}, {t.name} : {{res}}", x.shape, x.elt,
                            x.enc, 1.0, 0.0, f"arith.{name}")
        f = is_float(x.elt)
        kind = c.weighted([("add", 3), ("sub", 1), ("max", 2), ("min", 1),
                           ("cmp", 3 if x.exact else 0),
                           ("exp", 2 if f and x.bound <= 2.5 else 0), ("reduce", 3)])
        if kind == "reduce":
            return self.distinguishing_reduce(x)
        if kind == "exp":
            self.use(x)
            bound = math.exp(x.bound)
            return self.add(f"math.exp {x.name} : {{res}}", x.shape, x.elt, x.enc, bound,
                            (x.drift + eps(x.elt)) * bound if x.drift else 0.0, "math.exp")
        if kind == "cmp":
            pred, value = c.choice((("lt", 1), ("le", 0), ("ge", 0), ("gt", -1), ("eq", 0),
                                    ("ne", 2)))
            k = self.splat(x, value)
            self.use(x, k)
            cond = self.add(f"tg.cmp {pred} {x.name}, {k.name} : {x.type} -> {{res}}", x.shape,
                            "i1", x.enc, 1.0, 0.0, "tg.cmp")
            if not c.boolean(0.5):
                return cond
            elt = c.choice(("f32", "i32"))
            like = Val("", cond.shape, elt, cond.enc, 1.0)
            a, b = self.splat(like, c.choice((1, 2, -1))), self.splat(like, c.choice((3, -2)))
            self.use(cond, a, b)
            return self.add(f"tg.where {cond.name}, {a.name}, {b.name} : {cond.type}, {{res}}",
                            cond.shape, elt, cond.enc, 3.0, 0.0, "tg.where")
        value = {"add": c.choice((1, 2, -1)), "sub": c.choice((1, -2)), "max": 0.5 if f else 1,
                 "min": -0.5 if f else -1}[kind]
        k = self.splat(x, value)
        name = {"add": "addf" if f else "addi", "sub": "subf" if f else "subi",
                "max": "maximumf" if f else "maxsi", "min": "minimumf" if f else "minsi"}[kind]
        a, b = (k, x) if kind == "sub" else (x, k)
        bound = x.bound + abs(float(value))
        self.use(a, b)
        return self.add(f"arith.{name} {a.name}, {b.name} : {{res}}", x.shape, x.elt, x.enc,
                        bound, x.drift + (eps(x.elt) * bound if x.drift else 0.0),
                        f"arith.{name}")

    def choose_results(self) -> list[Val]:
        c = self.c
        nres = c.weighted([(1, 3), (2, 3), (3, 2)])
        sinks = [v for v in reversed(self.values) if v.uses == 0]
        if c.boolean(ALL_SINKS_P):  # nothing computed is dead
            nres = max(nres, min(len(sinks), MAX_RESULTS))
        out: list[Val] = []
        for _ in range(nres):
            pool = [v for v in sinks if v not in out] or list(reversed(self.values))
            out.append(c.choice(pool))
        # a value both returned and used by other ops (its buffer stores Invalid as 0, its
        # users still see Invalid: issue 9), most often one that may hold Invalid lanes
        used = [v for v in reversed(self.values) if v.uses > 0 and v not in out]
        if used and c.boolean(USED_RESULT_P):
            invalid = [v for v in used if v.invalid]
            out.insert(c.integer(0, len(out)),
                       c.choice(invalid if invalid and c.boolean(0.7) else used))
        for v in self.returned:  # the Invalid probes, at any position
            if v not in out:
                out.insert(c.integer(0, len(out)), v)
        return out

    def module_text(self, args: list[Val], results: list[Val]) -> str:
        if self.module_order == "omitted":
            header = "module {"
        else:
            header = ("module attributes {multi.devices = ["
                      + ", ".join(f'"{d}"' for d in self.devices) + "]} {")
        sig = ", ".join(f"{a.name}: {a.type}" for a in args)
        res_types = ", ".join(r.type for r in results)
        ret = (f"    func.return {', '.join(r.name for r in results)} : {res_types}")
        return "\n".join([
            header,
            f"  func.func @main({sig}) -> ({res_types}) {{",
            *self.lines,
            ret,
            "  }",
            "}",
            "",
        ])


# ---------------------------------------------------------------------------------------------
# Front ends
# ---------------------------------------------------------------------------------------------


def verify_text(text: str) -> Any:
    """Parse and verify; a failure is a generator bug."""
    from xdsl.parser import Parser

    from xdsl_multi.dialects import make_context

    try:
        module = Parser(make_context(), text).parse_module()
        module.verify()
    except Exception as e:
        raise GeneratorBug(f"generated program does not verify: {e}\n{text}") from e
    return module


def generate(c: Chooser, max_ops: int = MAX_OPS, verify: bool = True) -> Program:
    program = Builder(c).build(max_ops)
    if verify:
        verify_text(program.text)
    return program


def random_program(seed: int, max_ops: int = MAX_OPS, verify: bool = True) -> Program:
    """The program of one seed (reproducible; independent of hypothesis)."""
    return generate(RandomChooser(seed), max_ops, verify)


@st.composite
def programs(draw: Callable[[st.SearchStrategy[Any]], Any], max_ops: int = MAX_OPS) -> Program:
    """A hypothesis strategy of verified random multi-level programs."""
    return generate(DrawChooser(draw), max_ops)


def program_inputs(module: Any, seed: int) -> list[np.ndarray]:
    """Bounded logical inputs for a module's @main: floats uniform in [-1, 1] (bf16 rounded as
    the interpreter stores it), integers in [-3, 3], i1 random (shapes and dtypes from the
    interpreter's `random_inputs`)."""
    from xdsl_multi.dialects.element_types import is_bf16
    from xdsl_multi.runtime.interpreter.interpreter import logical_signature, random_inputs
    from xdsl_multi.runtime.values import round_bf16

    rng = np.random.default_rng(seed)
    signature = logical_signature(module, "main")
    out: list[np.ndarray] = []
    for t, x in zip(signature.inputs.data, random_inputs(signature, seed=seed), strict=True):
        x = np.asarray(x)
        if x.dtype == np.bool_:
            out.append(rng.random(x.shape) < 0.5)
        elif np.issubdtype(x.dtype, np.integer):
            out.append(rng.integers(-3, 4, size=x.shape).astype(x.dtype))
        else:
            y = rng.uniform(-1.0, 1.0, size=x.shape).astype(x.dtype)
            out.append(round_bf16(y) if is_bf16(t) else y)
    return out


# ---------------------------------------------------------------------------------------------
# Programs on device meshes (SPEC §1.1), with their numpy oracle
# ---------------------------------------------------------------------------------------------
#
# `random_mesh_program(seed)` builds a program with `xm.Builder` (the verifiers' rules infer
# every result type; a choice they reject is drawn again) and computes, next to each op, its
# logical value in numpy (float64) from the logical program: the oracle does not know how the
# blocks are laid out, only what the value is.

MESH_SHAPES: tuple[tuple[int, ...], ...] = ((2, 2), (2, 3), (1, 4), (4, 1), (2, 2, 2))
"""The meshes of issue 15's done-when; a program's arguments are sharded over one of them."""
MESH_OPS = ("binary", "unary", "reduce", "permute", "shrink", "flip", "pad", "copy", "reshape")
MESH_BOUND = 256.0
"""Largest magnitude bound of any value (sums of |terms|), so float32 rounding stays far below
`mesh_atol`."""


def mesh_shapes_of(n: int) -> list[tuple[int, ...]]:
    """Every mesh of n devices with up to 3 dims (a copy may go to any of them)."""
    out: list[tuple[int, ...]] = [(n,)]
    for a in range(1, n + 1):
        if n % a == 0:
            out.append((a, n // a))
            out += [(a, b, n // a // b) for b in range(1, n // a + 1) if (n // a) % b == 0]
    return sorted(set(out))


@dataclass
class MeshValue:
    value: Any  # an SSAValue
    logical: np.ndarray  # float64
    bound: float  # a bound on the sum of |terms| of any element


@dataclass
class MeshProgram:
    """A random program on a device mesh, its inputs (logical arrays) and the numpy oracle of
    every result, in `Program`'s output form (a `#multi.on` result: one copy per device)."""

    text: str
    mesh: tuple[int, ...]
    inputs: list[np.ndarray]
    expected: list[np.ndarray]
    bounds: list[float]
    op_names: list[str]

    def mesh_atol(self, i: int) -> float:
        return 1e-5 * max(1.0, self.bounds[i])

    def __str__(self) -> str:
        return self.text


class _MeshBuilder:
    def __init__(self, seed: int) -> None:
        self.xm = xm
        self.rng = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)
        self.mesh = self.rng.choice(MESH_SHAPES)
        self.n = math.prod(self.mesh)
        self.devices = [f"CPU:{i}" for i in range(self.n)]
        self.b = xm.Builder(devices=self.devices)
        self.values: list[MeshValue] = []
        self.op_names: list[str] = []

    # encodings and shapes

    def shape(self) -> list[int]:
        rank = self.rng.randint(1, 3)
        even = self.rng.random() < 0.5
        shape = []
        for _ in range(rank):
            size = self.rng.choice(self.mesh) * self.rng.randint(1, 2) if even else 0
            shape.append(size or self.rng.randint(1, 7))
        return shape

    def encoding(self, rank: int, mesh: Sequence[int] | None = None) -> Any:
        """A random shard encoding of the devices over `mesh` (default the program's): each
        mesh dim splits a random tensor axis or is `none`, not all `none`."""
        mesh = list(mesh or self.mesh)
        while True:
            axes = [self.rng.choice([None, *range(rank)]) for _ in mesh]
            if any(a is not None for a in axes):
                return self.xm.Builder.shard(self.devices, mesh=mesh, axes=axes)

    def free_axes(self, v: MeshValue) -> list[int]:
        """The tensor axes no mesh dim splits."""
        enc = v.value.type.encoding
        split = set(getattr(enc, "split_axes", ()))
        return [a for a in range(v.logical.ndim) if a not in split]

    # ops: each returns the new value or raises NotApplicable

    def pick(self) -> MeshValue:
        """A value, later ones more often (so chains grow)."""
        n = len(self.values)
        return self.values[min(n - 1, int(n * self.rng.random() ** 0.5))]

    def binary(self, x: MeshValue) -> MeshValue:
        same = [v for v in self.values if v.logical.shape == x.logical.shape]
        y = self.rng.choice(same)
        op = self.rng.choice(("addf", "subf", "mulf", "maximumf"))
        bound = x.bound * y.bound if op == "mulf" else x.bound + y.bound
        if bound > MESH_BOUND:
            raise NotApplicable(op)
        other = y.value
        if other.type != x.value.type:  # one encoding for both operands: a copy between encodings
            other = self.b.copy(other, x.value.type.encoding)
            self.op_names.append("multi.copy")
        f = {"addf": np.add, "subf": np.subtract, "mulf": np.multiply, "maximumf": np.maximum}[op]
        self.op_names.append(f"arith.{op}")
        return MeshValue(getattr(self.b, op)(x.value, other), f(x.logical, y.logical), bound)

    def unary(self, x: MeshValue) -> MeshValue:
        if self.rng.random() < 0.5:
            self.op_names.append("arith.negf")
            return MeshValue(self.b.negf(x.value), -x.logical, x.bound)
        c = self.rng.choice(FLOAT_CONSTANTS)
        self.op_names.append("arith.addf")
        const = self.b.constant(c, x.value.type)
        return MeshValue(self.b.addf(x.value, const), x.logical + c, x.bound + abs(c))

    def reduce(self, x: MeshValue) -> MeshValue:
        rank = x.logical.ndim
        axes = sorted(self.rng.sample(range(rank), self.rng.randint(1, rank)))
        kind = self.rng.choice(("add", "max"))
        if kind == "max" and any(x.logical.shape[a] == 0 for a in axes):
            raise NotApplicable("max of nothing")
        count = math.prod(x.logical.shape[a] for a in axes)
        bound = x.bound * count if kind == "add" else x.bound
        if bound > MESH_BOUND:
            raise NotApplicable("reduce")
        f = np.sum if kind == "add" else np.max
        self.op_names.append("tg.reduce")
        logical = f(x.logical, axis=tuple(axes), keepdims=True)
        return MeshValue(self.b.reduce(kind, x.value, axes), logical, bound)

    def permute(self, x: MeshValue) -> MeshValue:
        order = list(range(x.logical.ndim))
        self.rng.shuffle(order)
        self.op_names.append("tg.permute")
        return MeshValue(self.b.permute(x.value, order), x.logical.transpose(order), x.bound)

    def shrink(self, x: MeshValue) -> MeshValue:
        free = [a for a in self.free_axes(x) if x.logical.shape[a] > 1]
        if not free:
            raise NotApplicable("shrink")
        axis = self.rng.choice(free)
        length = x.logical.shape[axis]
        lo = self.rng.randint(0, length - 1)
        hi = self.rng.randint(lo + 1, length)
        bounds = [(lo, hi) if a == axis else (0, s) for a, s in enumerate(x.logical.shape)]
        self.op_names.append("tg.shrink")
        logical = x.logical[tuple(slice(lo_, hi_) for lo_, hi_ in bounds)]
        return MeshValue(self.b.shrink(x.value, bounds), logical, x.bound)

    def flip(self, x: MeshValue) -> MeshValue:
        free = self.free_axes(x)
        if not free:
            raise NotApplicable("flip")
        axes = sorted(self.rng.sample(free, self.rng.randint(1, len(free))))
        self.op_names.append("tg.flip")
        return MeshValue(self.b.flip(x.value, axes), np.flip(x.logical, axes), x.bound)

    def pad(self, x: MeshValue) -> MeshValue:
        free = self.free_axes(x)
        if not free or x.logical.size > 64:
            raise NotApplicable("pad")
        axis = self.rng.choice(free)
        amount = (self.rng.randint(0, 2), self.rng.randint(1, 2))
        bounds = [amount if a == axis else (0, 0) for a in range(x.logical.ndim)]
        self.op_names.append("tg.pad")
        logical = np.pad(x.logical, bounds)
        return MeshValue(self.b.pad(x.value, bounds, 0.0), logical, x.bound)

    def copy(self, x: MeshValue) -> MeshValue:
        """To another encoding of the devices: another mesh of them, other split axes, or
        every device holding all of it."""
        if self.rng.random() < 0.2:
            dest: Any = self.xm.Builder.on(self.devices)
        else:
            dest = self.encoding(x.logical.ndim, self.rng.choice(mesh_shapes_of(self.n)))
        if dest == x.value.type.encoding:
            raise NotApplicable("copy")
        self.op_names.append("multi.copy")
        return MeshValue(self.b.copy(x.value, dest), x.logical, x.bound)

    def reshape(self, x: MeshValue) -> MeshValue:
        """A size-1 axis added at the end or a trailing size-1 axis dropped (split axes keep
        their lengths)."""
        shape = list(x.logical.shape)
        if shape[-1] == 1 and len(shape) > 1 and len(shape) - 1 in self.free_axes(x):
            new = shape[:-1]
        elif len(shape) < MAX_RANK:
            new = [*shape, 1]
        else:
            raise NotApplicable("reshape")
        self.op_names.append("tg.reshape")
        return MeshValue(self.b.reshape(x.value, new), x.logical.reshape(new), x.bound)

    def build(self, max_ops: int) -> MeshProgram:
        shapes = [self.shape() for _ in range(self.rng.randint(1, 2))]
        types = [self.xm.Builder.tensor(s, f32, self.encoding(len(s))) for s in shapes]
        args = self.b.function("main", types)
        inputs = [self.np_rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]
        self.values = [MeshValue(a, x.astype(np.float64), 1.0) for a, x in zip(args, inputs)]
        made: list[MeshValue] = []
        wanted = self.rng.randint(2, max_ops)
        for _ in range(4 * wanted):  # a choice the rules reject is drawn again
            if len(made) >= wanted:
                break
            x = self.pick()
            try:
                made.append(getattr(self, self.rng.choice(MESH_OPS))(x))
            except (NotApplicable, VerifyException):
                continue
            self.values.append(made[-1])
        others = self.rng.sample(self.values[:-1], min(2, len(self.values) - 1))
        results = [self.values[-1], *others]
        self.b.ret(*(r.value for r in results))
        module = self.b.finish()
        expected = []
        for r in results:
            on = isinstance(r.value.type.encoding, OnAttr)
            want = np.stack([r.logical] * self.n) if on else r.logical
            expected.append(want.astype(np.float32))
        return MeshProgram(
            str(module), self.mesh, inputs, expected, [r.bound for r in results], self.op_names
        )


def random_mesh_program(seed: int, max_ops: int = 8) -> MeshProgram:
    """A random program whose arguments are sharded over one of MESH_SHAPES (random split
    axes, `none` dims, even and uneven lengths), of elementwise ops, movement ops on the axes
    no mesh dim splits, reduces over random subsets of the axes and copies between encodings
    (other split axes, other meshes of the same devices, `#multi.on`), with its numpy oracle."""
    return _MeshBuilder(seed).build(max_ops)


__all__ = [
    "GeneratorBug",
    "MeshProgram",
    "Program",
    "program_inputs",
    "programs",
    "random_mesh_program",
    "random_program",
    "verify_text",
]

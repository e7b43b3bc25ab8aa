"""Index expressions of `form-kernels`: the symbolic integers that address tensor elements, and
the movement ops of `tg` as maps from a consumer's element index to its producer's.

An `Ix` is an integer in canonical form `c0 + sum(c_k * atom_k)`, where an atom is a loop
variable (`Var`, with its inclusive range) or one of `Div`, `Mod`, `Clamp` of another `Ix`:

    i + 3            Ix(terms=((i, 1),), const=3)
    (8*i + j) // 8   simplifies to i when 0 <= j < 8

A pad maps its element to `i - lo` and reports the bounds check `0 <= i - lo < n` separately
(the lane is Invalid, or the fill value, where it fails): an index is exact in the lanes whose
value is used, and may leave its axis in the others. A load clamps its index into its buffer
(`load_index`), so loads never need guards; range analysis removes most clamps and checks. The
index is not clamped at the pad itself: a pad and a shrink by the same d-dependent bound cancel
(`(i + T(d)) - T(d)` is `i`), where `clamp(i + T(d) - T(d), ...)` nested once per pad would
give every step of a chain a new position (docs/compile-time-log.md round 10).

Maps (consumer index -> producer index), SPEC §3:
- reshape: linearize with the result's strides, delinearize with the source's;
- permute: source axis order[a] takes index a;
- expand: 0 on the expanded axes;
- pad: `i - lo` plus the bounds check; shrink: `i + lo`; flip: `n - 1 - i`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

# --------------------------------------------------------------------------------------------
# Atoms and expressions
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Var:
    """A loop variable taking every integer in [lo, hi]; `id` is unique within one kernel."""

    id: int
    lo: int
    hi: int
    name: str = field(default="i", compare=False)

    @property
    def extent(self) -> int:
        return self.hi - self.lo + 1

    @cached_property
    def key(self) -> tuple:
        return (0, self.id)


@dataclass(frozen=True)
class Div:
    """floor(x / k), k > 0."""

    x: Ix
    k: int

    @cached_property
    def key(self) -> tuple:
        return (1, self.x.key, self.k)


@dataclass(frozen=True)
class Mod:
    """x mod k in [0, k), k > 0."""

    x: Ix
    k: int

    @cached_property
    def key(self) -> tuple:
        return (2, self.x.key, self.k)


@dataclass(frozen=True)
class Clamp:
    """min(max(x, lo), hi)."""

    x: Ix
    lo: int
    hi: int

    @cached_property
    def key(self) -> tuple:
        return (3, self.x.key, self.lo, self.hi)


@dataclass(frozen=True)
class Table:
    """values[x]: an integer that only a table says (an SPMD bound that is no affine function
    of the device number d; x is then d, in [0, len(values)))."""

    x: Ix
    values: tuple[int, ...]

    @cached_property
    def key(self) -> tuple:
        return (4, self.x.key, self.values)


Atom = Var | Div | Mod | Clamp | Table


@dataclass(frozen=True)
class Ix:
    """`const + sum(coef * atom)`, terms sorted by the atoms' keys, no zero coefficients."""

    terms: tuple[tuple[Atom, int], ...] = ()
    const: int = 0

    @cached_property
    def key(self) -> tuple:
        return (tuple((a.key, c) for a, c in self.terms), self.const)

    @cached_property
    def range(self) -> tuple[int, int]:
        lo = hi = self.const
        for atom, coef in self.terms:
            alo, ahi = atom_range(atom)
            if coef > 0:
                lo, hi = lo + coef * alo, hi + coef * ahi
            else:
                lo, hi = lo + coef * ahi, hi + coef * alo
        return lo, hi

    @cached_property
    def vars(self) -> frozenset[Var]:
        out: set[Var] = set()
        for atom, _ in self.terms:
            if isinstance(atom, Var):
                out.add(atom)
            else:
                out |= atom.x.vars
        return frozenset(out)

    @property
    def is_const(self) -> bool:
        return not self.terms

    def as_var(self) -> Var | None:
        """The variable, if this expression is exactly one variable."""
        if self.const == 0 and len(self.terms) == 1 and self.terms[0][1] == 1:
            atom = self.terms[0][0]
            if isinstance(atom, Var):
                return atom
        return None

    def __str__(self) -> str:
        parts = [f"{c}*{atom_text(a)}" if c != 1 else atom_text(a) for a, c in self.terms]
        if self.const or not parts:
            parts.append(str(self.const))
        return " + ".join(parts)


def atom_range(atom: Atom) -> tuple[int, int]:
    if isinstance(atom, Var):
        return atom.lo, atom.hi
    lo, hi = atom.x.range
    if isinstance(atom, Table):
        window = atom.values[max(lo, 0) : hi + 1] or atom.values
        return min(window), max(window)
    if isinstance(atom, Div):
        return lo // atom.k, hi // atom.k
    if isinstance(atom, Mod):
        if 0 <= lo and hi < atom.k:
            return lo, hi
        return 0, atom.k - 1
    return min(max(lo, atom.lo), atom.hi), min(max(hi, atom.lo), atom.hi)


def atom_text(atom: Atom) -> str:
    if isinstance(atom, Var):
        return f"{atom.name}{atom.id}"
    if isinstance(atom, Div):
        return f"({atom.x}) div {atom.k}"
    if isinstance(atom, Mod):
        return f"({atom.x}) mod {atom.k}"
    if isinstance(atom, Table):
        return f"{list(atom.values)}[{atom.x}]"
    return f"clamp({atom.x}, {atom.lo}, {atom.hi})"


# --------------------------------------------------------------------------------------------
# Arithmetic with simplification
# --------------------------------------------------------------------------------------------


def const(c: int) -> Ix:
    return Ix((), c)


def of_atom(atom: Atom) -> Ix:
    return Ix(((atom, 1),), 0)


def var(v: Var) -> Ix:
    return of_atom(v)


def _make(coefs: dict[Atom, int], c: int) -> Ix:
    terms = sorted(((a, k) for a, k in coefs.items() if k), key=lambda t: t[0].key)
    return Ix(tuple(terms), c)


def add(*xs: Ix) -> Ix:
    coefs: dict[Atom, int] = {}
    c = 0
    for x in xs:
        c += x.const
        for atom, k in x.terms:
            coefs[atom] = coefs.get(atom, 0) + k
    return _make(coefs, c)


def scale(x: Ix, k: int) -> Ix:
    if k == 0:
        return const(0)
    return Ix(tuple((a, c * k) for a, c in x.terms), x.const * k)


def sub(a: Ix, b: Ix) -> Ix:
    return add(a, scale(b, -1))


def add_const(x: Ix, c: int) -> Ix:
    return Ix(x.terms, x.const + c) if c else x


def _split(x: Ix, k: int) -> tuple[Ix, Ix]:
    """x = k * q + r with q's terms those whose coefficient k divides, r the rest and
    r.const in [0, k)."""
    q_terms: dict[Atom, int] = {}
    r_terms: dict[Atom, int] = {}
    for atom, c in x.terms:
        if c % k == 0:
            q_terms[atom] = c // k
        else:
            r_terms[atom] = c
    q_const, r_const = divmod(x.const, k)
    return _make(q_terms, q_const), _make(r_terms, r_const)


def floordiv(x: Ix, k: int) -> Ix:
    """floor(x / k) for k > 0."""
    assert k > 0
    if k == 1:
        return x
    q, r = _split(x, k)
    lo, hi = r.range
    if lo // k == hi // k:
        return add_const(q, lo // k)
    return add(q, of_atom(Div(r, k)))


def mod(x: Ix, k: int) -> Ix:
    """x mod k in [0, k) for k > 0."""
    assert k > 0
    if k == 1:
        return const(0)
    _, r = _split(x, k)
    lo, hi = r.range
    if lo // k == hi // k:
        return add_const(r, -(lo // k) * k)
    return of_atom(Mod(r, k))


def clamp(x: Ix, lo: int, hi: int) -> Ix:
    """min(max(x, lo), hi); the identity where the range already fits."""
    xlo, xhi = x.range
    if lo <= xlo and xhi <= hi:
        return x
    if xhi <= lo:
        return const(lo)
    if xlo >= hi:
        return const(hi)
    return of_atom(Clamp(x, lo, hi))


def table(x: Ix, values: Sequence[int]) -> Ix:
    """values[x] (x in range): affine in x when the values are, else a `Table` atom."""
    values = tuple(values)
    if x.is_const:
        return const(values[x.const])
    step = values[1] - values[0] if len(values) > 1 else 0
    if all(v == values[0] + step * k for k, v in enumerate(values)):
        return add_const(scale(x, step), values[0])
    return of_atom(Table(x, values))


def substitute(x: Ix, mapping: dict[Var, Ix]) -> Ix:
    """x with each variable in `mapping` replaced (and simplified again)."""
    if not (x.vars & mapping.keys()):
        return x
    parts: list[Ix] = [const(x.const)]
    for atom, c in x.terms:
        parts.append(scale(_substitute_atom(atom, mapping), c))
    return add(*parts)


def _substitute_atom(atom: Atom, mapping: dict[Var, Ix]) -> Ix:
    if isinstance(atom, Var):
        return mapping.get(atom, of_atom(atom))
    inner = substitute(atom.x, mapping)
    if isinstance(atom, Table):
        return table(inner, atom.values)
    if isinstance(atom, Div):
        return floordiv(inner, atom.k)
    if isinstance(atom, Mod):
        return mod(inner, atom.k)
    return clamp(inner, atom.lo, atom.hi)


def coefficient(x: Ix, v: Var) -> int | None:
    """d x / d v when x is affine in v (0 if v does not occur), None when v occurs inside a
    div, mod or clamp."""
    total = 0
    for atom, c in x.terms:
        if atom == v:
            total += c
        elif not isinstance(atom, Var) and v in atom.x.vars:
            return None
    return total


# --------------------------------------------------------------------------------------------
# Bounds checks
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class InBounds:
    """The check lo <= x < hi; `decided` is True/False when the ranges settle it."""

    x: Ix
    lo: int
    hi: int

    @property
    def decided(self) -> bool | None:
        xlo, xhi = self.x.range
        if self.lo <= xlo and xhi < self.hi:
            return True
        if xhi < self.lo or xlo >= self.hi or self.hi <= self.lo:
            return False
        return None

    @property
    def needs_lower(self) -> bool:
        return self.x.range[0] < self.lo

    @property
    def needs_upper(self) -> bool:
        return self.x.range[1] >= self.hi


# --------------------------------------------------------------------------------------------
# Movement ops as index maps (consumer index -> producer index)
# --------------------------------------------------------------------------------------------

Index = tuple[Ix, ...]


def strides(shape: Sequence[int]) -> list[int]:
    out = [1] * len(shape)
    for a in range(len(shape) - 2, -1, -1):
        out[a] = out[a + 1] * shape[a + 1]
    return out


def reshape_map(idx: Index, old: Sequence[int], new: Sequence[int]) -> Index:
    """Index into the source of `reshape old -> new` for result index `idx`: linearize with the
    result's strides, delinearize with the source's. The components of `idx` are in range (but
    in a pad's unused lanes), so the divisions cancel wherever the reshape only splits, merges
    or drops unit axes."""
    assert len(idx) == len(new)
    if list(old) == list(new):
        return idx
    if [n for n in old if n != 1] == [n for n in new if n != 1]:  # only unit axes change
        kept = iter(x for x, n in zip(idx, new, strict=True) if n != 1)
        return tuple(const(0) if n == 1 else next(kept) for n in old)
    linear = add(*(scale(x, s) for x, s in zip(idx, strides(new), strict=True)))
    out = []
    for a, s in enumerate(strides(old)):
        q = floordiv(linear, s)
        out.append(q if a == 0 else mod(q, old[a]))
    return tuple(out)


def permute_map(idx: Index, order: Sequence[int]) -> Index:
    src: list[Ix | None] = [None] * len(order)
    for a, o in enumerate(order):
        src[o] = idx[a]
    return tuple(x for x in src if x is not None)


def expand_map(idx: Index, old: Sequence[int], new: Sequence[int]) -> Index:
    return tuple(
        const(0) if o == 1 and n != 1 else x for x, o, n in zip(idx, old, new, strict=True)
    )


def as_ix(x: Ix | int) -> Ix:
    return x if isinstance(x, Ix) else const(x)


def pad_map(
    idx: Index, old: Sequence[int], lows: Sequence[Ix | int]
) -> tuple[Index, list[InBounds]]:
    """The source index (outside the source where a check fails) and the checks that say
    whether the element is the source's (a low bound may be an expression of the device
    number d in SPMD mode)."""
    src: list[Ix] = []
    checks: list[InBounds] = []
    for x, n, lo in zip(idx, old, lows, strict=True):
        inner = sub(x, as_ix(lo))
        check = InBounds(inner, 0, n)
        if check.decided is not True:
            checks.append(check)
        src.append(inner)
    return tuple(src), checks


def load_index(idx: Index, shape: Sequence[int]) -> Index:
    """`idx` clamped into a buffer of `shape` (the identity where the ranges fit): what a load
    reads in a lane whose index left the buffer (a pad's, whose value is not used)."""
    return tuple(clamp(x, 0, max(n - 1, 0)) for x, n in zip(idx, shape, strict=True))


def shrink_map(idx: Index, lows: Sequence[Ix | int]) -> Index:
    return tuple(add(x, as_ix(lo)) for x, lo in zip(idx, lows, strict=True))


def flip_map(idx: Index, shape: Sequence[int], axes: Sequence[int]) -> Index:
    return tuple(sub(const(shape[a] - 1), x) if a in axes else x for a, x in enumerate(idx))

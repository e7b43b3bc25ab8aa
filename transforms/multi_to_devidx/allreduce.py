"""Allreduce schedules in the SPMD form: naive, ring and all-to-all, built from fetches.

With N devices and a buffer of `numel` elements (messages counted after specialize-devices):
- naive: every destination fetches every source's whole buffer and reduces: N(N-1) messages of
  numel elements.
- ring: reduce-scatter then all-gather over N chunks of c = ceil(numel / N) elements, each step
  passing one chunk to the next device: 2N(N-1) messages of c elements.
- all2all: device d fetches chunk d of every other buffer and reduces it, then fetches every
  reduced chunk from its owner: 2N(N-1) messages of c elements in two rounds.

With `collectives=ops` (SPMD mode, docs/spmd-form.md "Collectives") an allreduce is one
`devidx.allreduce` op that names its schedule (the runtime moves the data), so the SPMD
program does not grow with N: over every device as is, over a subset of sources with its
`members` table; destinations that are not sources get the result by one `devidx.broadcast`
from the first source. The fetch schedules above remain for the specialized mode.

Mesh groups (SPEC §1.1, a reduce over split axes): `lower_group_allreduce` is the naive
schedule within d's group (sources are index arithmetic on d); ring and all2all fall back to
it. With `collectives=ops` it is one grouped `devidx.allreduce ... groups [..] over [..]`
(sharded_rules.py). A reduce over two or more mesh dims may take the hierarchical schedule
instead (`AllreduceStrategy.hierarchical`, hierarchical.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue
from xdsl.utils.str_enum import StrEnum

from xdsl_multi.dialects import devidx
from xdsl_multi.dialects.multi import ReduceKind
from xdsl_multi.dialects.tg import pad_value_attr
from xdsl_multi.transforms.multi_to_devidx.spmd_builder import Index, SpmdBuilder


class AllreduceMode(StrEnum):
    """The values of multi-to-devidx's `allreduce` option: a schedule, or AUTO to choose one
    per allreduce. Listed in the order the option's error message names them."""

    AUTO = "auto"
    NAIVE = "naive"
    RING = "ring"
    ALL2ALL = "all2all"
    HIERARCHICAL = "hierarchical"


@dataclass(frozen=True)
class AllreduceStrategy:
    """The `allreduce` and `ring-threshold` options of multi-to-devidx. `hierarchical` applies
    to reduces over two or more mesh dims; elsewhere it schedules as `auto` does."""

    mode: AllreduceMode = AllreduceMode.AUTO
    ring_threshold: int = 256000
    as_ops: bool = False
    """`collectives=ops`: an allreduce over every device is one `devidx.allreduce`."""

    def choose(self, num_devices: int, numel: int, all_devices: bool) -> AllreduceMode:
        """The schedule for one allreduce (never AUTO). Ring and all2all need every device as
        both source and destination; otherwise the naive schedule is used."""
        if not all_devices or num_devices == 1:
            return AllreduceMode.NAIVE
        if self.mode in (AllreduceMode.AUTO, AllreduceMode.HIERARCHICAL):
            ring = num_devices > 2 and numel > self.ring_threshold
            return AllreduceMode.RING if ring else AllreduceMode.NAIVE
        return self.mode

    def hierarchical(self, reduced_dims: int, numel: int) -> bool:
        """Whether a reduce over `reduced_dims` mesh dims (SPEC §1.1) takes the hierarchical
        schedule (hierarchical.py): it needs two dims or more; `hierarchical` asks for it, `auto`
        chooses it when the buffer has more than `ring-threshold` elements."""
        if reduced_dims < 2:
            return False
        if self.mode == AllreduceMode.AUTO:
            return numel > self.ring_threshold
        return self.mode == AllreduceMode.HIERARCHICAL


def lower_allreduce(
    b: SpmdBuilder,
    kind: ReduceKind,
    x: SSAValue,
    sources: Sequence[int],
    destinations: Sequence[int],
    strategy: AllreduceStrategy,
) -> SSAValue:
    """Every device in `destinations` gets the `kind` reduction of the `sources`' buffers of x;
    other devices get Invalid."""
    t = x.type
    assert isinstance(t, TensorType)
    everyone = list(range(b.num_devices))
    all_devices = sorted(sources) == everyone and sorted(destinations) == everyone
    schedule = strategy.choose(b.num_devices, math.prod(t.get_shape()), all_devices)
    if strategy.as_ops and b.num_devices > 1:
        return _allreduce_op(b, kind, x, sources, destinations, strategy)
    if schedule == AllreduceMode.NAIVE:
        total: SSAValue | None = None
        for src in sources:
            piece = b.fetch(x, src)
            total = piece if total is None else b.combine(kind, total, piece)
        assert total is not None
        return b.mask(b.member(destinations), total)
    chunks = _Chunks(b, x)
    reduced = _ring_reduce_scatter(b, kind, chunks) if schedule == AllreduceMode.RING else None
    if reduced is not None:
        value, index = reduced
        return chunks.ring_all_gather(value, index)
    return chunks.direct_all_gather(_all2all_reduce_scatter(b, kind, chunks))


def lower_group_allreduce(
    b: SpmdBuilder, kind: ReduceKind, x: SSAValue, members: Sequence[Index]
) -> SSAValue:
    """Every device gets the `kind` reduction of x over its mesh group: `members` are the
    device numbers of d's group (index arithmetic on d, in position order), each fetched and
    combined in that order (the naive schedule: ring and all2all fall back to it for groups)."""
    total: SSAValue | None = None
    for src in members:
        piece = b.fetch(x, src)
        total = piece if total is None else b.combine(kind, total, piece)
    assert total is not None
    return total


def _allreduce_op(
    b: SpmdBuilder,
    kind: ReduceKind,
    x: SSAValue,
    sources: Sequence[int],
    destinations: Sequence[int],
    strategy: AllreduceStrategy,
) -> SSAValue:
    """`collectives=ops`: one `devidx.allreduce` over the sources (a `members` table unless
    they are every device, reduced in the sources' order as the multi level does), then a
    `devidx.broadcast` from the first source when some destination is not a source, masked to
    the destinations: O(1) ops whatever N and the number of devices involved."""
    t = x.type
    assert isinstance(t, TensorType)
    everyone = sorted(sources) == list(range(b.num_devices))
    schedule = strategy.choose(len(sources), math.prod(t.get_shape()), True)
    members = None if everyone else list(sources)
    total = b.value(devidx.AllreduceOp(kind, b.stored(x), str(schedule), members=members))
    if not set(destinations) <= set(sources):
        total = b.value(devidx.BroadcastOp(total, sources[0]))
    return b.mask(b.member(destinations), total)


class _Chunks:
    """x flattened and padded to N * c elements, cut into N chunks of c."""

    def __init__(self, b: SpmdBuilder, x: SSAValue):
        t = x.type
        assert isinstance(t, TensorType)
        self.b, self.shape = b, t.get_shape()
        self.n = b.num_devices
        self.numel = math.prod(self.shape)
        self.c = -(-self.numel // self.n)
        self.zero = pad_value_attr(0, t.element_type)
        flat = b.reshape(b.stored(x), [self.numel])  # an allreduce stores Invalid as 0
        total = self.n * self.c
        self.padded = (
            flat
            if total == self.numel
            else b.pad_axis(flat, 0, 0, total - self.numel, total, self.zero)
        )

    def chunk(self, i: Index) -> SSAValue:
        return self.b.shrink_axis(self.padded, 0, self.b.mul(i, self.c), self.c)

    def place(self, value: SSAValue, i: Index) -> SSAValue:
        """A chunk put back at position i of an N * c vector of zeros."""
        b = self.b
        lo = b.mul(i, self.c)
        hi = b.mul(b.sub(self.n - 1, i), self.c)
        return b.pad_axis(value, 0, lo, hi, self.n * self.c, self.zero)

    def unflatten(self, flat: SSAValue) -> SSAValue:
        b = self.b
        if self.n * self.c != self.numel:
            flat = b.shrink_axis(flat, 0, 0, self.numel)
        return b.reshape(flat, self.shape)

    def ring_all_gather(self, value: SSAValue, index: Index) -> SSAValue:
        """Device d holds reduced chunk `index`; pass chunks around the ring N - 1 times."""
        b = self.b
        out = self.place(value, index)
        for t in range(self.n - 1):
            value = b.fetch(value, b.shift(-1))
            out = b.combine(ReduceKind.ADD, out, self.place(value, b.shift(-t)))
        return self.unflatten(out)

    def direct_all_gather(self, value: SSAValue) -> SSAValue:
        """Device d holds reduced chunk d; fetch every other chunk from its owner."""
        b = self.b
        out = self.place(value, b.d)
        for t in range(1, self.n):
            out = b.combine(
                ReduceKind.ADD, out, self.place(b.fetch(value, b.shift(-t)), b.shift(-t))
            )
        return self.unflatten(out)


def _ring_reduce_scatter(
    b: SpmdBuilder, kind: ReduceKind, chunks: _Chunks
) -> tuple[SSAValue, Index]:
    """After N - 1 steps device d holds the reduction of chunk (d + 1) mod N."""
    acc = chunks.chunk(b.d)
    for t in range(chunks.n - 1):
        received = b.fetch(acc, b.shift(-1))
        acc = b.combine(kind, received, chunks.chunk(b.shift(-1 - t)))
    return acc, b.shift(1)


def _all2all_reduce_scatter(b: SpmdBuilder, kind: ReduceKind, chunks: _Chunks) -> SSAValue:
    """Device d fetches chunk d of every other device's buffer: device j sends chunk
    (j + t) mod N to device (j + t) mod N."""
    acc = chunks.chunk(b.d)
    for t in range(1, chunks.n):
        acc = b.combine(kind, acc, b.fetch(chunks.chunk(b.shift(t)), b.shift(-t)))
    return acc

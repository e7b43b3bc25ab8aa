"""Device memory for the compiled runtime: 64-byte aligned numpy buffers and the static memory
plan of one device's host schedule.

```python
x = aligned_empty((4, 8), np.float32)          # x.ctypes.data % 64 == 0, C-contiguous
plan = plan_memory([Lifetime(buffer=0, nbytes=128, start=0, end=3), ...])
arena = DeviceMemory(plan)                     # one device's memory, kept across runs
view = arena.view(plan.slot_of[0], (4, 8), np.float32)
```

A schedule's buffers (`memref.alloc`, and with MPI the buffer a receive lands in) do not get
memory of their own on every run: `plan_memory` packs them into a few *slots* once, from their
lifetimes (first step to last use), so a buffer's slot is free again for buffers allocated
after its last use. `DeviceMemory` allocates each slot the first time it is needed and keeps it:
steady-state runs allocate nothing and touch no fresh pages (BENCH.md: fresh output buffers
page-fault on first touch).

Lifetimes are inclusive: a buffer used at step 5 is live at step 5, so two arguments of one
kernel call never share memory.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import MemRefType, TensorType
from xdsl.ir import Attribute

from xdsl_multi.runtime.values import InterpreterError, dtype_of

ALIGNMENT = 64
"""Bytes; every buffer the runtime allocates starts at a multiple of this (a cache line, and
the widest AVX-512 load)."""


class UnsupportedType(Exception):
    """An element or buffer type the compiled runtime cannot hold in a numpy array."""


# ---------------------------------------------------------------------------------------------
# Element types and aligned arrays
# ---------------------------------------------------------------------------------------------


def element_dtype(t: Attribute) -> np.dtype:
    """The numpy dtype of a kernel-level element type: the interpreter's (values.dtype_of;
    i1 is a byte: numpy bool; bf16 values are float32, as in the JIT)."""
    if isinstance(t, MemRefType | TensorType):  # dtype_of would take their element type
        raise UnsupportedType(f"element type {t} is not supported by the compiled runtime")
    try:
        return dtype_of(t)
    except InterpreterError:
        raise UnsupportedType(f"element type {t} is not supported by the compiled runtime") from None


@dataclass(frozen=True)
class BufferType:
    """The shape and dtype of a static memref."""

    shape: tuple[int, ...]
    dtype: np.dtype

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize

    def __str__(self) -> str:
        return f"{self.dtype}{list(self.shape)}"

    @staticmethod
    def of(t: Attribute) -> BufferType:
        """The buffer type of a static memref type."""
        if not isinstance(t, MemRefType):
            raise UnsupportedType(f"expected a memref type, found {t}")
        shape = tuple(t.get_shape())
        if any(n < 0 for n in shape):
            raise UnsupportedType(f"{t} has a dynamic size; the runtime needs static shapes")
        return BufferType(shape, element_dtype(t.get_element_type()))


def aligned_empty(
    shape: Sequence[int], dtype: np.dtype | type, alignment: int = ALIGNMENT
) -> np.ndarray:
    """An uninitialized C-contiguous array whose data starts at a multiple of `alignment`
    (numpy only promises 16 bytes: over-allocate and start at the right offset)."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.empty(nbytes + alignment, np.uint8)
    offset = -raw.ctypes.data % alignment
    # np.ndarray over the buffer keeps the offset even for an empty array (a slice does not)
    return np.ndarray(tuple(shape), dtype, buffer=raw, offset=offset)


def aligned_copy(x: np.ndarray, dtype: np.dtype | None = None) -> np.ndarray:
    """A 64-byte aligned C-contiguous copy of `x` (converted to `dtype` if given)."""
    out = aligned_empty(x.shape, dtype or x.dtype)
    np.copyto(out, x, casting="unsafe" if dtype is not None else "no")
    return out


def is_aligned(x: np.ndarray, alignment: int = ALIGNMENT) -> bool:
    return x.ctypes.data % alignment == 0 and x.flags.c_contiguous


# ---------------------------------------------------------------------------------------------
# The memory plan
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Lifetime:
    """Buffer `buffer` of `nbytes` bytes is live from step `start` to step `end`, inclusive."""

    buffer: int
    nbytes: int
    start: int
    end: int


@dataclass(frozen=True)
class MemoryPlan:
    """Where each planned buffer lives: `slot_of[buffer]` is a slot of `slot_bytes[slot]`
    bytes. `peak_bytes` is the most bytes live at once (the schedule's need), `sum(slot_bytes)`
    what the device holds (at least the peak; more when sizes do not pack)."""

    slot_of: dict[int, int]
    slot_bytes: tuple[int, ...]
    peak_bytes: int

    @property
    def total_bytes(self) -> int:
        return sum(self.slot_bytes)


def plan_memory(lifetimes: Sequence[Lifetime]) -> MemoryPlan:
    """Pack buffers into slots so that buffers sharing a slot are never live at once.

    Linear scan in order of first step; a new buffer takes the smallest free slot that is
    large enough, else grows the largest free slot, else opens a new one. Buffers become free
    after their last step."""
    order = sorted(lifetimes, key=lambda lt: (lt.start, lt.buffer))
    slot_bytes: list[int] = []
    slot_of: dict[int, int] = {}
    active: list[Lifetime] = []
    free: set[int] = set()
    for lt in order:
        for done in [a for a in active if a.end < lt.start]:
            active.remove(done)
            free.add(slot_of[done.buffer])
        fitting = [s for s in free if slot_bytes[s] >= lt.nbytes]
        if fitting:
            slot = min(fitting, key=lambda s: (slot_bytes[s], s))
        elif free:
            slot = max(free, key=lambda s: (slot_bytes[s], -s))
            slot_bytes[slot] = lt.nbytes
        else:
            slot = len(slot_bytes)
            slot_bytes.append(lt.nbytes)
        free.discard(slot)
        slot_of[lt.buffer] = slot
        active.append(lt)
    return MemoryPlan(slot_of, tuple(slot_bytes), peak_live_bytes(lifetimes))


def peak_live_bytes(lifetimes: Sequence[Lifetime]) -> int:
    """The largest sum of bytes live at one step."""
    events: dict[int, int] = {}
    for lt in lifetimes:
        events[lt.start] = events.get(lt.start, 0) + lt.nbytes
        events[lt.end + 1] = events.get(lt.end + 1, 0) - lt.nbytes
    peak = live = 0
    for step in sorted(events):
        live += events[step]
        peak = max(peak, live)
    return peak


PAGE_BYTES = 4096
"""The smallest page size: a store every this many bytes touches every page."""

TOUCH_CHUNK = 4 << 20
"""`DeviceMemory.allocate` touches this many bytes between looks at its stop flag: 1024
pages, so that numpy's strided store releases the GIL (it does from 500 items; with 1 MiB
chunks the touching thread held it and a Python loop beside it ran 2.5x slower)."""


class DeviceMemory:
    """One device's slots, allocated (aligned) the first time a run needs them and kept for
    the next runs, and the array views of buffers into them."""

    def __init__(self, plan: MemoryPlan) -> None:
        self.plan = plan
        self._slots: list[np.ndarray | None] = [None] * len(plan.slot_bytes)
        self._views: dict[int, np.ndarray] = {}

    def allocate(self, stop: threading.Event | None = None) -> bool:
        """Allocate every slot now and touch each of its pages, so that the first run takes
        no page faults there (each costs the kernel a zeroed page; BENCH W2 and W6 spent
        more on them in their first run than on the run itself). Stops early, between
        chunks of `TOUCH_CHUNK` bytes, once `stop` is set: what is left faults in the first
        run as before. Returns whether it got through. `executor.build_runners` does it on
        a thread of its own while LLVM compiles the kernels (`allocated_meanwhile`)."""
        for slot, nbytes in enumerate(self.plan.slot_bytes):
            raw = self._slots[slot]
            if raw is None:
                raw = aligned_empty((nbytes,), np.uint8)
                self._slots[slot] = raw
            for start in range(0, nbytes, TOUCH_CHUNK):
                if stop is not None and stop.is_set():
                    return False
                raw[start : start + TOUCH_CHUNK : PAGE_BYTES] = 0
        return True

    @property
    def allocated_bytes(self) -> int:
        """Bytes of slots allocated so far."""
        return sum(s.nbytes for s in self._slots if s is not None)

    def view(self, buffer: int, btype: BufferType) -> np.ndarray:
        """Planned buffer `buffer` as an array of `btype` (the same array on every run)."""
        found = self._views.get(buffer)
        if found is not None:
            return found
        slot = self.plan.slot_of[buffer]
        raw = self._slots[slot]
        if raw is None:
            raw = aligned_empty((self.plan.slot_bytes[slot],), np.uint8)
            self._slots[slot] = raw
        view = np.ndarray(btype.shape, btype.dtype, buffer=raw)
        self._views[buffer] = view
        return view


@contextmanager
def allocated_meanwhile(memories: Sequence[DeviceMemory]) -> Iterator[None]:
    """Allocate the slots of `memories` (`DeviceMemory.allocate`) on a thread of its own while
    the body runs (LLVM compiling the kernels, without the GIL), and no longer: on leaving,
    the thread stops after its current chunk, and what it did not reach is allocated by the
    first run as before (so a program whose memory takes longer to touch than its kernels to
    compile, W6 at N = 8 from a warm cache, waits for nothing). An error on the thread is
    raised here."""
    failed: list[BaseException] = []
    stop = threading.Event()

    def allocate() -> None:
        try:
            for memory in memories:
                if not memory.allocate(stop):
                    return
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            failed.append(e)

    worker = threading.Thread(target=allocate, name="xdsl-multi-allocate", daemon=True)
    worker.start()
    try:
        yield
    finally:
        stop.set()
        worker.join()
    if failed:
        raise failed[0]

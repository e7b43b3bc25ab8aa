"""tinygrad and JAX as side-by-side peers of our compiler (BENCH.md "How to measure").

A peer runs a workload's logical computation (bench/workloads.py: `Workload.tinygrad`, and
`Workload.compute` on `jax.numpy`) on N CPU devices with the workload's placement
(`shard_axes`, `out_axis`):

- tinygrad: each input `Tensor(x).shard(("CPU:0", ..., "CPU:N-1"), axis=k)` (replicated:
  axis=None), realized before timing; the step is wrapped in `TinyJit` and realizes its result;
  a call ends when every device has synchronized.
- JAX: each input `jax.device_put` with `NamedSharding(Mesh(devices[:N], ("d",)), P(...))` (a
  mesh workload, W8: `Mesh(devices[:N].reshape(mesh), ("x", "y"))` and its PartitionSpecs); the
  step is `jax.jit` with the same in/out shardings; a call ends at `block_until_ready()`. JAX
  gets its N host devices from `XLA_FLAGS=--xla_force_host_platform_device_count`, which must be
  in the environment before jax is imported: `load` appends `=8` (keeping the other flags) unless
  the count is set already.

Neither shards an axis unevenly (tinygrad: "multi axis uneven"), so an input whose shard axis
does not divide by N (W7: 1000 rows on 3 devices) is padded with zero rows by hand before it is
placed, and the padded rows of the result are dropped when it is checked, outside the timed
call; the variant says "padded by hand". Zero rows are harmless only for computations that are
row-local along the shard axis, as W7's is.

Both are imported lazily, only when benchmarked. A peer that is not installed, or fails to
initialize (tinygrad's CPU device needs clang to compile its kernels), is skipped with one line.
tinygrad's on-disk cache (compiled kernels) is a fresh file for the run (CACHEDB, unless set),
so its first calls compile cold, like JAX's, whose compilation cache is in memory only.

The timing protocol (check against numpy, warm-up, timed calls) is bench/run.py's `peer`.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Protocol

import numpy as np

from bench.workloads import Workload

PEERS = ("tinygrad", "jax")
MAX_DEVICES = 8
"""Host devices asked of JAX: enough for every workload (W6 at N = 8)."""
XLA_COUNT_FLAG = "--xla_force_host_platform_device_count"


class PeerUnavailable(Exception):
    """The peer cannot run here: not installed, or it failed to initialize."""


class Peer(Protocol):
    """What bench/run.py needs of a peer."""

    name: str
    variant: str
    version: str

    def unsupported(self, w: Workload) -> str | None:
        """Why this peer cannot run `w` here, or None."""

    def prepare(self, w: Workload, inputs: Sequence[np.ndarray]) -> Step:
        """`w` on these (evenly shardable) logical inputs: placed, with its step."""


@dataclass
class Step:
    """One workload ready to run on a peer: inputs placed, the step compiled lazily on its first
    call. `call()` runs it once and returns when the results are ready; `fetch(out)` is a call's
    result as one logical numpy array (a replicated result: one copy)."""

    call: Callable[[], object]
    fetch: Callable[[object], np.ndarray]


@contextmanager
def initializing() -> Iterator[None]:
    """Turn a peer's failure to import ("not installed") or to initialize (anything else it
    raises) into PeerUnavailable."""
    try:
        yield
    except ImportError as e:
        raise PeerUnavailable("not installed") from e
    except Exception as e:  # any failure to initialize means "skip the peer"
        raise PeerUnavailable(f"failed to initialize ({type(e).__name__}: {e})") from e


def padded(w: Workload, inputs: Sequence[np.ndarray]) -> tuple[list[np.ndarray], bool]:
    """`inputs` with each sharded axis padded with zeros to a multiple of `w.n`, and whether any
    was (neither peer shards unevenly)."""
    out, changed = [], False
    for x, axis in zip(inputs, w.shard_axes, strict=True):
        extra = 0 if axis is None else -x.shape[axis] % w.n
        if extra:
            widths = [(0, 0)] * x.ndim
            widths[axis] = (0, extra)
            x = np.pad(x, widths)
            changed = True
        out.append(x)
    return out, changed


class Tinygrad:
    """tinygrad on devices "CPU:0".."CPU:N-1": `Tensor.shard` inputs, a `TinyJit` step."""

    name = "tinygrad"
    variant = "TinyJit"

    def __init__(self) -> None:
        if "CACHEDB" not in os.environ:  # read when tinygrad is imported
            cache = tempfile.mkdtemp(prefix="bench-tinygrad-")
            atexit.register(shutil.rmtree, cache, ignore_errors=True)
            os.environ["CACHEDB"] = os.path.join(cache, "cache.db")
        with initializing():
            from tinygrad import Device, Tensor, TinyJit

            # compiles and runs one kernel: the CPU device needs a working C compiler
            ok = (Tensor([1.0, 2.0], device="CPU") + 1).tolist() == [2.0, 3.0]
        if not ok:
            raise PeerUnavailable("failed to initialize (wrong result of a trial kernel)")
        self.version = metadata.version("tinygrad")
        self._device, self._tensor, self._jit = Device, Tensor, TinyJit

    def unsupported(self, w: Workload) -> str | None:
        return None if w.tinygrad else "no tinygrad version of the workload"

    def prepare(self, w: Workload, inputs: Sequence[np.ndarray]) -> Step:
        devices = tuple(f"CPU:{k}" for k in range(w.n))
        placed = [
            self._tensor(x).shard(devices, axis=axis).realize()
            for x, axis in zip(inputs, w.shard_axes, strict=True)
        ]
        for d in devices:
            self._device[d].synchronize()
        body = w.tinygrad
        assert body is not None
        step = self._jit(lambda *xs: body(*xs).realize())

        def call() -> object:
            out = step(*placed)
            for d in devices:
                self._device[d].synchronize()
            return out

        return Step(call, lambda out: np.asarray(out.numpy()))  # type: ignore[attr-defined]


class Jax:
    """JAX on N host devices: `jax.device_put` with NamedSharding, a `jax.jit` step."""

    name = "jax"
    variant = "jit"

    def __init__(self) -> None:
        configure_xla_flags()
        with initializing():
            import jax
            import jax.numpy as jnp
            from jax.sharding import Mesh, NamedSharding, PartitionSpec

            self.devices = jax.devices("cpu")
        self.version = metadata.version("jax")
        self._jax, self._jnp = jax, jnp
        self._mesh, self._sharding, self._spec = Mesh, NamedSharding, PartitionSpec

    def unsupported(self, w: Workload) -> str | None:
        if w.n > len(self.devices):
            return f"XLA has {len(self.devices)} host devices, the workload needs {w.n}"
        return None

    def sharding(self, mesh: Any, axis: int | None) -> Any:
        """Split along `axis` over the mesh's one axis "d" (None: replicated)."""
        spec = self._spec() if axis is None else self._spec(*([None] * axis), "d")
        return self._sharding(mesh, spec)

    def prepare(self, w: Workload, inputs: Sequence[np.ndarray]) -> Step:
        jax, jnp = self._jax, self._jnp
        if w.mesh is not None:  # P("x", "y")-style: the devices row-major on the mesh
            devices = np.array(self.devices[: w.n]).reshape(w.mesh.shape)
            mesh = self._mesh(devices, w.mesh.names)
            in_shardings = tuple(self._sharding(mesh, self._spec(*p)) for p in w.mesh.inputs)
            out_sharding = self._sharding(mesh, self._spec(*w.mesh.output))
        else:
            mesh = self._mesh(np.array(self.devices[: w.n]), ("d",))
            in_shardings = tuple(self.sharding(mesh, axis) for axis in w.shard_axes)
            out_sharding = self.sharding(mesh, w.out_axis)
        placed = [
            jax.device_put(x, s).block_until_ready()
            for x, s in zip(inputs, in_shardings, strict=True)
        ]
        step = jax.jit(
            lambda *xs: w.compute(jnp, *xs),
            in_shardings=in_shardings,
            out_shardings=out_sharding,
        )
        return Step(
            lambda: step(*placed).block_until_ready(),
            lambda out: np.asarray(out),
        )


def configure_xla_flags(count: int = MAX_DEVICES) -> None:
    """Ask XLA for `count` host devices through XLA_FLAGS, keeping the flags already there,
    unless a count is set already (by the user, or by an earlier call). Only effective before
    jax is first imported."""
    flags = os.environ.get("XLA_FLAGS", "")
    if not re.search(rf"{XLA_COUNT_FLAG}\b", flags):
        os.environ["XLA_FLAGS"] = f"{flags} {XLA_COUNT_FLAG}={count}".strip()


LOADERS: dict[str, Callable[[], Peer]] = {"tinygrad": Tinygrad, "jax": Jax}


def load(names: Sequence[str], log: Callable[[str], None] = print) -> list[Peer]:
    """The peers of `names` that can run here; each one that cannot is skipped with one line."""
    out = []
    for name in names:
        try:
            peer = LOADERS[name]()
        except PeerUnavailable as e:
            log(f"{name}: {e}, skipped")
            continue
        log(f"{name}: {peer.version}")
        out.append(peer)
    return out

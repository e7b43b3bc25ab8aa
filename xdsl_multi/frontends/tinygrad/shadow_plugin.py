"""The shadow runner's pytest plugin (shadow.py starts pytest with `-p` on this module).

In `shadow` mode it wraps tinygrad's `Tensor.realize`, the one door every realization and
every read (`numpy`, `tolist`, `data`, `item` realize a CPU clone) goes through. For each tensor
being realized whose graph touches several devices:

| when | what |
|---|---|
| before tinygrad realizes it | `import_tensors(t)`: its graph before tinygrad's multi rewrite, inputs copied |
| tinygrad realizes it | unchanged; if tinygrad raises, the graph is forgotten and the error propagates |
| after | xdsl-multi compiles and runs the module; its value is compared with tinygrad's buffer(s) |

Every graph becomes one line of the JSON-lines report (`--xdsl-shadow-report`): `matched`,
`mismatch`, `error` (our path raised), `unsupported` (UnsupportedGraph: op and reason) or
`not-compared` (no data to compare: NULL devices, bfloat16, an unread form). Nothing of our path
ever raises into the test. Both modes record each test's outcome (`outcome` lines), so the
baseline run (`outcomes` mode) and the shadow run are compared by shadow.py.
"""

from __future__ import annotations

import json
import os
import time
import traceback
from collections.abc import Callable, Generator
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pytest
import tinygrad
import tinygrad.engine.realize as realize_engine
from tinygrad.device import Buffer, MultiBuffer
from tinygrad.dtype import DType, _to_np_dtype, dtypes
from tinygrad.tensor import Tensor
from tinygrad.uop.ops import AddrSpace, Ops, UOp
from xdsl.dialects.builtin import TensorType

from xdsl_multi.api import CompileError
from xdsl_multi.api import compile as compile_module
from xdsl_multi.dialects.multi import ShardAttr
from xdsl_multi.frontends.tinygrad.bounds import evaluate as bound_value
from xdsl_multi.frontends.tinygrad.errors import UnsupportedGraph
from xdsl_multi.frontends.tinygrad.importer import import_tensors

MULTI_OPS = frozenset({Ops.UNSHARD, Ops.MSELECT, Ops.MSTACK, Ops.ALLREDUCE})
"""tinygrad ops that exist only in multi-device graphs (COPY and BUFFER count by their device)."""

NO_DATA_DEVICES = ("NULL", "DISK")
"""Devices whose buffers hold no data to import or compare (tinygrad's NULL runs nothing)."""

SCRATCH_SPACES = frozenset({AddrSpace.LOCAL, AddrSpace.REG, AddrSpace.ALU})
"""BUFFERs that hold no data of their own (a Variable is an ALU buffer)."""

TOLERANCES: dict[DType, tuple[float, float]] = {
    dtypes.float16: (1e-2, 1e-2),
    dtypes.bfloat16: (2e-2, 2e-2),
    dtypes.float32: (1e-4, 1e-5),
    dtypes.float64: (1e-9, 1e-12),
}
"""(rtol, atol) of numpy's allclose for float dtypes; integers and bools compare exactly."""


@dataclass
class GraphRecord:
    """One multi-device graph of one test: what happened to it (a line of the report)."""

    test: str
    index: int
    kind: str
    graph: str
    reason: str = ""
    detail: str = ""
    seconds: float = 0.0
    line: str = field(default="graph")


class Unreadable(Exception):
    """tinygrad's realized value is in a form this plugin does not read."""


# ---------------------------------------------------------------------------------------------
# Which graphs are shadowed
# ---------------------------------------------------------------------------------------------


def _devices(u: UOp) -> tuple[str, ...]:
    if u.op is Ops.COPY:
        return u.arg if isinstance(u.arg, tuple) else (u.arg,)
    if u.op is Ops.BUFFER:
        d = u.device
        return d if isinstance(d, tuple) else (d,)
    return ()


def _stored_buffer(u: UOp) -> UOp:
    """The buffer a STORE's target view writes (through movement ops and AFTERs)."""
    while u.op is not Ops.BUFFER and u.src:
        u = u.src[0]
    return u


def graph_facts(t: Tensor) -> tuple[bool, str | None]:
    """(is the graph multi-device, why it has nothing to compare: None, or a NULL device, or a
    read of a buffer that holds no data yet, `Tensor.empty`, whose contents are undefined)."""
    multi = isinstance(t.device, tuple)
    no_data = None
    graph = t.uop.toposort()
    stored = {_stored_buffer(u.src[0]) for u in graph if u.op is Ops.STORE}
    for u in graph:
        devs = _devices(u)
        if u.op in MULTI_OPS or len(devs) > 1:
            multi = True
        for d in devs:
            if isinstance(d, str) and d.startswith(NO_DATA_DEVICES):
                no_data = f"{d.split(':')[0]} device has no data"
        if u.op is Ops.BUFFER and u not in stored and not _allocated(u):
            no_data = (
                no_data or "reads a buffer with no data yet (Tensor.empty: undefined contents)"
            )
    return multi, no_data


def _allocated(u: UOp) -> bool:
    """A data BUFFER with memory (Variables, ALU/LOCAL/REG buffers, are not data)."""
    return u.addrspace in SCRATCH_SPACES or u.realized is not None


def describe(t: Tensor) -> str:
    """A short name of the graph for the report: root op, shape, dtype, device(s)."""
    return f"{t.uop.op.name} {tuple(t.shape)} {t.dtype.name} on {t.device}"


# ---------------------------------------------------------------------------------------------
# tinygrad's value, read from its realized buffers without running anything of tinygrad's
# ---------------------------------------------------------------------------------------------


def _read_buffer(b: Buffer) -> np.ndarray:
    np_dtype = _to_np_dtype(b.dtype)
    if np_dtype is None:
        raise Unreadable(f"dtype {b.dtype} has no numpy dtype")
    if not b.is_allocated():
        raise Unreadable("buffer not allocated")
    return np.frombuffer(b.as_memoryview(allow_zero_copy=True), dtype=np_dtype).copy()


@dataclass
class _Read:
    """A realized view read back: `arrays` holds each device's array (`logical` False) or the
    one logical array (`logical` True: a single device, or above an UNSHARD)."""

    arrays: list[np.ndarray]
    logical: bool

    def map(self, f: Callable[[np.ndarray], np.ndarray]) -> _Read:
        return _Read([f(a) for a in self.arrays], self.logical)


def _movement(u: UOp, a: np.ndarray) -> np.ndarray:
    """tinygrad's movement op `u` on numpy array `a` (its static arguments)."""
    if u.op is Ops.RESHAPE:
        return a.reshape(tuple(int(s) for s in u.shape))
    if u.op is Ops.PERMUTE:
        return a.transpose(u.marg)
    if u.op is Ops.EXPAND:
        return np.broadcast_to(a, tuple(int(s) for s in u.shape))
    if u.op is Ops.SHRINK:  # tinygrad 0.14: (start, length) per axis
        return a[tuple(slice(int(lo), int(lo) + int(n)) for lo, n in u.marg)]
    assert u.op is Ops.FLIP
    return np.flip(a, [i for i, f in enumerate(u.marg) if f])


READ_MOVEMENT = frozenset({Ops.RESHAPE, Ops.PERMUTE, Ops.EXPAND, Ops.SHRINK, Ops.FLIP})
"""Movement ops a realized tensor may keep above its buffer (`tinygrad_value` replays them)."""


def _read(u: UOp) -> _Read:
    if u.op is Ops.BUFFER:
        realized = u.realized
        if realized is None:
            raise Unreadable("BUFFER not realized")
        if isinstance(realized, MultiBuffer):
            return _Read([_read_buffer(b) for b in realized.bufs], logical=False)
        return _Read([_read_buffer(realized)], logical=True)
    if u.op in READ_MOVEMENT:
        return _read(u.src[0]).map(lambda a: _movement(u, a))
    if u.op is Ops.AFTER:  # realized: its effects are done, its value is its target's
        return _read(u.src[0])
    if u.op is Ops.UNSHARD:
        return _Read([_unsharded(u, _read(u.src[0]).arrays)], logical=True)
    raise Unreadable(f"realized value is a {u.op.name}")


def _unsharded(u: UOp, local: list[np.ndarray]) -> np.ndarray:
    """UNSHARD(y, r0, .., rk)'s logical array from y's buffers: device d's buffer is part r_i(d)
    of axis u.arg[i] (one axis: `d`; a mesh: digits of d such as `d // 2`, `d % 2`). Along the
    devices that hold one part (replicas), the last one read wins (they are equal)."""
    full = np.zeros(tuple(int(s) for s in u.shape), local[0].dtype)
    for d, block in enumerate(local):
        at, rows = [slice(None)] * full.ndim, [slice(None)] * full.ndim
        for axis, r in zip(u.arg, u.src[1:], strict=True):
            try:
                part = bound_value(r, d, u.op.name)
            except UnsupportedGraph as e:
                raise Unreadable(f"UNSHARD over axes {u.arg}: {e.reason}") from e
            n = block.shape[axis]
            lo, hi = min(part * n, full.shape[axis]), min(part * n + n, full.shape[axis])
            at[axis], rows[axis] = slice(lo, hi), slice(0, hi - lo)
        full[tuple(at)] = block[tuple(rows)]
    return full


def tinygrad_value(u: UOp) -> np.ndarray:
    """The realized tensor's value in the form `Program` returns it (SPEC §6): a sharded value
    as its logical array, a value on several devices with a leading axis of devices."""
    value = _read(u)
    return value.arrays[0] if value.logical else np.stack(value.arrays)


VALUE_PRESERVING = frozenset(
    {Ops.COPY, Ops.CONTIGUOUS, Ops.CONTIGUOUS_BACKWARD, Ops.DETACH, Ops.UNSHARD, Ops.MSELECT}
    | READ_MOVEMENT
)
"""Ops whose elements are their source's (placement and movement)."""


def compared_dtype(u: UOp) -> DType:
    """The dtype a tensor's value is compared in: its own, or, when it is a BITCAST of floats
    (through copies, movement, a full store), those floats' dtype. tinygrad and xdsl-multi agree
    on float results within a tolerance, not bit for bit (their exp, log, sin differ in the last
    bits); an int view of floats would make every last bit count (tinygrad's test_bitcast)."""
    x = u
    while True:
        if x.op is Ops.AFTER and (stores := [s for s in x.src[1:] if s.op is Ops.STORE]):
            x = stores[-1].src[1]
        elif x.op in VALUE_PRESERVING:
            x = x.src[0]
        else:
            break
    src = x.src[0].dtype if x.op is Ops.BITCAST else None
    if src is not None and dtypes.is_float(src) and src.itemsize == u.dtype.itemsize:
        return src
    return u.dtype


def _as_dtype(ours: np.ndarray, theirs: np.ndarray, dt: DType) -> tuple[np.ndarray, np.ndarray]:
    """Both values viewed as `dt` (the bits of a bitcast seen as the floats they were)."""
    np_dtype = _to_np_dtype(dt)
    if np_dtype is None or np.dtype(np_dtype) == theirs.dtype:
        return ours, theirs
    return ours.view(np_dtype), theirs.view(np_dtype)


def _interpret(module: Any, inputs: list[np.ndarray]) -> tuple[np.ndarray, ...]:
    with compile_module(module, backend="interp") as prog:
        return prog(*inputs)


def nudged(inputs: list[np.ndarray]) -> list[np.ndarray]:
    """The inputs with every float element moved one ulp up (others unchanged)."""
    return [
        np.nextafter(a, np.inf).astype(a.dtype) if np.issubdtype(a.dtype, np.floating) else a
        for a in inputs
    ]


def mismatch(ours: np.ndarray, theirs: np.ndarray, dt: DType) -> str | None:
    """Why our value differs from tinygrad's (None: they agree)."""
    if ours.shape != theirs.shape:
        return f"shape {ours.shape} != tinygrad's {theirs.shape}"
    if ours.dtype != theirs.dtype and ours.dtype.itemsize == theirs.dtype.itemsize:
        ours = ours.view(theirs.dtype)
    if ours.dtype != theirs.dtype:
        return f"dtype {ours.dtype} != tinygrad's {theirs.dtype}"
    if dt in TOLERANCES:
        rtol, atol = TOLERANCES[dt]
        wide_ours, wide_theirs = ours.astype(np.float64), theirs.astype(np.float64)
        if np.allclose(wide_ours, wide_theirs, rtol=rtol, atol=atol, equal_nan=True):
            return None
        bad = ~np.isclose(wide_ours, wide_theirs, rtol=rtol, atol=atol, equal_nan=True)
    else:
        if np.array_equal(ours, theirs):
            return None
        bad = ours != theirs
    where = tuple(int(i[0]) for i in np.nonzero(bad))
    return (
        f"{int(bad.sum())} of {bad.size} elements differ; first at {where}: "
        f"ours {ours[where].item()!r}, tinygrad's {theirs[where].item()!r}"
    )


# ---------------------------------------------------------------------------------------------
# The plugin
# ---------------------------------------------------------------------------------------------


@dataclass
class _Pending:
    """Tensors of one realize imported as one module (compiled once), a record for each."""

    tensors: list[Tensor]
    records: list[GraphRecord]
    module: Any
    inputs: list[np.ndarray]
    started: float
    compared_as: list[DType] = field(default_factory=list)
    """Per tensor, the dtype its value is compared in (`compared_dtype`, taken before tinygrad
    replaces the graph by its buffers)."""
    mesh_devices: list[int | None] = field(default_factory=list)
    """Per tensor, the device count of a result sharded over a device mesh (else None), read
    before compiling lowers the module."""

    def __post_init__(self) -> None:
        self.compared_as = [compared_dtype(t.uop) for t in self.tensors]
        self.mesh_devices = _mesh_devices(self.module, len(self.tensors))


def _mesh_devices(module: Any, count: int) -> list[int | None]:
    if module is None:
        return [None] * count
    outputs = module.body.block.last_op.function_type.outputs.data
    return [
        t.encoding.num_devices
        if isinstance(t, TensorType) and isinstance(t.encoding, ShardAttr) and t.encoding.is_mesh
        else None
        for t in outputs
    ]


def _as_realized(ours: np.ndarray, theirs: np.ndarray, mesh_devices: int | None) -> np.ndarray:
    """Our value in the form tinygrad realized it: tinygrad 0.14.0 realizes a value sharded on
    several axes as the whole value on every device (its buffer loses the UNSHARD), so our
    mesh result (the logical value) stands for each device's buffer."""
    if mesh_devices is not None and theirs.shape == (mesh_devices, *ours.shape):
        return np.broadcast_to(ours, theirs.shape)
    return ours


def _error_detail(e: BaseException) -> str:
    return "".join(traceback.format_exception(e))[-4000:]


def _import_or_none(tensors: list[Tensor]) -> tuple[Any, list[np.ndarray]] | None:
    """The tensors imported together, or None (then each is imported on its own)."""
    try:
        return import_tensors(*tensors)
    except Exception:  # noqa: BLE001 - each tensor gets its own verdict instead
        return None


class ShadowPlugin:
    """Records outcomes (both modes) and shadows realizations (`shadow` mode)."""

    def __init__(self, report: str, shadow: bool) -> None:
        self.report_path = report
        self.shadow = shadow
        self.test = "<collection>"
        self.index = 0
        self.busy = False
        self.outcomes: dict[str, list[str]] = {}
        self._original: Callable[..., Tensor] | None = None

    # the report

    def write(self, line: dict[str, object]) -> None:
        with open(self.report_path, "a") as f:
            f.write(json.dumps(line) + "\n")

    # realize, wrapped

    def install(self) -> None:
        original = Tensor.realize
        self._original = original
        plugin = self

        def realize(self: Tensor, *lst: Tensor, **kwargs: Any) -> Tensor:
            return plugin.realize(original, self, *lst, **kwargs)

        realize.__doc__ = original.__doc__
        Tensor.realize = realize  # type: ignore[method-assign]

    def uninstall(self) -> None:
        if self._original is not None:
            Tensor.realize = self._original  # type: ignore[method-assign]
            self._original = None

    def realize(
        self, original: Callable[..., Tensor], t: Tensor, *lst: Tensor, **kwargs: Any
    ) -> Tensor:
        if self.busy:
            return original(t, *lst, **kwargs)
        self.busy = True
        try:
            pending = self._capture([x for x in (t, *lst) if self._shadowed(x)])
        finally:
            self.busy = False
        result = original(t, *lst, **kwargs)
        self.busy = True
        try:
            for p in pending:
                self._check(p)
        finally:
            self.busy = False
        return result

    def _shadowed(self, t: Tensor) -> bool:
        """Whether tinygrad will realize `t` and its graph is multi-device (one with nothing to
        compare gets its not-compared record here)."""
        try:
            if t.uop.is_virtual or t.uop.has_buffer_identity():
                return False
            multi, no_data = graph_facts(t)
        except Exception:  # noqa: BLE001 - tinygrad reports what is wrong with this tensor
            return False
        if not multi:
            return False
        why = no_data
        if realize_engine.capturing:  # first: inside a capture, no buffer has data yet
            why = "TinyJit capture (tinygrad runs the kernels later, as the captured graph)"
        if why is not None:
            record = self._new_record(t)
            record.kind, record.reason = "not-compared", why
            self.write(asdict(record))
        return why is None

    def _new_record(self, t: Tensor) -> GraphRecord:
        record = GraphRecord(self.test, self.index, "error", "?")
        self.index += 1
        try:
            record.graph = describe(t)
        except Exception as e:  # noqa: BLE001 - a graph tinygrad cannot describe is still a record
            record.graph = f"<{type(e).__name__}>"
        return record

    def _capture(self, tensors: list[Tensor]) -> list[_Pending]:
        """Import the tensors before tinygrad realizes them: all in one module, or else (one of
        them does not import) each on its own, so each gets its own verdict."""
        if not tensors:
            return []
        started = time.perf_counter()
        together = _import_or_none(tensors) if len(tensors) > 1 else None
        if together is not None:
            records = [self._new_record(t) for t in tensors]
            return [_Pending(tensors, records, *together, started)]
        pending = []
        for t in tensors:
            started = time.perf_counter()
            record = self._new_record(t)
            try:
                module, inputs = import_tensors(t)
            except UnsupportedGraph as e:
                record.kind, record.reason = "unsupported", f"{e.op}: {e.reason}"
            except Exception as e:  # noqa: BLE001 - our bug: recorded, never raised
                record.reason, record.detail = f"import: {type(e).__name__}", _error_detail(e)
            else:
                pending.append(_Pending([t], [record], module, inputs, started))
                continue
            record.seconds = time.perf_counter() - started
            self.write(asdict(record))
        return pending

    def _check(self, p: _Pending) -> None:
        """Run the imported module and compare each result with tinygrad's realized value."""
        theirs: list[np.ndarray | None] = []
        for t, record in zip(p.tensors, p.records, strict=True):
            try:
                theirs.append(tinygrad_value(t.uop))
            except Unreadable as e:
                record.kind, record.reason = "not-compared", f"tinygrad's value: {e}"
                theirs.append(None)
            except Exception as e:  # noqa: BLE001 - recorded, never raised
                record.reason = f"reading tinygrad's value: {type(e).__name__}"
                record.detail = _error_detail(e)
                theirs.append(None)
        if any(v is not None for v in theirs):
            try:
                pristine = p.module.clone()  # for the interpreter: compiling lowers in place
                with compile_module(p.module, backend="threads") as prog:
                    ours = prog(*p.inputs)
                    others = {
                        "with the float inputs one ulp up": lambda: prog(*nudged(p.inputs)),
                        "in the reference interpreter": lambda: _interpret(pristine, p.inputs),
                    }
                    self._compare(p, ours, theirs, others)
            except CompileError as e:
                self._compile_failed(p, theirs, e)
            except Exception as e:  # noqa: BLE001 - our bug: recorded, never raised
                for record, value in zip(p.records, theirs, strict=True):
                    if value is not None:
                        record.kind = "error"
                        record.reason = f"compile or run: {type(e).__name__}"
                        record.detail = _error_detail(e)
        seconds = (time.perf_counter() - p.started) / len(p.records)
        for record in p.records:
            record.seconds = seconds
            self.write(asdict(record))

    @staticmethod
    def _compile_failed(p: _Pending, theirs: list[np.ndarray | None], e: CompileError) -> None:
        """A graph that imports but does not compile is an error (our bug)."""
        for record, value in zip(p.records, theirs, strict=True):
            if value is None:
                continue
            record.kind, record.reason = "error", "compile or run: CompileError"
            record.detail = _error_detail(e)

    @staticmethod
    def _compare(
        p: _Pending,
        ours: tuple[np.ndarray, ...],
        theirs: list[np.ndarray | None],
        others: dict[str, Callable[[], tuple[np.ndarray, ...]]],
    ) -> None:
        """Each result against tinygrad's. A float mismatch is checked for ill-conditioning
        with `others`, other evaluations of ours (the inputs one ulp up; the reference
        interpreter, which sums in another order): when one of them moves our own result
        beyond the tolerance, rounding decides the answer (Adam's first step on a gradient that
        is zero up to rounding), and the graph is not compared."""
        done: dict[str, tuple[np.ndarray, ...]] = {}
        for i, (dt, record, value) in enumerate(zip(p.compared_as, p.records, theirs, strict=True)):
            if value is None:
                continue
            mine = _as_realized(np.asarray(ours[i]), value, p.mesh_devices[i])
            why = mismatch(*_as_dtype(mine, value, dt), dt)
            record.kind = "matched" if why is None else "mismatch"
            record.reason = "" if why is None else "values differ"
            record.detail = why or ""
            if why is None or dt not in TOLERANCES:
                continue
            for how, evaluate in others.items():
                if how not in done:
                    done[how] = evaluate()
                again = _as_realized(np.asarray(done[how][i]), value, p.mesh_devices[i])
                moved = mismatch(*_as_dtype(again, mine, dt), dt)
                if moved is not None:
                    record.kind = "not-compared"
                    record.reason = (
                        "ill-conditioned: our own result moves beyond the tolerance when "
                        "computed again with the float inputs one ulp up or in the interpreter"
                    )
                    record.detail = f"against tinygrad: {why}; ours {how} against ours: {moved}"
                    break

    # pytest hooks

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Generator[None, object, object]:
        self.test, self.index = item.nodeid, 0
        try:
            return (yield)
        finally:
            self.write(
                {
                    "line": "outcome",
                    "test": item.nodeid,
                    "outcome": self.outcomes.get(item.nodeid, []),
                }
            )
            self.test = "<between tests>"

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        outcome = report.outcome
        if hasattr(report, "wasxfail"):
            outcome = "xfailed" if report.skipped else "xpassed"
        if report.when != "call" and outcome == "passed":
            return
        self.outcomes.setdefault(report.nodeid, []).append(f"{report.when}:{outcome}")

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        if self.shadow:
            self.install()

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.uninstall()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("xdsl-shadow", "xdsl-multi's shadow of tinygrad's tests")
    group.addoption("--xdsl-shadow-report", default=None, help="the JSON-lines report to append to")
    group.addoption(
        "--xdsl-shadow-mode",
        choices=["shadow", "outcomes"],
        default="shadow",
        help="shadow: run every multi-device graph through xdsl-multi; outcomes: only record outcomes",
    )


def pytest_configure(config: pytest.Config) -> None:
    report = config.getoption("--xdsl-shadow-report")
    if report is None:
        return
    checkout = os.path.realpath(str(config.rootpath))
    if os.path.realpath(tinygrad.__file__).startswith(checkout + os.sep):
        raise pytest.UsageError(
            f"tinygrad is imported from the checkout ({tinygrad.__file__}), not the installed "
            "tinygrad 0.14.0: run the shadow runner from outside the checkout"
        )
    shadow = config.getoption("--xdsl-shadow-mode") == "shadow"
    config.pluginmanager.register(ShadowPlugin(report, shadow), "xdsl-shadow")

"""The `mpi` backend: device r's schedule runs on MPI rank r (mpi4py; `pip install
'xdsl-multi[mpi]'` brings the MPICH wheel, whose `mpiexec` runs every rank on this host).

```python
program = MpiProgram(module)                  # every rank; needs exactly N ranks
outputs = program(inputs if rank == 0 else None)   # collective; rank 0 gets the outputs
```

`__call__` is `scatter` (rank 0 places the logical inputs and sends each rank its local
arguments) + `run_local` (each rank runs its device) + `gather` (the devices that hold a
result send it to rank 0, which assembles the logical outputs). A benchmark scatters once and
calls `run_local` repeatedly.

Sends and receives are MPI point-to-point messages on a private communicator, with the tag
equal to the channel; a send does not wait for its receive (`Isend`; the memory plan keeps the
buffer untouched until the run ends, when the sends are completed). A receive that waits longer
than `recv_timeout` seconds, and a kernel or step that fails, end the whole job with
`MPI_Abort` after one line on stderr naming the rank, the step and (for a receive) the missing
sender and channel: an MPI job cannot end one rank alone without leaving the others waiting.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Sequence
from typing import Any, NoReturn, Self

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from xdsl_multi.runtime.buffers import BufferType, aligned_empty
from xdsl_multi.runtime.executor import (
    DEFAULT_RECV_TIMEOUT,
    ExecutionError,
    LocalValue,
    Placed,
    compile_program,
)
from xdsl_multi.runtime.interpreter.schedulers import rows_from_owners
from xdsl_multi.runtime.kernels import KernelLibrary
from xdsl_multi.runtime.schedule import Collective, Recv, ScheduleError, Send, num_devices

ABORT_FLUSH_DELAY = 0.3
"""Seconds between writing the failure line and MPI_Abort: mpiexec forwards a rank's stderr
through a pipe, and an abort can end the job before the line is forwarded (seen under load)."""

_SCALARS_TAG = 1 << 20
"""Scatter tag of a rank's scalar arguments (array arguments use their position)."""


def mpi_module() -> Any:
    """mpi4py's MPI module (initializes MPI), or an ImportError saying how to get it."""
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise ImportError(
            "the mpi backend needs mpi4py and an MPI library: pip install 'xdsl-multi[mpi]' "
            f"(mpi4py and the mpich wheel) ({e})"
        ) from None
    return MPI


def _bytes(x: np.ndarray) -> Any:
    """`x`'s memory as an MPI byte buffer (every dtype, bool and float16 included)."""
    from mpi4py import MPI

    return [x.reshape(-1).view(np.uint8), MPI.BYTE]


_MPI_REDUCIBLE = frozenset(
    np.dtype(t) for t in ("float32", "float64", "int8", "int16", "int32", "int64")
)
"""The dtypes MPI_Allreduce reduces with SUM, PROD and MAX as numpy does."""


class RankCountError(Exception):
    """mpiexec started a number of ranks other than the program's device count."""


class _Watchdog:
    """Ends the job when a blocking MPI call outlives its deadline: MPI cannot time out a
    receive, so a thread watches the main one."""

    def __init__(self, fail: Any) -> None:
        self._fail = fail
        self._cond = threading.Condition()
        self._armed: tuple[float, str] | None = None
        self._thread: threading.Thread | None = None
        self._stopped = False

    def arm(self, seconds: float, message: str) -> None:
        with self._cond:
            self._armed = (time.monotonic() + seconds, message)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._watch, name="xdsl-multi-mpi-watchdog", daemon=True
                )
                self._thread.start()
            self._cond.notify_all()

    def disarm(self) -> None:
        with self._cond:
            self._armed = None

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()

    def _watch(self) -> None:
        with self._cond:
            while not self._stopped:
                if self._armed is None:
                    self._cond.wait()
                    continue
                deadline, message = self._armed
                remaining = deadline - time.monotonic()
                if remaining > 0:
                    self._cond.wait(remaining)
                    continue
                self._fail(message)


class _MpiTransport:
    receives_into_buffer = True

    def __init__(self, program: MpiProgram) -> None:
        self.p = program
        self.requests: list[Any] = []

    def collective(self, index: int, step: Collective, value: np.ndarray, out: np.ndarray) -> bool:
        """MPI_Allreduce of the buffers themselves (no copy); a dtype MPI cannot reduce
        (float16) is gathered and reduced here, in device order. An all-gather is
        MPI_Allgather(v), a broadcast MPI_Bcast, on the buffers as bytes."""
        from mpi4py import MPI

        p = self.p
        p.watchdog.arm(
            p.recv_timeout,
            str(
                ExecutionError(
                    p.runner.device,
                    index,
                    step.describe(),
                    f"the other ranks did not reach it after {p.recv_timeout:g} s",
                )
            ),
        )
        if step.members and p.rank not in step.members:  # an allreduce over some devices
            p.watchdog.disarm()
            out.fill(0)
            return True
        comm = p.reduce_comm(step)
        try:
            if step.op == "allgather":
                self._allgather(step, value, out)
            elif step.op == "gather":
                self._gather(step, value, out)
            elif step.op == "scatter":
                self._scatter(step, value, out)
            elif step.op == "alltoall":
                self._alltoall(step, value, out)
            elif step.op == "broadcast":
                if p.runner.device == step.root:
                    np.copyto(out, value)
                p.data_comm.Bcast(_bytes(out), root=step.root)
            elif step.hierarchical and (value.dtype == np.bool_ or value.dtype in _MPI_REDUCIBLE):
                self._hierarchical(step, value, out)
            elif value.dtype == np.bool_:
                op = MPI.LAND if step.kind == "mul" else MPI.LOR
                comm.Allreduce([value, MPI.C_BOOL], [out, MPI.C_BOOL], op=op)
            elif value.dtype in _MPI_REDUCIBLE:
                op = {"add": MPI.SUM, "mul": MPI.PROD, "max": MPI.MAX}[step.kind]
                comm.Allreduce(value, out, op=op)
            else:
                parts = np.empty((comm.Get_size(), *value.shape), value.dtype)
                comm.Allgather(_bytes(np.ascontiguousarray(value)), _bytes(parts))
                ufunc = {"add": np.add, "mul": np.multiply, "max": np.maximum}[step.kind]
                np.copyto(out, parts[0])
                for part in parts[1:]:
                    ufunc(out, part, out=out)
        finally:
            p.watchdog.disarm()
        return True

    def _hierarchical(self, step: Collective, value: np.ndarray, out: np.ndarray) -> None:
        """MPI_Reduce to the leader on the minor group's communicator, MPI_Allreduce (in
        place) on the leaders' communicator, MPI_Bcast from the leader on the minor group's.
        (A dtype MPI cannot reduce takes the one-communicator path of its whole group.)"""
        from mpi4py import MPI

        p = self.p
        minor, leaders = p.hierarchy_comms(step)
        if value.dtype == np.bool_:
            op = MPI.LAND if step.kind == "mul" else MPI.LOR
            send, recv = [value, MPI.C_BOOL], [out, MPI.C_BOOL]
        else:
            op = {"add": MPI.SUM, "mul": MPI.PROD, "max": MPI.MAX}[step.kind]
            send, recv = value, out
        minor.Reduce(send, recv, op=op, root=0)
        if leaders != MPI.COMM_NULL:
            leaders.Allreduce(MPI.IN_PLACE, recv, op=op)
        minor.Bcast(recv, root=0)

    def _allgather(self, step: Collective, value: np.ndarray, out: np.ndarray) -> None:
        """MPI_Allgather into `out` itself (any dtype, as bytes); MPI_Allgatherv with each
        rank's block at its position when the positions are not the ranks' order."""
        comm = self.p.data_comm
        block = np.ascontiguousarray(value)
        if step.positions == tuple(range(len(step.positions))):
            comm.Allgather(_bytes(block), _bytes(out))
            return
        from mpi4py import MPI

        size = block.nbytes
        counts = [size] * len(step.positions)
        displs = [k * size for k in step.positions]
        recv = out.reshape(-1).view(np.uint8)
        comm.Allgatherv(_bytes(block), [recv, counts, displs, MPI.BYTE])

    def _gather(self, step: Collective, value: np.ndarray, out: np.ndarray) -> None:
        """MPI_Gatherv into the root's `out` itself, each rank's block at its position; the
        other ranks' `out` is zeros."""
        from mpi4py import MPI

        block = np.ascontiguousarray(value)
        counts = [block.nbytes] * len(step.positions)
        displs = [k * block.nbytes for k in step.positions]
        if self.p.runner.device == step.root:
            recv = [out.reshape(-1).view(np.uint8), counts, displs, MPI.BYTE]
        else:
            out.fill(0)
            recv = None
        self.p.data_comm.Gatherv(_bytes(block), recv, root=step.root)

    def _scatter(self, step: Collective, value: np.ndarray, out: np.ndarray) -> None:
        """MPI_Scatterv from the root's buffer itself: rank e gets entry `positions[e]`."""
        from mpi4py import MPI

        size = out.nbytes
        send = None
        if self.p.runner.device == step.root:
            whole = np.ascontiguousarray(value).reshape(-1).view(np.uint8)
            counts = [size] * len(step.positions)
            send = [whole, counts, [k * size for k in step.positions], MPI.BYTE]
        self.p.data_comm.Scatterv(send, _bytes(out), root=step.root)

    def _alltoall(self, step: Collective, value: np.ndarray, out: np.ndarray) -> None:
        """MPI_Alltoallv on the buffers themselves: rank e gets entry `positions[e]` of my
        buffer, and what rank e sends me lands in entry `positions[e]` of my `out`. The rows
        form: counts and displacements from the two position tables, only the rows each
        pair's ranges share (zero for most pairs)."""
        from mpi4py import MPI

        if step.rows:
            self._rows_alltoall(step, value, out)
            return

        n = len(step.positions)
        block = np.ascontiguousarray(value)
        size = block.nbytes // n
        counts = [size] * n
        displs = [k * size for k in step.positions]  # to rank e: my entry positions[e]
        senders = step.sources or step.positions  # from rank e: into entry sources[e]
        send = [block.reshape(-1).view(np.uint8), counts, displs, MPI.BYTE]
        recv = [out.reshape(-1).view(np.uint8), counts, [i * size for i in senders], MPI.BYTE]
        self.p.data_comm.Alltoallv(send, recv)

    def _rows_alltoall(self, step: Collective, value: np.ndarray, out: np.ndarray) -> None:
        """`alltoall ... rows S -> T of L` as MPI_Alltoallv of bytes: what I receive from the
        owners of my rows, at their rows' place in `out` (the rest zeros), and what I send to
        the ranks whose rows overlap my block (found from their positions: O(n) per rank)."""
        from mpi4py import MPI

        n, me = len(step.positions), self.p.runner.device
        s, t, _ = step.rows
        block = np.ascontiguousarray(value)
        row = block.nbytes // s
        send_counts, send_displs = [0] * n, [0] * n
        recv_counts, recv_displs = [0] * n, [0] * n
        owner = {i: e for e, i in enumerate(step.sources)}
        mine = step.sources[me]
        k = step.positions[me]
        for i, lo, hi in rows_from_owners(step.rows, k):
            e = owner[i]
            recv_counts[e], recv_displs[e] = (hi - lo) * row, (lo - k * t) * row
        for e, ke in enumerate(step.positions):
            lo, hi = max(mine * s, ke * t), min(mine * s + s, ke * t + t, step.rows[2])
            if lo < hi:
                send_counts[e], send_displs[e] = (hi - lo) * row, (lo - mine * s) * row
        out.fill(0)
        send = [block.reshape(-1).view(np.uint8), send_counts, send_displs, MPI.BYTE]
        recv = [out.reshape(-1).view(np.uint8), recv_counts, recv_displs, MPI.BYTE]
        self.p.data_comm.Alltoallv(send, recv)

    def send(self, index: int, step: Send, value: np.ndarray) -> None:
        self.requests.append(
            self.p.data_comm.Isend(_bytes(value), dest=step.dest, tag=step.channel)
        )

    def recv(self, index: int, step: Recv, out: np.ndarray | None) -> np.ndarray:
        assert out is not None
        p = self.p
        runner = p.runner
        p.watchdog.arm(
            p.recv_timeout,
            str(
                ExecutionError(
                    runner.device,
                    index,
                    step.describe(),
                    f"no message from device {step.source} on channel {step.channel} after "
                    f"{p.recv_timeout:g} s",
                )
            ),
        )
        try:
            p.data_comm.Recv(_bytes(out), source=step.source, tag=step.channel)
        finally:
            p.watchdog.disarm()
        return out

    def finish(self) -> None:
        if not self.requests:
            return
        from mpi4py import MPI

        p = self.p
        p.watchdog.arm(
            p.recv_timeout,
            f"device {p.rank}: its sends were not received after {p.recv_timeout:g} s",
        )
        try:
            MPI.Request.Waitall(self.requests)
        finally:
            p.watchdog.disarm()
        self.requests = []


class MpiProgram:
    """A kernel-level program on MPI ranks: this rank compiles and runs its own device."""

    def __init__(
        self,
        module: ModuleOp,
        kernels: KernelLibrary | None = None,
        *,
        comm: Any = None,
        recv_timeout: float = DEFAULT_RECV_TIMEOUT,
        error_prefix: str = "xdsl-multi",
        entry: str = "main",
    ) -> None:
        MPI = mpi_module()
        self._mpi = MPI
        self.comm = comm if comm is not None else MPI.COMM_WORLD
        self.rank: int = self.comm.Get_rank()
        self.size: int = self.comm.Get_size()
        self.recv_timeout = recv_timeout
        self.error_prefix = error_prefix
        n = num_devices(module)
        if self.size != n:
            raise RankCountError(
                f"the program runs on {n} devices, but there are {self.size} MPI ranks "
                f"(run it with mpiexec -n {n})"
            )
        self.info, self.schedules, _, runners = compile_program(
            module, "mpi", kernels, [self.rank], entry
        )
        tag_ub = self.comm.Get_attr(MPI.TAG_UB)
        for s in self.schedules:
            for step in s.steps:
                if isinstance(step, Send) and step.channel > tag_ub:
                    raise ScheduleError(
                        f"device {s.device}: channel {step.channel} is above MPI's largest "
                        f"tag {tag_ub}"
                    )
            for reg in s.results:
                if reg not in s.step_reg_types():
                    raise ScheduleError(
                        f"device {s.device}: @main returns a value that is not a buffer"
                    )
        self.runner = runners[self.rank]
        self.data_comm = self.comm.Dup()
        self.io_comm = self.comm.Dup()
        self.group_comms = self._split_by_groups()
        self.member_comms = self._split_member_comms()
        self.watchdog = _Watchdog(self.fail)
        self._never_set = threading.Event()

    def _split_by_groups(self) -> dict[tuple[str, tuple[int, ...], tuple[int, ...]], Any]:
        """One communicator per kind of grouped allreduce (mesh, reduced dims) of this rank's
        schedule, made once per program: `data_comm` split by the group (the ranks whose
        other mesh coordinates equal), ranks in device order. Every rank runs the same SPMD
        schedule, so every rank makes the same splits in the same order."""
        out: dict[tuple[str, tuple[int, ...], tuple[int, ...]], Any] = {}
        for step in self.schedules[self.rank].steps:
            if not (isinstance(step, Collective) and step.group_mesh):
                continue
            mesh, dims = step.group_mesh, step.group_dims
            if step.hierarchical:  # the minor groups' and the leaders' communicators
                minor = step.minor_group(self.rank)
                if ("group", mesh, tuple(sorted(dims)[1:])) not in out:
                    key = ("group", mesh, tuple(sorted(dims)[1:]))
                    out[key] = self.data_comm.Split(minor[0], self.rank)
                if ("leaders", mesh, dims) not in out:
                    leader = minor[0] == self.rank
                    color = step.leaders(self.rank)[0] if leader else self._mpi.UNDEFINED
                    out[("leaders", mesh, dims)] = self.data_comm.Split(color, self.rank)
            if ("group", mesh, dims) not in out:
                out[("group", mesh, dims)] = self.data_comm.Split(step.color(self.rank), self.rank)
        return out

    def _split_member_comms(self) -> dict[tuple[int, ...], Any]:
        """One communicator per `members` table of the schedule's allreduces, made once per
        program (MPI_Comm_split of the data communicator, collective: every rank walks the
        same collectives in the same order), ranked in the table's order; non-members get
        none (MPI_UNDEFINED)."""
        MPI = self._mpi
        comms: dict[tuple[int, ...], Any] = {}
        for step in self.runner.schedule.steps:
            if not isinstance(step, Collective) or not step.members or step.members in comms:
                continue
            member = self.rank in step.members
            color = 0 if member else MPI.UNDEFINED
            key = step.members.index(self.rank) if member else 0
            comms[step.members] = self.data_comm.Split(color, key)
        return comms

    def hierarchy_comms(self, step: Collective) -> tuple[Any, Any]:
        """A hierarchical allreduce's communicators: its minor group's (the leader is rank
        0 there) and its leaders' (COMM_NULL on the other ranks)."""
        mesh, dims = step.group_mesh, step.group_dims
        minor = self.group_comms[("group", mesh, tuple(sorted(dims)[1:]))]
        return minor, self.group_comms[("leaders", mesh, dims)]

    def reduce_comm(self, step: Collective) -> Any:
        """The communicator an allreduce runs on: its members', its group's, or every rank's."""
        if step.members:
            return self.member_comms[step.members]
        if step.group_mesh:
            return self.group_comms[("group", step.group_mesh, step.group_dims)]
        return self.data_comm

    @property
    def num_devices(self) -> int:
        return len(self.schedules)

    def close(self) -> None:
        """Free the program's communicators and stop its watchdog (not collective)."""
        self.watchdog.stop()
        for comm in (*self.group_comms.values(), *self.member_comms.values(), self.data_comm,
                     self.io_comm):
            if comm != self._mpi.COMM_NULL:
                comm.Free()
        self.group_comms, self.member_comms = {}, {}
        self.data_comm = self.io_comm = self._mpi.COMM_NULL

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def peak_bytes(self) -> int:
        """The most bytes this rank's schedule has live at once."""
        return self.runner.schedule.plan.peak_bytes

    def fail(self, message: str, code: int = 1) -> NoReturn:
        """End the whole job: one line on stderr, then MPI_Abort."""
        sys.stdout.flush()
        sys.stderr.write(f"{self.error_prefix}: error: rank {self.rank}: {message}\n")
        sys.stderr.flush()
        time.sleep(ABORT_FLUSH_DELAY)
        self.comm.Abort(code)
        raise SystemExit(code)  # not reached

    # -- the three phases ---------------------------------------------------------------------

    def place(self, inputs: Sequence[object]) -> Placed:
        """Rank 0: every device's local arguments (raises InterpreterError for bad inputs)."""
        logical = self.info.logical_inputs(inputs)
        return [self.info.place_device(s, logical) for s in self.schedules]

    def scatter(self, placed: Placed | None) -> list[LocalValue]:
        """Collective: rank 0 sends each rank its local arguments; this rank's are returned."""
        specs = self.runner.schedule.args
        if self.rank == 0:
            assert placed is not None and len(placed) == self.size
            for r in range(1, self.size):
                scalars = []
                for i, value in enumerate(placed[r]):
                    if isinstance(value, np.ndarray):
                        self.io_comm.Send(_bytes(value), dest=r, tag=i)
                    else:
                        scalars.append(value)
                self.io_comm.send(scalars, dest=r, tag=_SCALARS_TAG)
            return list(placed[0])
        arrays: dict[int, np.ndarray] = {}
        for i, spec in enumerate(specs):
            if not spec.scalar:
                arrays[i] = aligned_empty(spec.btype.shape, spec.btype.dtype)
                self.io_comm.Recv(_bytes(arrays[i]), source=0, tag=i)
        scalars = iter(self.io_comm.recv(source=0, tag=_SCALARS_TAG))
        return [arrays[i] if i in arrays else next(scalars) for i in range(len(specs))]

    def run_local(self, args: Sequence[LocalValue]) -> list[LocalValue]:
        """Run this rank's device; its local results (device memory, valid until the next
        run). A failure ends the job."""
        try:
            return self.runner.run(args, _MpiTransport(self), self._never_set)
        except ExecutionError as e:
            self.fail(str(e))

    def gather(self, local: Sequence[LocalValue]) -> list[np.ndarray] | None:
        """Collective: the holders of each result send it to rank 0, which returns the
        logical outputs (other ranks return None)."""
        n_out = len(self.info.signature.outputs.data)
        holders = [self.info.holders(j) for j in range(n_out)]
        if self.rank != 0:
            for j in range(n_out):
                if self.rank in holders[j]:
                    self.io_comm.Send(_bytes(np.asarray(local[j])), dest=0, tag=j)
            return None
        per_device: list[list[LocalValue] | None] = [None] * self.size
        per_device[0] = list(local)
        for r in range(1, self.size):
            sched = self.schedules[r]
            types = sched.step_reg_types()
            results: list[LocalValue] = []
            for j, reg in enumerate(sched.results):
                if r in holders[j]:
                    btype: BufferType = types[reg]
                    buf = np.empty(btype.shape, btype.dtype)
                    self.io_comm.Recv(_bytes(buf), source=r, tag=j)
                    results.append(buf)
                else:
                    results.append(np.zeros(0))
            per_device[r] = results
        return self.info.gather(per_device)

    def __call__(self, inputs: Sequence[object] | None) -> list[np.ndarray] | None:
        """Collective: rank 0 gives the logical inputs and gets the logical outputs. Bad
        inputs raise on every rank (InterpreterError on rank 0, RuntimeError elsewhere)."""
        placed: Placed | None = None
        problem: BaseException | None = None
        if self.rank == 0:
            try:
                placed = self.place(inputs if inputs is not None else [])
            except Exception as e:  # noqa: BLE001 - re-raised below, after telling the others
                problem = e
        if self.io_comm.bcast(None if problem is None else str(problem), root=0) is not None:
            if problem is not None:
                raise problem
            raise RuntimeError("rank 0 could not place the inputs")
        local = self.run_local(self.scatter(placed))
        return self.gather(local)

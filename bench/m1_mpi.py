"""BENCH M1: W6 (x (N, 2^22) sharded on axis 0; x.sum(axis=0) on every device) on the mpi
backend in SPMD mode, against mpi4py's own `Allreduce` of the same buffer in the same job
(issue 13). Run it under MPI:

    mpiexec -n 2 python -m bench.m1_mpi
    mpiexec -n 4 python -m bench.m1_mpi --allreduce ring

Every rank compiles the one SPMD module (the pipeline, then the JIT with a cold cache) and runs
it with d = its rank. Also measured, once: the alternative where rank 0 compiles alone (object
code into a shared cache folder) and the other ranks then take the object code from it. Steady
state: inputs scattered once, one warm-up, >= 10 timed runs, each between two barriers; min
and median of the slowest rank. Rank 0 checks the result against numpy before timing and
prints one table.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time

import numpy as np
from mpi4py import MPI

from xdsl_multi.dialects import make_context
from xdsl_multi.dialects.parsing import parse_mlir
from xdsl_multi.lowering import jit
from xdsl_multi.pipeline import lower_for_runtime
from xdsl_multi.runtime.backends.mpi import MpiProgram
from xdsl_multi.runtime.kernels import JitKernels

COLS = 1 << 22


def w6_text(n: int) -> str:
    devs = ", ".join(f'"CPU:{i}"' for i in range(n))
    t = f"tensor<{n}x{COLS}xf32, #multi.shard<[{devs}], axis = 0>>"
    r = f"tensor<1x{COLS}xf32, #multi.on<[{devs}]>>"
    return (
        f"builtin.module {{\n  func.func @main(%x: {t}) -> {r} {{\n"
        f"    %s = tg.reduce add %x [0] : {t} -> {r}\n"
        f"    func.return %s : {r}\n  }}\n}}\n"
    )


def compiled(n: int, allreduce: str, cache: jit.KernelCache) -> tuple[object, JitKernels]:
    module = parse_mlir(make_context(), w6_text(n))
    lower_for_runtime(module, spmd=True, options={"multi-to-devidx": f"allreduce={allreduce}"})
    return module, JitKernels(module, cache=cache)


def timed(comm: MPI.Comm, f, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        comm.Barrier()
        t = time.perf_counter()
        f()
        comm.Barrier()
        out.append(comm.allreduce(time.perf_counter() - t, op=MPI.MAX))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--allreduce", default="naive")
    ap.add_argument("--runs", type=int, default=10)
    a = ap.parse_args()
    comm = MPI.COMM_WORLD
    rank, n = comm.Get_rank(), comm.Get_size()

    compiled(n, a.allreduce, jit.KernelCache(disk=False))  # warm the process (imports, JIT)
    # every rank compiles the one module, cold
    comm.Barrier()
    t = time.perf_counter()
    module, kernels = compiled(n, a.allreduce, jit.KernelCache(disk=False))
    every_rank = comm.allreduce(time.perf_counter() - t, op=MPI.MAX)

    # rank 0 compiles alone, the others take its object code from a shared folder
    folder = comm.bcast(tempfile.mkdtemp(prefix="m1-") if rank == 0 else None, root=0)
    comm.Barrier()
    t = time.perf_counter()
    if rank == 0:
        compiled(n, a.allreduce, jit.KernelCache(folder))
    comm.Barrier()
    if rank != 0:
        compiled(n, a.allreduce, jit.KernelCache(folder))
    rank0_then_others = comm.allreduce(time.perf_counter() - t, op=MPI.MAX)

    x = np.random.default_rng(6).standard_normal((n, COLS)).astype(np.float32)
    with MpiProgram(module, kernels) as program:
        outputs = program([x] if rank == 0 else None)
        if rank == 0:
            assert outputs is not None
            want = x.sum(axis=0, keepdims=True)
            for k in range(n):
                np.testing.assert_allclose(outputs[0][k], want, rtol=1e-4, atol=1e-3)
        local = program.scatter(program.place([x]) if rank == 0 else None)
        program.run_local(local)
        ours = timed(comm, lambda: program.run_local(local), a.runs)

    row = np.ascontiguousarray(x[rank : rank + 1])
    out = np.empty_like(row)
    comm.Allreduce(row, out, op=MPI.SUM)
    theirs = timed(comm, lambda: comm.Allreduce(row, out, op=MPI.SUM), a.runs)
    if rank == 0:
        np.testing.assert_allclose(out, x.sum(axis=0, keepdims=True), rtol=1e-4, atol=1e-3)
        print(f"M1 W6 N={n} allreduce={a.allreduce} (times in ms; slowest rank)")
        print("| impl | min | median |")
        print("|---|---|---|")
        for name, ts in (("ours (mpi, spmd)", ours), ("mpi4py Allreduce", theirs)):
            print(f"| {name} | {min(ts) * 1e3:.2f} | {statistics.median(ts) * 1e3:.2f} |")
        print(f"ours / mpi4py (min): {min(ours) / min(theirs):.2f}")
        print(
            f"compile: every rank compiles {every_rank:.2f} s; rank 0 compiles, the others "
            f"take its object code {rank0_then_others:.2f} s"
        )


if __name__ == "__main__":
    main()

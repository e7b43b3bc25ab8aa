"""Run under `mpiexec -n N`: every example and random program of compiled_runs.corpus() that
runs on at most N devices, on the mpi backend (the first n ranks of the job for an n-device
program), compared on rank 0 with the reference interpreter. Rank 0 prints one line per program
(`ok NAME` or `MISMATCH NAME: ...`) and `ran K programs`. Argument: the mode, "specialized"
(default) or "spmd"."""

from __future__ import annotations

import sys

from compiled_runs import MODES, compare_with_interp, corpus, device_count, inputs_for, lowered
from mpi4py import MPI

from xdsl_multi.runtime.backends.mpi import MpiProgram


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "specialized"
    assert mode in MODES, mode
    world = MPI.COMM_WORLD
    rank, size = world.Get_rank(), world.Get_size()
    ran = 0
    for name, text, seed in corpus():
        n = device_count(text)
        if n > size:
            continue
        comm = world.Split(0 if rank < n else MPI.UNDEFINED, rank)
        if comm != MPI.COMM_NULL:
            inputs = inputs_for(text, seed) if rank == 0 else None
            with MpiProgram(lowered(text, mode), comm=comm, error_prefix=f"mpi-corpus {name}") as p:
                outputs = p(inputs)
            if rank == 0:
                assert outputs is not None and inputs is not None
                mismatch = compare_with_interp(text, inputs, outputs, "mpi")
                print(f"MISMATCH {name}: {mismatch}" if mismatch else f"ok {name}", flush=True)
            comm.Free()
        ran += 1
        world.Barrier()
    if rank == 0:
        print(f"ran {ran} programs", flush=True)


if __name__ == "__main__":
    main()

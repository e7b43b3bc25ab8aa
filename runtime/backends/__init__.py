"""Backends of the compiled runtime: `threads` (one thread per device, in-process) and `mpi`
(one MPI rank per device)."""

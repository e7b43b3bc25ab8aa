"""Pass `multi-to-devidx`: the multi level to the SPMD level (multi_to_devidx.py, its rule
table; allreduce.py, the fetch schedules of an allreduce; spmd_builder.py, the SPMD views)."""

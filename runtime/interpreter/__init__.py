"""The reference interpreter (numpy): runs a module at the multi, SPMD, device and kernel
levels; the oracle of every test. interpreter.py is its entry (`run_module`); kernel_level.py
runs the kernel level; machine.py, schedulers.py and device_runs.py are the machinery; ops_*.py
hold the op handlers by dialect; numerics.py the element arithmetic."""

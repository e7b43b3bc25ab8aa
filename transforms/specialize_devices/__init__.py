"""Pass `specialize-devices`: the SPMD level to the device level (one module per device)."""

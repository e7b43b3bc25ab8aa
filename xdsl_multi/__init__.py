"""xdsl-multi: tinygrad multi-device ops as xDSL dialects."""

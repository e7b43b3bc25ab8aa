"""The `xdsl.universe` entry point: stock `xdsl-opt` (and `multi-opt`) find our dialects,
passes and targets through it (our `-t llvm` is `-t multi-llvm` there: xDSL has its own
`llvm`). Importing this module imports no dialect, pass or target (every `xdsl-opt` start
imports every plugin), see xdsl_multi/passes.py."""

from xdsl.universe import Universe

from xdsl_multi.passes import get_all_dialects, get_all_passes, get_all_targets

XDSL_MULTI_UNIVERSE = Universe(
    all_dialects=get_all_dialects(),
    all_passes=get_all_passes(),
    all_targets=get_all_targets(),
)

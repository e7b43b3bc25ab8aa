"""The `xdsl.universe` entry point: stock `xdsl-opt` (and `multi-opt`) find our dialects and
passes through it. Importing this module imports no dialect or pass (every `xdsl-opt` start
imports every plugin), see xdsl_multi/passes.py."""

from xdsl.universe import Universe

from xdsl_multi.passes import get_all_dialects, get_all_passes

XDSL_MULTI_UNIVERSE = Universe(
    all_dialects=get_all_dialects(),
    all_passes=get_all_passes(),
)

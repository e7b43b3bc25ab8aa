"""What a rule sees of the importer (importer.py): the rules modules depend on this protocol,
the importer on the rules, so there is no cycle.

A rule is `rule(ctx, u, where) -> SSAValue`: it builds the ops for tinygrad UOp `u` with
`ctx.b` (the project's `Builder`) and gets its operands from `ctx.value`. `where` is the
placement (`#multi.on` device list) of the consumer: a device-less value (a constant, an arange,
a mask, a numpy buffer) is computed there (SPEC §8).
"""

from __future__ import annotations

from typing import Protocol

from tinygrad.uop.ops import UOp
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from xdsl_multi.builder import Builder
from xdsl_multi.dialects.multi import OnAttr


class ImportContext(Protocol):
    b: Builder

    def value(self, u: UOp, where: OnAttr | None) -> SSAValue:
        """The imported value of `u` (memoized); a device-less `u` is computed on `where`."""
        ...

    def constant(self, value: float | bool, like: TensorType) -> SSAValue:
        """A splat constant of type `like`, one per (value, type) in the module."""
        ...

    def coerce(self, v: SSAValue, target: TensorType, unsigned: bool = False) -> SSAValue:
        """`v` cast, broadcast and placed as `target`: tinygrad's implicit conversions."""
        ...

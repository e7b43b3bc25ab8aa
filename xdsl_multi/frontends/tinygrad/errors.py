"""`UnsupportedGraph`: a tinygrad graph outside what the IR expresses (SPEC §8)."""

from __future__ import annotations


class UnsupportedGraph(Exception):
    """Raised by `import_tensors` for a graph the IR cannot express. `op` is the tinygrad op
    (`Ops.UNSHARD`'s name, `"UNSHARD"`), `reason` says why."""

    def __init__(self, op: str, reason: str):
        super().__init__(f"tinygrad {op}: {reason}")
        self.op = op
        self.reason = reason

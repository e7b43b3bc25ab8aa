"""The benchmark's program generator (bench/programs/gen_c1.py), loaded as a module by path for
tests: it is a script beside the programs, not part of a package."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

GEN_C1 = Path(__file__).resolve().parents[2] / "bench" / "programs" / "gen_c1.py"


def load_gen_c1() -> ModuleType:
    """bench/programs/gen_c1.py (`c1_program(size, iters, devices)`)."""
    spec = importlib.util.spec_from_file_location("gen_c1", GEN_C1)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

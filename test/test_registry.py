"""xdsl_multi/passes.py (the registry) and xdsl_multi/universe.py (the entry point)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import Universe

from xdsl_multi.passes import (
    get_all_dialects,
    get_all_passes,
    get_all_targets,
    registered_entries,
)


def _module_exists(target: str) -> bool:
    module = target.partition(":")[0]
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def test_every_written_dialect_resolves_with_its_name() -> None:
    for name, factory in get_all_dialects().items():
        dialect = factory()
        assert isinstance(dialect, Dialect), name
        assert dialect.name == name


def test_every_written_pass_resolves_with_its_name() -> None:
    for name, factory in get_all_passes().items():
        pass_class = factory()
        assert isinstance(pass_class, type) and issubclass(pass_class, ModulePass), name
        assert pass_class.name == name


def test_only_missing_modules_are_left_out() -> None:
    """A registry line is dropped only while its module does not exist."""
    tables = registered_entries()
    for kind, listed in (("dialects", get_all_dialects()), ("passes", get_all_passes())):
        for name, target in tables[kind].items():
            assert (name in listed) == _module_exists(target), (kind, name, target)


def test_universe_is_discovered_without_clashes() -> None:
    """Stock xdsl-opt sees our dialects and passes (and no name clashes with xDSL's)."""
    multiverse = Universe.get_multiverse()
    for name in get_all_dialects():
        assert name in multiverse.all_dialects
    for name in get_all_passes():
        assert name in multiverse.all_passes


def test_every_target_is_discovered_and_resolves_with_its_name() -> None:
    """Stock xdsl-opt has our targets, by names xDSL does not use (its `llvm` stays its own),
    and each factory takes no parameter (xDSL calls one that does as a legacy target)."""
    import inspect

    from xdsl.targets import get_all_targets as xdsl_targets
    from xdsl.utils.target import Target

    multiverse = Universe.get_multiverse()
    assert get_all_targets(), "no target registered"
    for name, factory in get_all_targets().items():
        assert name not in xdsl_targets()
        assert multiverse.all_targets[name]() is factory()
        assert not inspect.signature(factory).parameters
        target_class = factory()
        assert issubclass(target_class, Target) and target_class.name == name


def test_importing_the_universe_imports_no_dialect_or_pass() -> None:
    """Every xdsl-opt start imports the plugin; it must stay cheap: no module of a dialect or
    a pass (package `__init__`s, docstrings only, may load: finding a pass imports them)."""
    code = (
        "import sys, xdsl_multi.universe; "
        "loaded = [m for m in sys.modules if m.startswith('xdsl_multi.') and "
        "m.rsplit('.', 1)[-1] not in ('universe', 'passes') and "
        "not hasattr(sys.modules[m], '__path__')]; "
        "print(loaded); sys.exit(bool(loaded))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr

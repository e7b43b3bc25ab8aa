# lit configuration for xdsl-multi's FileCheck tests.
#
# Tests are `.mlir` files (and `.test` files for tool behaviour that needs no MLIR input) under
# dialects/, transforms/, lowering/, runtime/ and tools/. Files in folders named `Inputs` are
# helper files, not tests. Run them all with `python -m pytest -q test/test_lit.py` (one pytest
# test per lit file) or directly with `lit -v test/lit`.
#
# Substitutions: `multi-opt`, `multi-run`, `xdsl-opt`, `filecheck` and `%python` name the tools
# of the Python that runs lit, so a test runs the installation under test whatever PATH says;
# `%expect-exit N CMD...` runs CMD and fails unless it exits with status N.
# ruff: noqa: F821
# (`config` is given by lit)

import os
import re
import sys

import lit.formats

config.name = "xdsl-multi"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "Output", "helpers", "lit.cfg.py", "lit.local.cfg"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))

# lit runs tests in a scrubbed environment: pass on what Python and the tools need.
_FORWARDED = [
    "PYTHONPATH",
    "HOME",
    "VIRTUAL_ENV",
    "PYENV_ROOT",
    "PYENV_VERSION",
    "LANG",
    "LC_ALL",
    "TMPDIR",
    "XDG_CACHE_HOME",
    "PYTHONHASHSEED",
]
for _var in _FORWARDED:
    if _var in os.environ:
        config.environment[_var] = os.environ[_var]
for _var, _value in os.environ.items():
    if _var.startswith("MULTI_"):  # the project's own settings (e.g. backend choices)
        config.environment[_var] = _value

# The scripts of the Python running lit come first on PATH.
_bin_dir = os.path.dirname(sys.executable)
config.environment["PATH"] = os.pathsep.join([_bin_dir, config.environment.get("PATH", "")])


def _tool(script: str, module: str) -> str:
    """The console script next to this Python, or `python -m module` where there is none."""
    path = os.path.join(_bin_dir, script)
    if os.access(path, os.X_OK):
        return path
    return f"{sys.executable} -m {module}"


def _word(name: str) -> str:
    """A pattern for `name` used as a command word, not as part of a path or a longer name."""
    return r"(?<![\w/.-])" + re.escape(name) + r"(?![\w.-])"


config.substitutions.append(("%python", sys.executable))
# `%expect-exit N CMD...`: CMD must exit with status N exactly (lit's `not` takes any failure).
_helpers = os.path.join(config.test_source_root, "helpers")
config.substitutions.append(
    ("%expect-exit", f"{sys.executable} {os.path.join(_helpers, 'expect_exit.py')}")
)
# With MULTI_TOOL_SERVER set (test/test_lit.py sets it), multi-opt, multi-run and filecheck run
# in the fork server of test/support/tool_server.py: the same tools without ~0.5 s of imports
# per RUN line.
_SERVED = ("multi-opt", "multi-run", "filecheck")
_client = os.path.join(config.test_source_root, "..", "support", "tool_client.py")
for _name, _module in [
    ("multi-opt", "xdsl_multi.tools.multi_opt"),
    ("multi-run", "xdsl_multi.tools.multi_run"),
    ("filecheck", "filecheck"),
    ("xdsl-opt", "xdsl.tools.xdsl_opt"),
]:
    if _name in _SERVED and "MULTI_TOOL_SERVER" in os.environ:
        _command = f"{sys.executable} -I -S {os.path.normpath(_client)} {_name}"
    else:
        _command = _tool(_name, _module)
    config.substitutions.append((_word(_name), _command))

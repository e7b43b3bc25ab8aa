"""multi-opt: `xdsl-opt` with this project's dialects and passes, and diagnostics instead of
Python tracebacks (SPEC §6).

Our dialects and passes reach it the same way they reach stock `xdsl-opt`: through the
`xdsl.universe` entry point (xdsl_multi/universe.py), so nothing is registered here.

What differs from `xDSLOptMain`:
- every op gets the `file:line:col` where its text starts, and verification goes op by op, so
  a verifier error names the op and its line (xdsl_multi/diagnostics.py);
- the input is verified before the first pass and after every pass (naming the pass);
- parse, verifier, pipeline, target, input-file and pass errors are one diagnostic each, on
  stderr with exit code 1; with --verify-diagnostics (parse errors also with
  --parsing-diagnostics) the diagnostics of input chunks go to stdout and processing continues
  with the next `// -----` chunk; with --verify-diagnostics every diagnostic must also meet an
  `expected-error {{...}}` comment and every such comment a diagnostic, as in mlir-opt
  (tools/expected_diagnostics.py): each mismatch is reported on stderr and the exit code is 1;
- a Python exception escaping a pass, verifier, parser or target is an internal error: exit
  code 2, in every mode (`--show-traceback` prints the traceback);
- `-o FILE` is written atomically, and only when the run succeeds.
Exit codes and formats are recorded in docs/decisions.md.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import os
import re
import sys
import tempfile
import time
import warnings
from collections.abc import Iterable, Sequence
from functools import partial
from importlib.metadata import PackageNotFoundError, version
from io import BytesIO
from typing import IO, Any, NoReturn

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.utils.arg_spec import parse_pipeline, parse_spec
from xdsl.utils.diagnostic import Diagnostic
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    PassFailedException,
    ShrinkException,
)
from xdsl.xdsl_opt_main import xDSLOptMain

from xdsl_multi.diagnostics import (
    EXIT_ERROR,
    EXIT_INTERNAL,
    STDIN_NAME,
    CompileError,
    SourceFile,
    arg_spec_error,
    internal_error,
    op_from_traceback,
    op_pos,
    parse_module,
    render,
    verify_ops,
)
from xdsl_multi.passes import resolve
from xdsl_multi.tools.expected_diagnostics import check_chunk, expectations, produced

TOOL_NAME = "multi-opt"
LLVM_AS_LLVM_TARGET = "xdsl_multi.lowering.llvm_target:LLVMKernelsAsLLVMTarget"
"""multi-opt's `-t llvm` (SPEC §5), loaded when used."""

# A line holding only the split marker (xdsl-opt and mlir-opt use `// -----`).
_SPLIT_MARKER = re.compile(r"^[ \t]*// -----[^\n]*(?:\n|$)", re.MULTILINE)


class _ArgumentParser(argparse.ArgumentParser):
    """argparse, but a usage error is a CompileError (exit code 1), not SystemExit(2), and an
    option is only taken by its full name (`--verify-diag` is an error, not a guess)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(allow_abbrev=False, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise CompileError(f"{message} (see {self.prog} --help)")


class MultiOptMain(xDSLOptMain):
    """xDSLOptMain with compiler-style diagnostics. Construct it, then call `run()`, which
    returns the exit code; both raise only CompileError (and SystemExit for --help)."""

    source: SourceFile | None = None
    """The whole input, for quoting source lines in diagnostics."""

    def __init__(
        self,
        description: str = "multi-opt: the xdsl-multi modular optimizer driver",
        args: Sequence[str] | None = None,
    ):
        # The same steps as xDSLOptMain.__init__, which would raise or exit with
        # argparse's status 2 on a bad target, pass or option.
        self.available_frontends = {}
        self.available_passes = {}
        self.available_targets = {}
        self.ctx = Context()
        try:
            self.register_all_dialects()
            self.register_all_frontends()
            self.register_all_passes()
            self.register_all_targets()
        except Exception as e:
            raise internal_error("cannot load the xdsl.universe plugins", e) from e

        arg_parser = _ArgumentParser(prog=TOOL_NAME, description=description)
        self.register_all_arguments(arg_parser)
        self.args = arg_parser.parse_args(args=args)

        self.ctx.allow_unregistered = self.args.allow_unregistered_dialect
        if self.args.disable_verify:
            # xdsl-opt's behaviour for --disable-verify: attributes are not verified either.
            Attribute.__post_init__ = _no_post_init
        if self.args.syntax_highlight:
            Diagnostic.colored = True

        self._check_target()
        self.setup_pipeline()

    def register_all_targets(self) -> None:
        """xDSL's targets and ours (`multi-llvm`, from the xdsl.universe entry point), with
        `llvm` replaced by ours: one LLVM module holding every device's kernels (SPEC §5;
        docs/decisions.md, "Registry")."""
        super().register_all_targets()
        self.available_targets["llvm"] = partial(resolve, LLVM_AS_LLVM_TARGET)

    # -- command line -----------------------------------------------------------------------

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        self.version_format = version_text()  # xDSLOptMain's --version prints this
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--show-traceback",
            default=False,
            action="store_true",
            help="On an internal error (exit code 2), also print the Python traceback.",
        )

    def _reads_stdin(self) -> bool:
        return self.args.input_file in (None, "-")

    def get_input_name(self) -> str:
        return STDIN_NAME if self._reads_stdin() else self.args.input_file

    def _check_target(self) -> None:
        try:
            name = parse_spec(self.args.target).name
        except ArgSpecParseError as e:
            raise arg_spec_error(e, "target", self.args.target) from None
        if name not in self.available_targets:
            raise CompileError(
                f"unknown target '{name}'{_did_you_mean(name, self.available_targets)}; "
                f"available targets: {', '.join(sorted(self.available_targets))}"
            )

    def setup_pipeline(self) -> None:
        """Build the pass pipeline from -p, with a diagnostic for every way it can be wrong.
        The pipeline is run by `apply_passes`, which verifies after each pass."""
        try:
            specs = list(parse_pipeline(self.args.passes))
        except ArgSpecParseError as e:
            raise arg_spec_error(e, "pass pipeline", self.args.passes) from None

        passes: list[ModulePass] = []
        for spec in specs:
            if spec.name not in self.available_passes:
                raise CompileError(
                    f"unknown pass '{spec.name}'{_did_you_mean(spec.name, self.available_passes)}"
                    f" (see {TOOL_NAME} --help for the available passes)"
                )
            try:
                pass_class = self.available_passes[spec.name]()
            except Exception as e:
                raise internal_error(f"cannot load pass '{spec.name}'", e) from e
            try:
                passes.append(pass_class.from_pass_spec(spec))
            except (ValueError, TypeError) as e:
                raise CompileError(f"invalid options for pass '{spec.name}': {e}") from e
        self.pipeline = PassPipeline(tuple(passes))

    # -- input and output -------------------------------------------------------------------

    def _read_input(self) -> SourceFile:
        name = self.get_input_name()
        try:
            if self._reads_stdin():
                data = sys.stdin.buffer.read()
            else:
                with open(self.args.input_file, "rb") as f:
                    data = f.read()
        except OSError as e:
            raise CompileError(f"cannot read input file '{name}': {e.strerror or e}") from e
        return SourceFile.from_bytes(name, data)

    def _frontend(self) -> str:
        """-f, else the frontend named by the file extension, else MLIR (as mlir-opt, which
        reads any file; xdsl-opt rejects unknown extensions, which breaks `multi-opt %t`)."""
        if self.args.frontend:
            return self.args.frontend
        if self._reads_stdin():
            return "mlir"
        extension = os.path.splitext(self.args.input_file)[1].removeprefix(".")
        return extension if extension in self.available_frontends else "mlir"

    def split_chunks(self, source: SourceFile) -> list[tuple[str, int]]:
        """The chunks to process, each with the number of lines before it in the input.
        A chunk starts on the line after a `// -----` marker, so columns stay right too."""
        if not self.args.split_input_file:
            return [(source.text, 0)]
        chunks: list[tuple[str, int]] = []
        start = 0
        for marker in _SPLIT_MARKER.finditer(source.text):
            chunks.append((source.text[start : marker.start()], source.pos_at(start).line - 1))
            start = marker.end()
        chunks.append((source.text[start:], source.pos_at(start).line - 1))
        return chunks

    def parse_text(self, frontend: str, text: str, line_offset: int) -> ModuleOp:
        if frontend == "mlir":
            return parse_module(
                self.ctx,
                text,
                self.get_input_name(),
                line_offset,
                allow_implicit_module=not self.args.no_implicit_module,
            )
        try:
            return self.available_frontends[frontend](BytesIO(text.encode()))
        except DiagnosticException as e:
            raise CompileError(str(e)) from e
        except Exception as e:
            raise internal_error(f"internal error in frontend '{frontend}'", e) from e

    # -- passes and targets -----------------------------------------------------------------

    def verify(self, module: ModuleOp, after_pass: ModulePass | None) -> None:
        if self.args.disable_verify:
            return
        try:
            verify_ops(module)
        except CompileError as e:
            if after_pass is not None:
                e.message = f"pass '{after_pass.name}' produced invalid IR: {e.message}"
                e.exit_code = EXIT_INTERNAL
            raise

    def apply_passes(self, prog: ModuleOp) -> None:
        """Run the pipeline, verifying after each pass."""
        passes = self.pipeline.passes
        for i, module_pass in enumerate(passes):
            if i > 0 and self.args.print_between_passes:
                print(f"IR after {passes[i - 1].name}:")
                Printer(stream=sys.stdout).print_op(prog)
                print("\n\n\n")
            start = time.perf_counter()
            try:
                module_pass.apply(self.ctx, prog)
            except ShrinkException:
                raise
            except PassFailedException as e:
                raise CompileError(
                    f"pass '{module_pass.name}' failed: {str(e).strip()}",
                    op_pos(op_from_traceback(e)),
                ) from e
            except Exception as e:
                raise internal_error(
                    f"internal error in pass '{module_pass.name}'", e, op_pos(op_from_traceback(e))
                ) from e
            if self.args.time_passes:
                print(f"Pass {module_pass.name} took {time.perf_counter() - start} seconds")
            self.verify(prog, after_pass=module_pass)

    def emit(self, prog: ModuleOp) -> str:
        target = parse_spec(self.args.target).name
        try:
            return self.output_resulting_program(prog)
        except (DiagnosticException, NotImplementedError) as e:
            # xDSL's translators raise NotImplementedError for ops they do not handle: the IR
            # was not lowered far enough for this target, which is the user's to fix.
            raise CompileError(
                f"cannot emit target '{target}': {str(e).strip()}", op_pos(op_from_traceback(e))
            ) from e
        except Exception as e:
            raise internal_error(
                f"internal error in target '{target}'", e, op_pos(op_from_traceback(e))
            ) from e

    # -- the run ----------------------------------------------------------------------------

    def _reported_inline(self, error: CompileError) -> bool:
        """Whether a chunk's error goes to stdout (and processing goes on), as in xdsl-opt."""
        if error.exit_code != EXIT_ERROR:
            return False
        return self.args.verify_diagnostics or (
            error.is_parse_error and self.args.parsing_diagnostics
        )

    def process_chunk(self, frontend: str, text: str, line_offset: int) -> str:
        """Parse, verify, transform and print one chunk. Raises CompileError."""
        module = self.parse_text(frontend, text, line_offset)
        self.verify(module, after_pass=None)
        self.apply_passes(module)
        return self.emit(module)

    def run(self) -> int:  # pyright: ignore[reportIncompatibleMethodOverride]
        """Process the input; return the exit code. Raises CompileError for errors that are
        not about one chunk of the input."""
        self.source = self._read_input()
        frontend = self._frontend()
        output = _Output(self.args.output_file)
        mismatches: list[CompileError] = []
        try:
            for i, (text, line_offset) in enumerate(self.split_chunks(self.source)):
                if i > 0:
                    output.write("// -----\n")
                error: CompileError | None = None
                try:
                    output.write(self.process_chunk(frontend, text, line_offset))
                except CompileError as e:
                    if not self._reported_inline(e):
                        raise
                    output.flush()
                    sys.stdout.write(self.render(e))
                    sys.stdout.flush()
                    error = e
                output.flush()
                if self.args.verify_diagnostics:
                    expected, malformed = expectations(self.source, text, line_offset)
                    mismatches += malformed + check_chunk(expected, produced(error))
        except ShrinkException:
            assert self.args.shrink
            output.discard()
            print("Success, can shrink")
            return 0
        except BaseException:
            output.discard()
            raise
        if mismatches:
            output.discard()  # -o FILE is written only by a run that succeeds
            sys.stdout.flush()
            sys.stderr.write("".join(self.render(m) for m in mismatches))
            return EXIT_ERROR
        output.commit()
        if self.args.shrink:
            print("Failure, can't shrink")
            return 1
        return 0

    def render(self, error: CompileError) -> str:
        return _render(error, self.source, self.args.show_traceback)


def version_text() -> str:
    """`--version`: ours and xDSL's (`{xdsl_version}` is filled in by xDSLOptMain)."""
    try:
        ours = version("xdsl-multi")
    except PackageNotFoundError:
        ours = "unknown (not installed)"
    return f"{TOOL_NAME} {ours} (xdsl-multi), built on xdsl {{xdsl_version}}"


def _no_post_init(self: Attribute) -> None:
    pass


def _did_you_mean(name: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(choices), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


class _Output:
    """stdout, `-` (also stdout), or a file written atomically: a temporary file in the same
    folder, renamed over the target only by `commit()`."""

    def __init__(self, path: str | None) -> None:
        self.path = None if path in (None, "-") else path
        self._tmp_name: str | None = None
        self.stream: IO[str] = sys.stdout
        if self.path is not None:
            folder = os.path.dirname(os.path.abspath(self.path))
            try:
                fd, self._tmp_name = tempfile.mkstemp(
                    dir=folder, prefix=f".{os.path.basename(self.path)}.", suffix=".tmp"
                )
            except OSError as e:
                raise CompileError(
                    f"cannot write output file '{self.path}': {e.strerror or e}"
                ) from e
            self.stream = os.fdopen(fd, "w", encoding="utf-8")

    def write(self, text: str) -> None:
        self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()

    def commit(self) -> None:
        if self.path is None or self._tmp_name is None:
            self.stream.flush()
            return
        self.stream.close()
        try:
            os.chmod(self._tmp_name, _new_file_mode(self.path))
            os.replace(self._tmp_name, self.path)
        except OSError as e:
            self.discard()
            raise CompileError(f"cannot write output file '{self.path}': {e.strerror or e}") from e
        self._tmp_name = None

    def discard(self) -> None:
        if self._tmp_name is not None:
            self.stream.close()
            with contextlib.suppress(OSError):
                os.unlink(self._tmp_name)
            self._tmp_name = None


def _new_file_mode(path: str) -> int:
    """The mode `open(path, "w")` would give: the existing file's, or 0o666 less the umask."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _render(error: CompileError, source: SourceFile | None, show_traceback: bool) -> str:
    if error.python_traceback and not show_traceback:
        error.python_traceback = None
        error.notes.append(
            f"this is a bug; run {TOOL_NAME} again with --show-traceback for the Python traceback"
        )
    return render(error, TOOL_NAME, source)


def run_multi_opt(
    args: Sequence[str] | None = None, main_class: type[MultiOptMain] = MultiOptMain
) -> int:
    """Run multi-opt with the given arguments (default: sys.argv); return the exit code.
    `main_class` lets tests (or another tool) add passes, targets or arguments."""
    argv = list(sys.argv[1:] if args is None else args)
    show_traceback = "--show-traceback" in argv
    tool: MultiOptMain | None = None
    try:
        tool = main_class(args=argv)
        return tool.run()
    except CompileError as e:
        sys.stdout.flush()
        sys.stderr.write(_render(e, tool and tool.source, show_traceback))
        return e.exit_code
    except KeyboardInterrupt:
        sys.stderr.write(f"{TOOL_NAME}: interrupted\n")
        return 130
    except BrokenPipeError:
        # The reader of our output went away (e.g. `| head`): stop quietly, and keep Python's
        # final flush of stdout from failing again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_ERROR
    except Exception as e:  # noqa: BLE001 - a bug in the driver itself, reported as such
        error = internal_error(f"internal error in {TOOL_NAME}", e)
        sys.stderr.write(_render(error, tool and tool.source, show_traceback))
        return EXIT_INTERNAL


def main() -> NoReturn:
    # As xdsl-opt: show DeprecationWarnings (one line each, not a traceback).
    warnings.filterwarnings("default", category=DeprecationWarning)
    sys.exit(run_multi_opt())


if __name__ == "__main__":
    main()

"""A fork server for the command-line tools the tests run hundreds of times (lit's RUN lines,
the malformed corpus): `multi-opt`, `multi-run` and `filecheck`.

A fresh `multi-opt` process spends about 0.5 s of CPU importing Python, xDSL, our dialects and
passes, numpy and llvmlite before it reads its input; the lit suite starts ~400 of them. The
server imports all of that once, then forks a child per request: the child takes the caller's
stdin, stdout and stderr (passed over a Unix socket), working folder, environment and
arguments, runs the tool's `main()` exactly as its console script would, and exits; its exit
status goes back to the caller. Each run is still its own process (nothing one run changes is
seen by the next), only the imports are shared.

    python test/support/tool_server.py SOCKET       # serve until killed
    python -I -S test/support/tool_client.py multi-opt ARGS...   # with MULTI_TOOL_SERVER=SOCKET

In a test, `with tool_server() as env:` starts one and gives the environment that sends the
tools to it (`tool_command("multi-opt")` is the command line). test/lit/lit.cfg.py uses the
client for the three tools when `MULTI_TOOL_SERVER` is set (test/test_lit.py sets it); plain
`lit test/lit` runs the real console scripts. test/test_packaging.py runs the installed
scripts themselves. Not for `mpiexec`: an MPI rank must be the process mpiexec started.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from xdsl_multi.passes import get_all_dialects, get_all_passes, get_all_targets

SERVER_ENV = "MULTI_TOOL_SERVER"
"""The socket's path; lit.cfg.py forwards every `MULTI_*` variable to the tests."""

TOOLS: dict[str, str] = {
    "multi-opt": "xdsl_multi.tools.multi_opt:main",
    "multi-run": "xdsl_multi.tools.multi_run:main",
    "filecheck": "filecheck.main:main",
}
"""Tool name -> its console script's entry point."""

PRELOADED = [
    "numpy",
    "llvmlite.binding",
    "xdsl.dialects.arith",
    "xdsl.dialects.func",
    "xdsl.dialects.math",
    "xdsl.dialects.tensor",
    "xdsl.dialects.memref",
    "xdsl.dialects.scf",
    "xdsl.dialects.cf",
    "xdsl.dialects.llvm",
    "xdsl_multi.tools.multi_opt",
    "xdsl_multi.tools.multi_run",
    "xdsl_multi.lowering.llvm_target",
    "xdsl_multi.lowering.jit",
    "filecheck.main",
]
"""Modules imported once by the server (with every dialect, pass and target of the project)."""

CLIENT = Path(__file__).resolve().parent / "tool_client.py"
HEADER = struct.Struct("!Q")
"""A request: this header (the payload's length) carrying the three file descriptors, then
the payload, JSON `{"argv": [...], "cwd": ..., "env": {...}}`. The reply is the exit code
as text (negative: killed by that signal)."""

START_TIMEOUT_SECONDS = 120


def tool_command(tool: str) -> list[str]:
    """The command line that runs `tool` through the server named by $MULTI_TOOL_SERVER."""
    return [sys.executable, "-I", "-S", str(CLIENT), tool]


def _preload() -> None:
    for module in PRELOADED:
        importlib.import_module(module)
    for table in (get_all_dialects(), get_all_passes(), get_all_targets()):
        for factory in table.values():
            factory()


def _entry_point(tool: str) -> Callable[[], object]:
    module, _, function = TOOLS[tool].partition(":")
    return getattr(importlib.import_module(module), function)


def _exit_code(exit: SystemExit) -> int:
    """The status Python gives `sys.exit(value)`."""
    if exit.code is None:
        return 0
    if isinstance(exit.code, int):
        return exit.code
    print(exit.code, file=sys.stderr)
    return 1


def _fresh_standard_streams() -> None:
    """New sys.stdin/stdout/stderr on fds 0-2, made as Python's start-up makes them (the
    server's own are files, seekable, and buffered for the server)."""
    encoding = sys.stdout.encoding

    def writer(fd: int, errors: str, line_buffering: bool) -> io.TextIOWrapper:
        buffered = open(fd, "wb", closefd=False)  # noqa: SIM115
        return io.TextIOWrapper(buffered, encoding, errors, line_buffering=line_buffering)

    sys.stdin = sys.__stdin__ = open(0, encoding=encoding, closefd=False)  # noqa: SIM115
    sys.stdout = sys.__stdout__ = writer(1, "strict", os.isatty(1))
    sys.stderr = sys.__stderr__ = writer(2, "backslashreplace", True)


def _run_tool(request: dict, fds: list[int]) -> None:
    """In the forked child: become the caller's process and run the tool; never returns."""
    code = 1
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        _fresh_standard_streams()
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = list(request["argv"])
        try:
            _entry_point(sys.argv[0])()
            code = 0
        except SystemExit as exit:
            code = _exit_code(exit)
        except BaseException:  # noqa: BLE001 - as Python does for an uncaught exception
            traceback.print_exc()
            code = 1
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
    except BaseException:  # noqa: BLE001 - setting up failed: say so on the caller's stderr
        os.write(2, f"tool_server: {traceback.format_exc()}".encode())
    finally:
        os._exit(code)


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    data, fds, _, _ = socket.recv_fds(conn, HEADER.size, 3)
    while len(data) < HEADER.size:
        data += conn.recv(HEADER.size - len(data))
    (length,) = HEADER.unpack(data)
    payload = b""
    while len(payload) < length:
        chunk = conn.recv(length - len(payload))
        if not chunk:
            raise ConnectionError("the client closed the connection mid-request")
        payload += chunk
    return json.loads(payload), fds


def _handle(conn: socket.socket) -> None:
    """In a child of the server: fork the tool's process, wait for it, reply its status."""
    code = 2
    try:
        request, fds = _receive(conn)
        if len(fds) != 3:
            raise ConnectionError(f"expected 3 file descriptors, got {len(fds)}")
        pid = os.fork()
        if pid == 0:
            conn.close()
            _run_tool(request, fds)
        for fd in fds:
            os.close(fd)
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        conn.sendall(str(code).encode())
    except BaseException:  # noqa: BLE001 - the client sees no status; the log says why
        traceback.print_exc()
    finally:
        os._exit(0)


def serve(path: str) -> None:
    """Preload, listen on the Unix socket `path` and serve each connection in a child."""
    _preload()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    ready = path + ".tmp"
    listener.bind(ready)
    listener.listen(64)
    os.replace(ready, path)  # the socket appears once it accepts connections
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # handlers are reaped by the kernel
    while True:
        conn, _ = listener.accept()
        if os.fork() == 0:
            listener.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # so the handler can wait
            _handle(conn)
        conn.close()


@contextlib.contextmanager
def tool_server(log: IO[str] | None = None) -> Iterator[dict[str, str]]:
    """Start a server for this Python's tools; yields `os.environ` plus $MULTI_TOOL_SERVER."""
    folder = tempfile.mkdtemp(prefix="mts-")
    path = os.path.join(folder, "socket")
    server = subprocess.Popen(
        [sys.executable, __file__, path],
        stdin=subprocess.DEVNULL,
        stdout=log or subprocess.DEVNULL,
        stderr=log or subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while not os.path.exists(path):
            if server.poll() is not None:
                raise RuntimeError(f"the tool server exited with {server.returncode}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the tool server did not start in {START_TIMEOUT_SECONDS} s")
            time.sleep(0.02)
        yield {**os.environ, SERVER_ENV: path}
    finally:
        server.kill()
        server.wait()
        for name in os.listdir(folder):
            os.unlink(os.path.join(folder, name))
        os.rmdir(folder)


if __name__ == "__main__":
    serve(sys.argv[1])

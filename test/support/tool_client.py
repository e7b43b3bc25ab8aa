"""`python -I -S tool_client.py TOOL ARGS...`: run TOOL (multi-opt, multi-run, filecheck) in
the tool server named by $MULTI_TOOL_SERVER (tool_server.py) with this process's stdin,
stdout, stderr, working folder and environment, and exit with its status. Only the standard
library, without `site`: it starts in ~20 ms."""

import json
import os
import socket
import struct
import sys

HEADER = struct.Struct("!Q")  # tool_server.HEADER


def main() -> int:
    path = os.environ.get("MULTI_TOOL_SERVER")
    if not path or len(sys.argv) < 2:
        print("usage: MULTI_TOOL_SERVER=SOCKET tool_client.py TOOL [ARGS...]", file=sys.stderr)
        return 2
    payload = json.dumps(
        {"argv": sys.argv[1:], "cwd": os.getcwd(), "env": dict(os.environ)}
    ).encode()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(path)
        socket.send_fds(conn, [HEADER.pack(len(payload))], [0, 1, 2])
        conn.sendall(payload)
        reply = b""
        while chunk := conn.recv(64):
            reply += chunk
    if not reply:
        print(
            f"tool_client: the tool server gave no exit status for {sys.argv[1]}", file=sys.stderr
        )
        return 2
    code = int(reply)
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main())

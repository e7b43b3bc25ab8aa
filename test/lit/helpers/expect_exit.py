"""`expect_exit.py N CMD ARGS...`: run CMD (stdin, stdout and stderr pass through) and succeed
only if it exits with status N. lit's `not` accepts any non-zero status; tests use this (as
`%expect-exit N`) where the exact exit code is part of the contract."""

import subprocess
import sys


def main() -> int:
    if len(sys.argv) < 3:
        print("usage: expect_exit.py N CMD [ARGS...]", file=sys.stderr)
        return 2
    expected = int(sys.argv[1])
    code = subprocess.call(sys.argv[2:])
    if code != expected:
        print(
            f"expect_exit: '{sys.argv[2]}' exited with {code}, expected {expected}", file=sys.stderr
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

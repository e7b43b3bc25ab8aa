// A command-line usage error is a diagnostic with exit code 1 too.
// RUN: %expect-exit 1 multi-opt %s --no-such-flag 2>&1 | filecheck %s

// CHECK-NOT: Traceback
// CHECK: multi-opt: error: unrecognized arguments: --no-such-flag (see multi-opt --help)

// An input file that cannot be read is a diagnostic naming it, with exit code 1.
// RUN: %expect-exit 1 multi-opt %t.does-not-exist.mlir 2>&1 | filecheck %s
// RUN: %expect-exit 1 multi-opt %S 2>&1 | filecheck %s --check-prefix=FOLDER

// CHECK-NOT: Traceback
// CHECK: multi-opt: error: cannot read input file '{{.*}}.does-not-exist.mlir': No such file or directory
// CHECK-NOT: Traceback

// FOLDER: multi-opt: error: cannot read input file '{{.*}}tools': Is a directory

// -o writes the result to a file (through a temporary file renamed into place); nothing goes
// to stdout. A failing run leaves no output file behind.
// RUN: rm -f %t.out.mlir
// RUN: multi-opt %s -p cse -o %t.out.mlir | %python -c "import sys; sys.exit(bool(sys.stdin.read()))"
// RUN: filecheck %s --input-file=%t.out.mlir
// The written file parses again.
// RUN: multi-opt %t.out.mlir | filecheck %s

// RUN: rm -f %t.fail.mlir
// RUN: not multi-opt %s -p no-such-pass -o %t.fail.mlir
// RUN: not multi-opt %s -t no-such-target -o %t.fail.mlir
// RUN: %python -c "import os, sys; sys.exit(os.path.exists(sys.argv[1]))" %t.fail.mlir
// No temporary file is left in the folder either (only this test's own names: other tests in
// the folder may be writing theirs at the same time).
// RUN: %python -c "import glob, os, sys; sys.exit(bool(glob.glob(os.path.join(os.path.dirname(sys.argv[1]), '.' + os.path.basename(sys.argv[1]) + '*.tmp'))))" %t

// RUN: %expect-exit 1 multi-opt %s -o %t.no-such-dir/out.mlir 2>&1 | filecheck %s --check-prefix=NODIR

// CHECK:      builtin.module {
// CHECK-NEXT:   func.func @f(%a: i32) -> i32 {
// CHECK-NEXT:     %0 = arith.addi %a, %a : i32
// CHECK-NEXT:     func.return %0 : i32
func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  %1 = arith.addi %a, %a : i32
  func.return %0 : i32
}

// NODIR: multi-opt: error: cannot write output file '{{.*}}.no-such-dir/out.mlir': No such file or directory

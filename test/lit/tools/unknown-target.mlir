// An unknown target (-t) is a diagnostic with exit code 1 (xdsl-opt exits with argparse's 2).
// RUN: %expect-exit 1 multi-opt %s -t llvmir 2>&1 | filecheck %s
// RUN: %expect-exit 1 multi-opt %s -t 'mlir{' 2>&1 | filecheck %s --check-prefix=MALFORMED

// CHECK-NOT: Traceback
// CHECK: multi-opt: error: unknown target 'llvmir' (did you mean 'llvm'?); available targets: {{.*}}mlir
// CHECK-NOT: Traceback

// MALFORMED: <target>:1:6: error: malformed target: Expected argument name here

func.func @f() {
  func.return
}

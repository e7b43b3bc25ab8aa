// A target that cannot print the IR (here: `-t llvm` on IR not lowered to the llvm dialect)
// is a user error at the op it stopped at, exit code 1; IR it can print is printed.
// RUN: %expect-exit 1 multi-opt %s -t llvm 2>&1 | filecheck %s

// CHECK-NOT: Traceback
// CHECK: target-error.mlir:[[# @LINE + 2]]:1: error: cannot emit target 'llvm': Conversion not implemented for op: func.func
// CHECK-NOT: Traceback
func.func @f(%a: i32) -> i32 {
  func.return %a : i32
}

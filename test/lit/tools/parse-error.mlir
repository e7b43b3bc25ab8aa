// A syntax error is reported at its file:line:col with the source line and a caret, on
// stderr, with exit code 1 and no Python traceback.
// RUN: %expect-exit 1 multi-opt %s 2>&1 | filecheck %s
// Nothing is printed on stdout:
// RUN: not multi-opt %s 2>/dev/null | %python -c "import sys; sys.exit(bool(sys.stdin.read()))"

// CHECK-NOT: Traceback
// CHECK: parse-error.mlir:[[# @LINE + 4]]:18: error: Operation arith.adf is not registered
// CHECK-NEXT: {{^}}  %0 = arith.adf %a, %a : f32
// CHECK-NEXT: {{^}}                 ^~
func.func @f(%a: f32) -> f32 {
  %0 = arith.adf %a, %a : f32
  func.return %0 : f32
}
// CHECK-NOT: Traceback

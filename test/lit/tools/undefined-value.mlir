// A value that is used but never defined is reported at its first use (xDSL reports it at
// the end of the input).
// RUN: not multi-opt %s 2>&1 | filecheck %s

// CHECK-NOT: Traceback
// CHECK: undefined-value.mlir:[[# @LINE + 2]]:3: error: value %b is used but not defined
func.func @f(%a: f32) -> f32 {
  %0 = arith.addf %a, %b : f32
  func.return %0 : f32
}
// CHECK-NOT: Traceback

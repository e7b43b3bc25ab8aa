// A verifier error names the op and points at the line where the op starts; the module is
// not printed (xDSL's own message would print all of it).
// RUN: %expect-exit 1 multi-opt %s 2>&1 | filecheck %s

// CHECK-NOT: Traceback
// CHECK: verify-error.mlir:[[# @LINE + 4]]:3: error: arith.addf: operand 'rhs' at position 1 does not verify: attribute f32 expected from variable 'T', but got f64
// CHECK-NEXT: {{^}}  %0 = "arith.addf"(%a, %b) : (f32, f64) -> f32
// CHECK-NEXT: {{^}}  ^{{$}}
func.func @f(%a: f32, %b: f64) -> f32 {
  %0 = "arith.addf"(%a, %b) : (f32, f64) -> f32
  func.return %0 : f32
}
// CHECK-NOT: builtin.module
// CHECK-NOT: Traceback

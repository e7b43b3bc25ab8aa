// The first op that fails (in pre-order) is reported, inside nested regions too.
// RUN: not multi-opt %s 2>&1 | filecheck %s

// CHECK-NOT: Traceback
// CHECK: verify-error-nested.mlir:[[# @LINE + 9]]:7: error: func.return: Expected arguments to have the same types as the function output types: expected [f32], got [f32, f32]
// CHECK-NEXT: {{^}}      func.return %a, %a : f32, f32
// CHECK-NEXT: {{^}}      ^{{$}}
builtin.module {
  builtin.module {
    func.func @ok(%a: f32) -> f32 {
      func.return %a : f32
    }
    func.func @bad(%a: f32) -> f32 {
      func.return %a, %a : f32, f32
    }
  }
}
// CHECK-NOT: Traceback

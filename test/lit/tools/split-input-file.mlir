// With --split-input-file, each `// -----` chunk is processed on its own and diagnostics give
// line numbers in this file (not in the chunk). Without --verify-diagnostics the first error
// stops the run with exit code 1; with it, diagnostics go to stdout, every chunk is processed
// and, as every diagnostic meets the expected-error written at its line, the exit code is 0.
// RUN: %expect-exit 1 multi-opt --split-input-file %s 2>&1 | filecheck %s --check-prefix=STOP
// RUN: %expect-exit 0 multi-opt --split-input-file --verify-diagnostics %s | filecheck %s

func.func @first(%a: f32) -> f32 {
  func.return %a : f32
}

// CHECK:      func.func @first
// CHECK:      // -----
// CHECK-NEXT: split-input-file.mlir:[[# @LINE + 10]]:3: error: func.return: Expected arguments to have the same types as the function output types: expected [f32], got [f32, f32]
// CHECK-NEXT: {{^}}  func.return %a, %a : f32, f32
// CHECK-NEXT: {{^}}  ^{{$}}
// STOP:       split-input-file.mlir:[[# @LINE + 7]]:3: error: func.return: Expected
// STOP-NOT:   @third

// -----

func.func @second(%a: f32) -> f32 {
  // expected-error @+1 {{func.return: Expected arguments to have the same types as the function output types: expected [f32], got [f32, f32]}}
  func.return %a, %a : f32, f32
}

// -----

// CHECK:      // -----
// CHECK-NEXT: split-input-file.mlir:[[# @LINE + 3]]:19: error: operand is used with type f64, but has been previously used or defined with type f32
func.func @third(%a: f32) -> f32 {
  // expected-error @+1 {{operand is used with type f64, but has been previously used or defined with type f32}}
  %0 = arith.addf %a, %a : f64
  func.return %0 : f32
}

// -----

// CHECK:      // -----
// CHECK-NEXT: builtin.module {
// CHECK-NEXT:   func.func @fourth
func.func @fourth() {
  func.return
}
// CHECK-NOT: Traceback

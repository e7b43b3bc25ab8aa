// --verify-diagnostics reports, at its location, every diagnostic that meets no expectation and
// every expectation that no diagnostic meets (SPEC §6), chunk by chunk, and exits with code 1.
// The chunks that went through are still printed on stdout; `-o FILE` is not written, as for
// any run that fails.
// RUN: %expect-exit 1 multi-opt --split-input-file --verify-diagnostics %s 2>&1 >/dev/null | filecheck %s
// RUN: %expect-exit 1 multi-opt --split-input-file --verify-diagnostics %s 2>/dev/null | filecheck %s --check-prefix=OUT
// RUN: rm -f %t.out
// RUN: %expect-exit 1 multi-opt --split-input-file --verify-diagnostics %s -o %t.out
// RUN: %python -c "import os, sys; sys.exit(os.path.exists(sys.argv[1]))" %t.out

// Wrong text: the error is unexpected and the expectation unmet.
func.func @wrong_text(%a: f32, %b: f64) -> f32 {
  %0 = "arith.addf"(%a, %b) : (f32, f64) -> f32 // expected-error {{wrong text}}
  func.return %0 : f32
}
// CHECK:      verify-diagnostics-mismatch.mlir:[[# @LINE - 3]]:3: error: unexpected error: arith.addf: operand 'rhs' at position 1 does not verify
// CHECK:      verify-diagnostics-mismatch.mlir:[[# @LINE - 4]]:52: error: expected error "wrong text" was not produced

// -----

// Missing: the chunk is fine, so nothing meets the expectation.
func.func @missing(%a: f32) -> f32 {
  // expected-error @+1 {{never happens}}
  func.return %a : f32
}
// CHECK:      verify-diagnostics-mismatch.mlir:[[# @LINE - 3]]:6: error: expected error "never happens" was not produced
// OUT:        func.func @missing

// -----

// Unexpected: an error with no expectation.
func.func @unexpected(%a: f32) -> f32 {
  func.return %a, %a : f32, f32
}
// CHECK:      verify-diagnostics-mismatch.mlir:[[# @LINE - 2]]:3: error: unexpected error: func.return: Expected arguments

// -----

// The right text at the wrong line, and a diagnostic of another kind.
func.func @wrong_line(%a: f32) -> f32 {
  // expected-warning @+2 {{func.return: Expected arguments}}
  // expected-error @+2 {{func.return: Expected arguments}}
  func.return %a, %a : f32, f32
}
// CHECK:      verify-diagnostics-mismatch.mlir:[[# @LINE - 4]]:6: error: expected warning "func.return: Expected arguments" was not produced
// CHECK:      verify-diagnostics-mismatch.mlir:[[# @LINE - 4]]:6: error: expected error "func.return: Expected arguments" was not produced
// CHECK:      verify-diagnostics-mismatch.mlir:[[# @LINE - 4]]:3: error: unexpected error: func.return: Expected arguments

// -----

// Each chunk is checked on its own: an expectation does not reach into the next chunk.
func.func @fine() {
  // expected-error @+7 {{operand is used with type f64}}
  func.return
}

// -----

func.func @other_chunk(%a: f32) -> f32 {
  %0 = arith.addf %a, %a : f64
  func.return %0 : f32
}
// CHECK:      verify-diagnostics-mismatch.mlir:[[# @LINE - 10]]:6: error: expected{{-}}error @+7: line {{[0-9]+}} is outside the chunk
// CHECK:      verify-diagnostics-mismatch.mlir:[[# @LINE - 4]]:19: error: unexpected error: operand is used with type f64
// CHECK-NOT:  Traceback
// OUT:        func.func @fine

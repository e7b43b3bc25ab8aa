// An op whose custom format checks its constraints while parsing (xDSL's declarative assembly
// formats do) is reported like a verifier error: at the op, naming it and the failing def. An
// attribute that does not verify is reported where its text ends, not at the next op.
// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: %expect-exit 1 multi-opt %s --split-input-file 2>&1 | filecheck %s --check-prefix=EXIT

// CHECK-NOT: Traceback

// One of ours.
// expected-error @+1 {{devidx.invalid: result 'result' does not verify: f32 should be of base attribute tensor}}
%inv = devidx.invalid : f32
// CHECK: parse-constraint-error.mlir:[[# @LINE - 1]]:1: error: devidx.invalid: result 'result' does not verify: f32 should be of base attribute tensor
// CHECK-NEXT: {{^}}%inv = devidx.invalid : f32{{$}}
// CHECK-NEXT: {{^}}^{{$}}
// EXIT: parse-constraint-error.mlir:[[# @LINE - 4]]:1: error: devidx.invalid: result 'result' does not verify

// -----

// Nested in a function, followed by more ops: the op itself, not the end of the input.
func.func @f() {
  // expected-error @+1 {{devidx.device_num: result 'result' does not verify: i32 should be of base attribute index}}
  %n = devidx.device_num : i32
  %m = devidx.device_num : index
  func.return
}
// CHECK: parse-constraint-error.mlir:[[# @LINE - 4]]:3: error: devidx.device_num: result 'result' does not verify: i32 should be of base attribute index
// CHECK-NEXT: {{^}}  %n = devidx.device_num : i32{{$}}
// CHECK-NEXT: {{^}}  ^{{$}}

// -----

// An xDSL op (an operand constraint).
func.func @f(%a: f32) {
  // expected-error @+1 {{arith.addi: result 'result' does not verify: Unexpected attribute f32}}
  %0 = arith.addi %a, %a : f32
  func.return
}
// CHECK: parse-constraint-error.mlir:[[# @LINE - 3]]:3: error: arith.addi: result 'result' does not verify: Unexpected attribute f32

// -----

// An attribute that does not verify, at the end of an op: at its last token.
func.func @f() {
  // expected-error @+1 {{Integer value 300 is out of range for type i8 which supports values in the range [-128, 256)}}
  %c = arith.constant 300 : i8
  func.return
}
// CHECK: parse-constraint-error.mlir:[[# @LINE - 3]]:29: error: Integer value 300 is out of range for type i8
// CHECK-NEXT: {{^}}  %c = arith.constant 300 : i8{{$}}
// CHECK-NEXT: {{^}}                            ^~{{$}}
// CHECK-NOT: Traceback

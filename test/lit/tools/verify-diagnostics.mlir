// --verify-diagnostics as in mlir-opt (SPEC §6): every diagnostic meets an expected-error at its
// line whose text it contains, in each --split-input-file chunk on its own; then the exit code
// is 0 and stderr is empty. Every line designator: none, @+N, @-N, @above, @below.
// RUN: %expect-exit 0 multi-opt --split-input-file --verify-diagnostics %s 2>&1 >/dev/null | filecheck %s --allow-empty
// CHECK-NOT: {{.}}

func.func @same_line(%a: f32, %b: f64) -> f32 {
  %0 = "arith.addf"(%a, %b) : (f32, f64) -> f32 // expected-error {{does not verify}}
  func.return %0 : f32
}

// -----

func.func @plus(%a: f32, %b: f64) -> f32 {
  // expected-error @+2 {{operand 'rhs' at position 1 does not verify}}
  // a line between the comment and the op
  %0 = "arith.addf"(%a, %b) : (f32, f64) -> f32
  func.return %0 : f32
}

// -----

func.func @minus(%a: f32) -> f32 {
  func.return %a, %a : f32, f32
  // expected-error @-1 {{expected [f32], got [f32, f32]}}
}

// -----

func.func @above(%a: f32) -> f32 {
  func.return %a, %a : f32, f32
  // expected-error @above {{func.return: Expected arguments}}
}

// -----

%x = "test.op"() : () -> tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @below {{tg.pad: cannot pad the shard axis 0 (padding [1, 0])}}
%p = tg.pad %x [[1, 0]] value 0.0 : tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<5xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>

// -----

// A chunk without errors needs no expectations.
func.func @fine() {
  func.return
}

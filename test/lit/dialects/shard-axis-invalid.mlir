// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s

// A #multi.shard tensor type's axis is below the tensor's rank wherever the type appears
// (SPEC §1): our ops check their own operands, and a module-level check covers function
// signatures, block arguments and the types of every other op.

// CHECK-NOT: Traceback

// A function argument.
// expected-error @+1 {{func.func @f: argument 0 (%x): tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> is sharded on axis 1, out of range for rank 1}}
func.func @f(%x: tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>) {
  func.return
}
// CHECK: shard-axis-invalid.mlir:[[# @LINE - 3]]:14: error: func.func @f: argument 0 (%x): tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> is sharded on axis 1, out of range for rank 1
// CHECK-NEXT: {{^}}func.func @f(%x: tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>) {
// CHECK-NEXT: {{^}}             ^{{$}}

// -----

// An elementwise op of another dialect.
func.func @f(%x: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) {
  // expected-error @+1 {{test.op: result 0 (%y): tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 2>> is sharded on axis 2, out of range for rank 2}}
  %y = "test.op"() : () -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 2>>
  %z = arith.addf %y, %y : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 2>>
  func.return
}
// CHECK: shard-axis-invalid.mlir:[[# @LINE - 4]]:3: error: test.op: result 0 (%y): tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 2>> is sharded on axis 2, out of range for rank 2

// -----

// A constant.
func.func @f() {
  // expected-error @+1 {{arith.constant: result 0 (%c): tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> is sharded on axis 1, out of range for rank 1}}
  %c = arith.constant dense<1.0> : tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
  func.return
}
// CHECK: shard-axis-invalid.mlir:[[# @LINE - 3]]:3: error: arith.constant: result 0 (%c): tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> is sharded on axis 1, out of range for rank 1

// -----

// A function result type.
// expected-error @+1 {{func.func @g: property 'function_type': tensor<f32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> is sharded on axis 0, out of range for rank 0}}
func.func private @g() -> tensor<f32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: shard-axis-invalid.mlir:[[# @LINE - 1]]:1: error: func.func @g: property 'function_type': tensor<f32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> is sharded on axis 0, out of range for rank 0

// -----

// A block argument of a region.
func.func @f() {
  "test.op"() ({
  // expected-error @+1 {{test.op: argument 0 (%a): tensor<2x2xf32, #multi.shard<["CPU:0"], axis = 5>> is sharded on axis 5, out of range for rank 2}}
  ^bb0(%a: tensor<2x2xf32, #multi.shard<["CPU:0"], axis = 5>>):
    "test.termop"() : () -> ()
  }) : () -> ()
  func.return
}
// CHECK: shard-axis-invalid.mlir:[[# @LINE - 5]]:8: error: test.op: argument 0 (%a): tensor<2x2xf32, #multi.shard<["CPU:0"], axis = 5>> is sharded on axis 5, out of range for rank 2

// -----

// Our ops report it themselves, naming the operand (the op verifiers run first).
%x = "test.op"() : () -> tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 3>>
// expected-error @+1 {{tg.contiguous: operand is sharded on axis 3, out of range for rank 1: tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 3>>}}
%y = tg.contiguous %x : tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 3>>
// CHECK: shard-axis-invalid.mlir:[[# @LINE - 1]]:1: error: tg.contiguous: operand is sharded on axis 3, out of range for rank 1

// -----

// An encoding used as an attribute on its own has no rank to check.
func.func @f() attributes {s = #multi.shard<["CPU:0"], axis = 7>} {
  func.return
}
// CHECK: func.func @f() attributes {s = #multi.shard<["CPU:0"], axis = 7>}
// CHECK-NOT: Traceback

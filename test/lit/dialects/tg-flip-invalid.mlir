// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s

// One chunk per verifier rule of tg.flip (SPEC §3).

// The result type is the operand type.
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{tg.flip: result type tensor<4x8xf32> differs from operand type tensor<8x4xf32>}}
%y = tg.flip %x [0] : tensor<8x4xf32> -> tensor<4x8xf32>
// CHECK: tg-flip-invalid.mlir:[[# @LINE - 1]]:1: error: tg.flip: result type tensor<4x8xf32> differs from operand type tensor<8x4xf32>

// -----

// The result type is the operand type, encoding included.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{tg.flip: result type tensor<8x4xf32> differs from operand type tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>>}}
%y = tg.flip %x [0] : tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8x4xf32>
// CHECK: tg-flip-invalid.mlir:[[# @LINE - 1]]:1: error: tg.flip: result type tensor<8x4xf32> differs from operand type tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>>

// -----

// The element type is kept.
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{tg.flip: element types differ: operand f32, result i32}}
%y = tg.flip %x [0] : tensor<8x4xf32> -> tensor<8x4xi32>
// CHECK: tg-flip-invalid.mlir:[[# @LINE - 1]]:1: error: tg.flip: element types differ: operand f32, result i32

// -----

// Axes are in [0, rank).
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{tg.flip: axis 2 is out of range for rank 2}}
%y = tg.flip %x [2] : tensor<8x4xf32>
// CHECK: tg-flip-invalid.mlir:[[# @LINE - 1]]:1: error: tg.flip: axis 2 is out of range for rank 2

// -----

// Axes are in [0, rank): negative.
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{tg.flip: axis -1 is out of range for rank 2}}
%y = tg.flip %x [-1] : tensor<8x4xf32>
// CHECK: tg-flip-invalid.mlir:[[# @LINE - 1]]:1: error: tg.flip: axis -1 is out of range for rank 2

// -----

// Axes do not repeat.
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{tg.flip: axes [1, 1] repeat}}
%y = tg.flip %x [1, 1] : tensor<8x4xf32>
// CHECK: tg-flip-invalid.mlir:[[# @LINE - 1]]:1: error: tg.flip: axes [1, 1] repeat

// -----

// Sharded: the shard axis cannot be flipped.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{tg.flip: cannot flip the shard axis 0}}
%y = tg.flip %x [0] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: tg-flip-invalid.mlir:[[# @LINE - 1]]:1: error: tg.flip: cannot flip the shard axis 0

// -----

// Sharded: the shard axis cannot be flipped, even together with others.
%x = "test.op"() : () -> tensor<2x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// expected-error @+1 {{tg.flip: cannot flip the shard axis 1}}
%y = tg.flip %x [0, 1] : tensor<2x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// CHECK: tg-flip-invalid.mlir:[[# @LINE - 1]]:1: error: tg.flip: cannot flip the shard axis 1

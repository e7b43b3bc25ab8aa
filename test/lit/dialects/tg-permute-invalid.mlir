// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s

// One chunk per verifier rule of tg.permute (SPEC §3).

// The order is a permutation of the axes: a repeated axis.
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{tg.permute: order [0, 0] is not a permutation of the 2 axes}}
%y = tg.permute %x [0, 0] : tensor<8x4xf32> -> tensor<8x8xf32>
// CHECK: tg-permute-invalid.mlir:[[# @LINE - 1]]:1: error: tg.permute: order [0, 0] is not a permutation of the 2 axes

// -----

// The order is a permutation of the axes: too short.
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{tg.permute: order [0] is not a permutation of the 2 axes}}
%y = tg.permute %x [0] : tensor<8x4xf32> -> tensor<8xf32>
// CHECK: tg-permute-invalid.mlir:[[# @LINE - 1]]:1: error: tg.permute: order [0] is not a permutation of the 2 axes

// -----

// The order is a permutation of the axes: an axis out of range.
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{tg.permute: order [0, 2] is not a permutation of the 2 axes}}
%y = tg.permute %x [0, 2] : tensor<8x4xf32> -> tensor<8x4xf32>
// CHECK: tg-permute-invalid.mlir:[[# @LINE - 1]]:1: error: tg.permute: order [0, 2] is not a permutation of the 2 axes

// -----

// The order is a permutation of the axes: a negative axis.
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{tg.permute: order [-1, 0] is not a permutation of the 2 axes}}
%y = tg.permute %x [-1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
// CHECK: tg-permute-invalid.mlir:[[# @LINE - 1]]:1: error: tg.permute: order [-1, 0] is not a permutation of the 2 axes

// -----

// The result shape is the operand's shape permuted.
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{tg.permute: result shape must be [4, 8], found [8, 4]}}
%y = tg.permute %x [1, 0] : tensor<8x4xf32> -> tensor<8x4xf32>
// CHECK: tg-permute-invalid.mlir:[[# @LINE - 1]]:1: error: tg.permute: result shape must be [4, 8], found [8, 4]

// -----

// The element type is kept.
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{tg.permute: element types differ: operand f32, result f16}}
%y = tg.permute %x [1, 0] : tensor<8x4xf32> -> tensor<4x8xf16>
// CHECK: tg-permute-invalid.mlir:[[# @LINE - 1]]:1: error: tg.permute: element types differ: operand f32, result f16

// -----

// An unplaced or #multi.on operand keeps its encoding.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{tg.permute: result encoding must be #multi.on<["CPU:0", "CPU:1"]> for operand tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>>, found none}}
%y = tg.permute %x [1, 0] : tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x8xf32>
// CHECK: tg-permute-invalid.mlir:[[# @LINE - 1]]:1: error: tg.permute: result encoding must be #multi.on<["CPU:0", "CPU:1"]> for operand tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>>, found none

// -----

// Sharded: the shard axis moves with its data (axis 0 under [1, 0] is axis 1).
%x = "test.op"() : () -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{tg.permute: result encoding must be #multi.shard<["CPU:0", "CPU:1"], axis = 1> for operand tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found #multi.shard<["CPU:0", "CPU:1"], axis = 0>}}
%y = tg.permute %x [1, 0] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<4x8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: tg-permute-invalid.mlir:[[# @LINE - 1]]:1: error: tg.permute: result encoding must be #multi.shard<["CPU:0", "CPU:1"], axis = 1> for operand tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found #multi.shard<["CPU:0", "CPU:1"], axis = 0>

// -----

// Sharded: axis 1 under [2, 0, 1] is at position 2, not 0 (order[0] = 2 is not the rule).
%x = "test.op"() : () -> tensor<2x6x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// expected-error @+1 {{tg.permute: result encoding must be #multi.shard<["CPU:0", "CPU:1"], axis = 2> for operand tensor<2x6x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>, found #multi.shard<["CPU:0", "CPU:1"], axis = 0>}}
%y = tg.permute %x [2, 0, 1] : tensor<2x6x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> -> tensor<4x2x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: tg-permute-invalid.mlir:[[# @LINE - 1]]:1: error: tg.permute: result encoding must be #multi.shard<["CPU:0", "CPU:1"], axis = 2> for operand tensor<2x6x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>, found #multi.shard<["CPU:0", "CPU:1"], axis = 0>

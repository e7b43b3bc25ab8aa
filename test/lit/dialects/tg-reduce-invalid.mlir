// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s

// One chunk per verifier rule of tg.reduce (SPEC §3).

// The reduction is add, mul or max (generic form).
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{tg.reduce: reduction 'min' is not one of add, mul, max}}
%y = "tg.reduce"(%x) <{kind = "min", axes = array<i64: 1>}> : (tensor<8x4xf32>) -> tensor<8x1xf32>
// CHECK: tg-reduce-invalid.mlir:[[# @LINE - 1]]:1: error: tg.reduce: reduction 'min' is not one of add, mul, max

// -----

// Axes are in [0, rank).
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{tg.reduce: axis 2 is out of range for rank 2}}
%y = tg.reduce add %x [2] : tensor<8x4xf32> -> tensor<8x4xf32>
// CHECK: tg-reduce-invalid.mlir:[[# @LINE - 1]]:1: error: tg.reduce: axis 2 is out of range for rank 2

// -----

// Axes do not repeat.
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{tg.reduce: axes [0, 0] repeat}}
%y = tg.reduce add %x [0, 0] : tensor<8x4xf32> -> tensor<1x4xf32>
// CHECK: tg-reduce-invalid.mlir:[[# @LINE - 1]]:1: error: tg.reduce: axes [0, 0] repeat

// -----

// Reduced axes are kept as size 1 (not dropped).
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{tg.reduce: result shape must be [8, 1] (reduced axes kept as 1), found [8]}}
%y = tg.reduce add %x [1] : tensor<8x4xf32> -> tensor<8xf32>
// CHECK: tg-reduce-invalid.mlir:[[# @LINE - 1]]:1: error: tg.reduce: result shape must be [8, 1] (reduced axes kept as 1), found [8]

// -----

// Other axes are kept.
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{tg.reduce: result shape must be [8, 1] (reduced axes kept as 1), found [4, 1]}}
%y = tg.reduce max %x [1] : tensor<8x4xf32> -> tensor<4x1xf32>
// CHECK: tg-reduce-invalid.mlir:[[# @LINE - 1]]:1: error: tg.reduce: result shape must be [8, 1] (reduced axes kept as 1), found [4, 1]

// -----

// The element type is kept.
%x = "test.op"() : () -> tensor<8x4xi32>
// expected-error @+1 {{tg.reduce: element types differ: operand i32, result i64}}
%y = tg.reduce mul %x [1] : tensor<8x4xi32> -> tensor<8x1xi64>
// CHECK: tg-reduce-invalid.mlir:[[# @LINE - 1]]:1: error: tg.reduce: element types differ: operand i32, result i64

// -----

// An unplaced or #multi.on operand keeps its encoding.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{tg.reduce: result encoding must be #multi.on<["CPU:0", "CPU:1"]> for operand tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>>, found none}}
%y = tg.reduce add %x [0] : tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<1x4xf32>
// CHECK: tg-reduce-invalid.mlir:[[# @LINE - 1]]:1: error: tg.reduce: result encoding must be #multi.on<["CPU:0", "CPU:1"]> for operand tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>>, found none

// -----

// Sharded, reducing the shard axis: the result is #multi.on on the operand's devices.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{tg.reduce: result encoding must be #multi.on<["CPU:0", "CPU:1"]> for operand tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found #multi.shard<["CPU:0", "CPU:1"], axis = 0>}}
%y = tg.reduce add %x [0] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<1x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: tg-reduce-invalid.mlir:[[# @LINE - 1]]:1: error: tg.reduce: result encoding must be #multi.on<["CPU:0", "CPU:1"]> for operand tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found #multi.shard<["CPU:0", "CPU:1"], axis = 0>

// -----

// Sharded, reducing the shard axis: not an unplaced result.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{tg.reduce: result encoding must be #multi.on<["CPU:0", "CPU:1"]> for operand tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found none}}
%y = tg.reduce max %x [0, 1] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<1x1xf32>
// CHECK: tg-reduce-invalid.mlir:[[# @LINE - 1]]:1: error: tg.reduce: result encoding must be #multi.on<["CPU:0", "CPU:1"]> for operand tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found none

// -----

// Sharded, reducing the shard axis: all the operand's devices, in order.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{tg.reduce: result encoding must be #multi.on<["CPU:0", "CPU:1"]> for operand tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found #multi.on<["CPU:1", "CPU:0"]>}}
%y = tg.reduce add %x [0] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<1x4xf32, #multi.on<["CPU:1", "CPU:0"]>>
// CHECK: tg-reduce-invalid.mlir:[[# @LINE - 1]]:1: error: tg.reduce: result encoding must be #multi.on<["CPU:0", "CPU:1"]> for operand tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found #multi.on<["CPU:1", "CPU:0"]>

// -----

// Sharded, reducing another axis: the shard is kept.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{tg.reduce: result encoding must be #multi.shard<["CPU:0", "CPU:1"], axis = 0> for operand tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found #multi.on<["CPU:0", "CPU:1"]>}}
%y = tg.reduce add %x [1] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x1xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: tg-reduce-invalid.mlir:[[# @LINE - 1]]:1: error: tg.reduce: result encoding must be #multi.shard<["CPU:0", "CPU:1"], axis = 0> for operand tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found #multi.on<["CPU:0", "CPU:1"]>

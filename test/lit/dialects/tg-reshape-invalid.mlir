// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s

// One chunk per verifier rule of tg.reshape (SPEC §3).

// The element count is kept.
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{tg.reshape: cannot reshape [8, 4] (32 elements) to [30] (30 elements)}}
%y = tg.reshape %x : tensor<8x4xf32> -> tensor<30xf32>
// CHECK: tg-reshape-invalid.mlir:[[# @LINE - 1]]:1: error: tg.reshape: cannot reshape [8, 4] (32 elements) to [30] (30 elements)

// -----

// The element type is kept.
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{tg.reshape: element types differ: operand f32, result i32}}
%y = tg.reshape %x : tensor<8x4xf32> -> tensor<32xi32>
// CHECK: tg-reshape-invalid.mlir:[[# @LINE - 1]]:1: error: tg.reshape: element types differ: operand f32, result i32

// -----

// An unplaced operand gives an unplaced result.
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{tg.reshape: result encoding must be none for operand tensor<8x4xf32>, found #multi.on<["CPU:0"]>}}
%y = tg.reshape %x : tensor<8x4xf32> -> tensor<32xf32, #multi.on<["CPU:0"]>>
// CHECK: tg-reshape-invalid.mlir:[[# @LINE - 1]]:1: error: tg.reshape: result encoding must be none for operand tensor<8x4xf32>, found #multi.on<["CPU:0"]>

// -----

// A #multi.on operand keeps its encoding.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{tg.reshape: result encoding must be #multi.on<["CPU:0", "CPU:1"]> for operand tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>>, found #multi.on<["CPU:1", "CPU:0"]>}}
%y = tg.reshape %x : tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<32xf32, #multi.on<["CPU:1", "CPU:0"]>>
// CHECK: tg-reshape-invalid.mlir:[[# @LINE - 1]]:1: error: tg.reshape: result encoding must be #multi.on<["CPU:0", "CPU:1"]> for operand tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>>, found #multi.on<["CPU:1", "CPU:0"]>

// -----

// Sharded: no new axis starts where the shard axis starts (4x6 on axis 1: after 4 elements;
// 3x8 has axes starting after 1, 3 and 24).
%x = "test.op"() : () -> tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// expected-error @+1 {{tg.reshape: reshape [4, 6] -> [3, 8] moves the shard boundary of axis 1: no new axis starts after 4 elements}}
%y = tg.reshape %x : tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> -> tensor<3x8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// CHECK: tg-reshape-invalid.mlir:[[# @LINE - 1]]:1: error: tg.reshape: reshape [4, 6] -> [3, 8] moves the shard boundary of axis 1: no new axis starts after 4 elements

// -----

// Sharded: an uneven split (7 over 3) survives only if the shard axis is kept whole.
%x = "test.op"() : () -> tensor<7x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// expected-error @+1 {{tg.reshape: reshape [7, 4] -> [28] of a value sharded on axis 0 over 3 devices would move elements between devices}}
%y = tg.reshape %x : tensor<7x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<28xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK: tg-reshape-invalid.mlir:[[# @LINE - 1]]:1: error: tg.reshape: reshape [7, 4] -> [28] of a value sharded on axis 0 over 3 devices would move elements between devices

// -----

// Sharded, even split: the new shard axis must be divisible by the number of devices
// (6x4 over 2 -> 3x8 would put row 1 of the result on both devices).
%x = "test.op"() : () -> tensor<6x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{tg.reshape: reshape [6, 4] -> [3, 8] of a value sharded on axis 0 over 2 devices would move elements between devices}}
%y = tg.reshape %x : tensor<6x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<3x8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: tg-reshape-invalid.mlir:[[# @LINE - 1]]:1: error: tg.reshape: reshape [6, 4] -> [3, 8] of a value sharded on axis 0 over 2 devices would move elements between devices

// -----

// Sharded, even split: splitting the shard axis into too few leading entries (4x4 over 4 ->
// 2x8: 2 is not divisible by 4).
%x = "test.op"() : () -> tensor<4x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], axis = 0>>
// expected-error @+1 {{tg.reshape: reshape [4, 4] -> [2, 8] of a value sharded on axis 0 over 4 devices would move elements between devices}}
%y = tg.reshape %x : tensor<4x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], axis = 0>> -> tensor<2x8xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], axis = 0>>
// CHECK: tg-reshape-invalid.mlir:[[# @LINE - 1]]:1: error: tg.reshape: reshape [4, 4] -> [2, 8] of a value sharded on axis 0 over 4 devices would move elements between devices

// -----

// Sharded: the result is sharded on the new shard axis a' (here 2, not 1).
%x = "test.op"() : () -> tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// expected-error @+1 {{tg.reshape: result encoding must be #multi.shard<["CPU:0", "CPU:1"], axis = 2> for operand tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>, found #multi.shard<["CPU:0", "CPU:1"], axis = 1>}}
%y = tg.reshape %x : tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> -> tensor<2x2x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// CHECK: tg-reshape-invalid.mlir:[[# @LINE - 1]]:1: error: tg.reshape: result encoding must be #multi.shard<["CPU:0", "CPU:1"], axis = 2> for operand tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>, found #multi.shard<["CPU:0", "CPU:1"], axis = 1>

// -----

// Sharded: a' is the LAST axis with the same prefix product (a leading 1 moves it to 1).
%x = "test.op"() : () -> tensor<6x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// expected-error @+1 {{tg.reshape: result encoding must be #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1> for operand tensor<6x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>, found #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>}}
%y = tg.reshape %x : tensor<6x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<1x6x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK: tg-reshape-invalid.mlir:[[# @LINE - 1]]:1: error: tg.reshape: result encoding must be #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1> for operand tensor<6x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>, found #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>

// -----

// Sharded: the result stays sharded (not gathered, not #multi.on).
%x = "test.op"() : () -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{tg.reshape: result encoding must be #multi.shard<["CPU:0", "CPU:1"], axis = 0> for operand tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found #multi.on<["CPU:0", "CPU:1"]>}}
%y = tg.reshape %x : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<32xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: tg-reshape-invalid.mlir:[[# @LINE - 1]]:1: error: tg.reshape: result encoding must be #multi.shard<["CPU:0", "CPU:1"], axis = 0> for operand tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found #multi.on<["CPU:0", "CPU:1"]>

// -----

// Sharded: the result keeps the operand's devices.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{tg.reshape: result encoding must be #multi.shard<["CPU:0", "CPU:1"], axis = 0> for operand tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found #multi.shard<["CPU:1", "CPU:0"], axis = 0>}}
%y = tg.reshape %x : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x2x2xf32, #multi.shard<["CPU:1", "CPU:0"], axis = 0>>
// CHECK: tg-reshape-invalid.mlir:[[# @LINE - 1]]:1: error: tg.reshape: result encoding must be #multi.shard<["CPU:0", "CPU:1"], axis = 0> for operand tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found #multi.shard<["CPU:1", "CPU:0"], axis = 0>

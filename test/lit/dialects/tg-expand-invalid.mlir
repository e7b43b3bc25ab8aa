// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s

// One chunk per verifier rule of tg.expand (SPEC §3).

// The rank is kept.
%x = "test.op"() : () -> tensor<4xf32>
// expected-error @+1 {{tg.expand: expand keeps the rank: operand [4], result [8, 4]}}
%y = tg.expand %x : tensor<4xf32> -> tensor<8x4xf32>
// CHECK: tg-expand-invalid.mlir:[[# @LINE - 1]]:1: error: tg.expand: expand keeps the rank: operand [4], result [8, 4]

// -----

// Only size-1 axes expand.
%x = "test.op"() : () -> tensor<2x4xf32>
// expected-error @+1 {{tg.expand: axis 0 of size 2 cannot expand to 8 (only size 1 expands)}}
%y = tg.expand %x : tensor<2x4xf32> -> tensor<8x4xf32>
// CHECK: tg-expand-invalid.mlir:[[# @LINE - 1]]:1: error: tg.expand: axis 0 of size 2 cannot expand to 8 (only size 1 expands)

// -----

// An axis cannot shrink either.
%x = "test.op"() : () -> tensor<2x4xf32>
// expected-error @+1 {{tg.expand: axis 1 of size 4 cannot expand to 1 (only size 1 expands)}}
%y = tg.expand %x : tensor<2x4xf32> -> tensor<2x1xf32>
// CHECK: tg-expand-invalid.mlir:[[# @LINE - 1]]:1: error: tg.expand: axis 1 of size 4 cannot expand to 1 (only size 1 expands)

// -----

// The element type is kept.
%x = "test.op"() : () -> tensor<1x4xf32>
// expected-error @+1 {{tg.expand: element types differ: operand f32, result i1}}
%y = tg.expand %x : tensor<1x4xf32> -> tensor<8x4xi1>
// CHECK: tg-expand-invalid.mlir:[[# @LINE - 1]]:1: error: tg.expand: element types differ: operand f32, result i1

// -----

// An unplaced operand gives an unplaced result.
%x = "test.op"() : () -> tensor<1x4xf32>
// expected-error @+1 {{tg.expand: result encoding must be none for operand tensor<1x4xf32>, found #multi.shard<["CPU:0", "CPU:1"], axis = 0>}}
%y = tg.expand %x : tensor<1x4xf32> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: tg-expand-invalid.mlir:[[# @LINE - 1]]:1: error: tg.expand: result encoding must be none for operand tensor<1x4xf32>, found #multi.shard<["CPU:0", "CPU:1"], axis = 0>

// -----

// Sharded: the shard axis may not expand.
%x = "test.op"() : () -> tensor<1x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{tg.expand: cannot expand the shard axis 0 from 1 to 8}}
%y = tg.expand %x : tensor<1x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: tg-expand-invalid.mlir:[[# @LINE - 1]]:1: error: tg.expand: cannot expand the shard axis 0 from 1 to 8

// -----

// Sharded: the axis and the devices are kept.
%x = "test.op"() : () -> tensor<8x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{tg.expand: result encoding must be #multi.shard<["CPU:0", "CPU:1"], axis = 0> for operand tensor<8x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found #multi.shard<["CPU:0", "CPU:1"], axis = 1>}}
%y = tg.expand %x : tensor<8x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// CHECK: tg-expand-invalid.mlir:[[# @LINE - 1]]:1: error: tg.expand: result encoding must be #multi.shard<["CPU:0", "CPU:1"], axis = 0> for operand tensor<8x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found #multi.shard<["CPU:0", "CPU:1"], axis = 1>

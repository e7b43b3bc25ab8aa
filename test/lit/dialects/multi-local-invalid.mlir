// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s

// One chunk per verifier rule of multi.local (SPEC §2).

// The source must be #multi.shard: a #multi.on value.
%x = "test.op"() : () -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.local: source must be #multi.shard, found tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>}}
%l = multi.local %x : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: multi-local-invalid.mlir:[[# @LINE - 1]]:1: error: multi.local: source must be #multi.shard, found tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>

// -----

// The source must be #multi.shard: unplaced.
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{multi.local: source must be #multi.shard, found tensor<8x4xf32>}}
%l = multi.local %x : tensor<8x4xf32> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: multi-local-invalid.mlir:[[# @LINE - 1]]:1: error: multi.local: source must be #multi.shard, found tensor<8x4xf32>

// -----

// The result is #multi.on: not a shard.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{multi.local: result must be placed on a tuple of devices (#multi.on), found tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>}}
%l = multi.local %x : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: multi-local-invalid.mlir:[[# @LINE - 1]]:1: error: multi.local: result must be placed on a tuple of devices (#multi.on), found tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>

// -----

// The result is on the same devices: another set.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{multi.local: result devices ["CPU:0", "CPU:2"] differ from source devices ["CPU:0", "CPU:1"]}}
%l = multi.local %x : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:2"]>>
// CHECK: multi-local-invalid.mlir:[[# @LINE - 1]]:1: error: multi.local: result devices ["CPU:0", "CPU:2"] differ from source devices ["CPU:0", "CPU:1"]

// -----

// The result is on the same devices in order.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{multi.local: result devices ["CPU:1", "CPU:0"] differ from source devices ["CPU:0", "CPU:1"]}}
%l = multi.local %x : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<4x4xf32, #multi.on<["CPU:1", "CPU:0"]>>
// CHECK: multi-local-invalid.mlir:[[# @LINE - 1]]:1: error: multi.local: result devices ["CPU:1", "CPU:0"] differ from source devices ["CPU:0", "CPU:1"]

// -----

// Same element type.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{multi.local: element types differ: source f32, result i32}}
%l = multi.local %x : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<4x4xi32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: multi-local-invalid.mlir:[[# @LINE - 1]]:1: error: multi.local: element types differ: source f32, result i32

// -----

// The local shape: ceil along the axis (7 rows over 2 devices are 4-row buffers).
%x = "test.op"() : () -> tensor<7x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{multi.local: result shape [3, 4] is not the local shape [4, 4] of [7, 4] sharded on axis 0 over 2 devices (ceil(7/2) = 4 rows)}}
%l = multi.local %x : tensor<7x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<3x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: multi-local-invalid.mlir:[[# @LINE - 1]]:1: error: multi.local: result shape [3, 4] is not the local shape [4, 4] of [7, 4] sharded on axis 0 over 2 devices (ceil(7/2) = 4 rows)

// -----

// The local shape: other axes keep their length.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{multi.local: result shape [4, 2] is not the local shape [4, 4] of [8, 4] sharded on axis 0 over 2 devices (ceil(8/2) = 4 rows)}}
%l = multi.local %x : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<4x2xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: multi-local-invalid.mlir:[[# @LINE - 1]]:1: error: multi.local: result shape [4, 2] is not the local shape [4, 4] of [8, 4] sharded on axis 0 over 2 devices (ceil(8/2) = 4 rows)

// -----

// The local shape: same rank.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// expected-error @+1 {{multi.local: result shape [8, 2, 1] is not the local shape [8, 2] of [8, 4] sharded on axis 1 over 2 devices (ceil(4/2) = 2 rows)}}
%l = multi.local %x : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> -> tensor<8x2x1xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: multi-local-invalid.mlir:[[# @LINE - 1]]:1: error: multi.local: result shape [8, 2, 1] is not the local shape [8, 2] of [8, 4] sharded on axis 1 over 2 devices (ceil(4/2) = 2 rows)

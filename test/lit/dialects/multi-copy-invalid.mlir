// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s

// One chunk per verifier rule of multi.copy (SPEC §2).

// The source must be placed.
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{multi.copy: source must be placed (#multi.on or #multi.shard), found tensor<8x4xf32>}}
%c = multi.copy %x : tensor<8x4xf32> -> tensor<8x4xf32, #multi.on<["CPU:0"]>>
// CHECK: multi-copy-invalid.mlir:[[# @LINE - 1]]:1: error: multi.copy: source must be placed (#multi.on or #multi.shard), found tensor<8x4xf32>

// -----

// The result must be placed.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.on<["CPU:0"]>>
// expected-error @+1 {{multi.copy: result must be placed (#multi.on or #multi.shard), found tensor<8x4xf32>}}
%c = multi.copy %x : tensor<8x4xf32, #multi.on<["CPU:0"]>> -> tensor<8x4xf32>
// CHECK: multi-copy-invalid.mlir:[[# @LINE - 1]]:1: error: multi.copy: result must be placed (#multi.on or #multi.shard), found tensor<8x4xf32>

// -----

// Same element type.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.on<["CPU:0"]>>
// expected-error @+1 {{multi.copy: element types differ: source f32, result i32}}
%c = multi.copy %x : tensor<8x4xf32, #multi.on<["CPU:0"]>> -> tensor<8x4xi32, #multi.on<["CPU:1"]>>
// CHECK: multi-copy-invalid.mlir:[[# @LINE - 1]]:1: error: multi.copy: element types differ: source f32, result i32

// -----

// The result's shard axis is in [0, rank).
%x = "test.op"() : () -> tensor<8x4xf32, #multi.on<["CPU:0"]>>
// expected-error @+1 {{multi.copy: result is sharded on axis 2, out of range for rank 2: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 2>>}}
%c = multi.copy %x : tensor<8x4xf32, #multi.on<["CPU:0"]>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 2>>
// CHECK: multi-copy-invalid.mlir:[[# @LINE - 1]]:1: error: multi.copy: result is sharded on axis 2, out of range for rank 2: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 2>>

// -----

// Logical shapes agree: a transfer to one device.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.on<["CPU:0"]>>
// expected-error @+1 {{multi.copy: the source's logical shape [8, 4] differs from the result's [4, 4] (to-one copy)}}
%c = multi.copy %x : tensor<8x4xf32, #multi.on<["CPU:0"]>> -> tensor<4x4xf32, #multi.on<["CPU:1"]>>
// CHECK: multi-copy-invalid.mlir:[[# @LINE - 1]]:1: error: multi.copy: the source's logical shape [8, 4] differs from the result's [4, 4] (to-one copy)

// -----

// Logical shapes agree: a scatter's shard type carries the full logical shape, not a slice.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.on<["CPU:0"]>>
// expected-error @+1 {{multi.copy: the source's logical shape [8, 4] differs from the result's [4, 4] (scatter copy)}}
%c = multi.copy %x : tensor<8x4xf32, #multi.on<["CPU:0"]>> -> tensor<4x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: multi-copy-invalid.mlir:[[# @LINE - 1]]:1: error: multi.copy: the source's logical shape [8, 4] differs from the result's [4, 4] (scatter copy)

// -----

// Logical shapes agree: a gather gives the full tensor, not one shard.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{multi.copy: the source's logical shape [8, 4] differs from the result's [4, 4] (to-one copy)}}
%c = multi.copy %x : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<4x4xf32, #multi.on<["CPU:0"]>>
// CHECK: multi-copy-invalid.mlir:[[# @LINE - 1]]:1: error: multi.copy: the source's logical shape [8, 4] differs from the result's [4, 4] (to-one copy)

// -----

// Logical shapes agree: a broadcast.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.on<["CPU:0"]>>
// expected-error @+1 {{multi.copy: the source's logical shape [8, 4] differs from the result's [8, 2] (broadcast copy)}}
%c = multi.copy %x : tensor<8x4xf32, #multi.on<["CPU:0"]>> -> tensor<8x2xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: multi-copy-invalid.mlir:[[# @LINE - 1]]:1: error: multi.copy: the source's logical shape [8, 4] differs from the result's [8, 2] (broadcast copy)

// -----

// Logical shapes agree: a permute of buffers.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.copy: the source's logical shape [8, 4] differs from the result's [4, 8] (permute copy)}}
%c = multi.copy %x : tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x8xf32, #multi.on<["CPU:1", "CPU:0"]>>
// CHECK: multi-copy-invalid.mlir:[[# @LINE - 1]]:1: error: multi.copy: the source's logical shape [8, 4] differs from the result's [4, 8] (permute copy)

// -----

// Logical shapes agree: keep-slice (on -> shard on the same devices) keeps the buffer shape
// as the logical shape.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.copy: the source's logical shape [8, 4] differs from the result's [16, 4] (keep-slice copy)}}
%c = multi.copy %x : tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<16x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: multi-copy-invalid.mlir:[[# @LINE - 1]]:1: error: multi.copy: the source's logical shape [8, 4] differs from the result's [16, 4] (keep-slice copy)

// -----

// Logical shapes agree: a reshard.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{multi.copy: the source's logical shape [8, 4] differs from the result's [8, 4, 1] (scatter copy)}}
%c = multi.copy %x : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x4x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// CHECK: multi-copy-invalid.mlir:[[# @LINE - 1]]:1: error: multi.copy: the source's logical shape [8, 4] differs from the result's [8, 4, 1] (scatter copy)

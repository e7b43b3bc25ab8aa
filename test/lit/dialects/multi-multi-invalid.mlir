// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s

// One chunk per verifier rule of multi.multi (SPEC §2).

// The source must be placed on a tuple of devices: an unplaced source.
%x = "test.op"() : () -> tensor<4x4xf32>
// expected-error @+1 {{multi.multi: source must be placed on a tuple of devices (#multi.on), found tensor<4x4xf32>}}
%m = multi.multi %x axis 0 : tensor<4x4xf32> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: multi-multi-invalid.mlir:[[# @LINE - 1]]:1: error: multi.multi: source must be placed on a tuple of devices (#multi.on), found tensor<4x4xf32>

// -----

// The source must be placed on a tuple of devices: a sharded source.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{multi.multi: source must be placed on a tuple of devices (#multi.on), found tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>}}
%m = multi.multi %x axis 0 : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<16x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: multi-multi-invalid.mlir:[[# @LINE - 1]]:1: error: multi.multi: source must be placed on a tuple of devices (#multi.on), found tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>

// -----

// The result must be #multi.shard.
%x = "test.op"() : () -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.multi: result must be #multi.shard, found tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>>}}
%m = multi.multi %x axis 0 : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: multi-multi-invalid.mlir:[[# @LINE - 1]]:1: error: multi.multi: result must be #multi.shard, found tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>>

// -----

// The result must be #multi.shard: an unplaced result.
%x = "test.op"() : () -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.multi: result must be #multi.shard, found tensor<8x4xf32>}}
%m = multi.multi %x axis 0 : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8x4xf32>
// CHECK: multi-multi-invalid.mlir:[[# @LINE - 1]]:1: error: multi.multi: result must be #multi.shard, found tensor<8x4xf32>

// -----

// The result's devices are the source's: different names.
%x = "test.op"() : () -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.multi: result devices ["CPU:0", "CPU:2"] differ from source devices ["CPU:0", "CPU:1"]}}
%m = multi.multi %x axis 0 : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:2"], axis = 0>>
// CHECK: multi-multi-invalid.mlir:[[# @LINE - 1]]:1: error: multi.multi: result devices ["CPU:0", "CPU:2"] differ from source devices ["CPU:0", "CPU:1"]

// -----

// The result's devices are the source's: same names, another order.
%x = "test.op"() : () -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.multi: result devices ["CPU:1", "CPU:0"] differ from source devices ["CPU:0", "CPU:1"]}}
%m = multi.multi %x axis 0 : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8x4xf32, #multi.shard<["CPU:1", "CPU:0"], axis = 0>>
// CHECK: multi-multi-invalid.mlir:[[# @LINE - 1]]:1: error: multi.multi: result devices ["CPU:1", "CPU:0"] differ from source devices ["CPU:0", "CPU:1"]

// -----

// The result's devices are the source's: a different number of devices.
%x = "test.op"() : () -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.multi: result devices ["CPU:0", "CPU:1", "CPU:2"] differ from source devices ["CPU:0", "CPU:1"]}}
%m = multi.multi %x axis 0 : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<12x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK: multi-multi-invalid.mlir:[[# @LINE - 1]]:1: error: multi.multi: result devices ["CPU:0", "CPU:1", "CPU:2"] differ from source devices ["CPU:0", "CPU:1"]

// -----

// The result is sharded on the op's axis.
%x = "test.op"() : () -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.multi: result is sharded on axis 1, op axis is 0}}
%m = multi.multi %x axis 0 : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// CHECK: multi-multi-invalid.mlir:[[# @LINE - 1]]:1: error: multi.multi: result is sharded on axis 1, op axis is 0

// -----

// The axis is in [0, rank).
%x = "test.op"() : () -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.multi: axis 2 is out of range for rank 2}}
%m = multi.multi %x axis 2 : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: multi-multi-invalid.mlir:[[# @LINE - 1]]:1: error: multi.multi: axis 2 is out of range for rank 2

// -----

// A shard encoding's axis is in [0, rank) of its tensor (checked for every operand and result).
%x = "test.op"() : () -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.multi: result is sharded on axis 2, out of range for rank 2: tensor<4x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 2>>}}
%m = multi.multi %x axis 2 : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 2>>
// CHECK: multi-multi-invalid.mlir:[[# @LINE - 1]]:1: error: multi.multi: result is sharded on axis 2, out of range for rank 2: tensor<4x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 2>>

// -----

// A negative axis is out of range.
%x = "test.op"() : () -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.multi: axis -1 is out of range for rank 2}}
%m = multi.multi %x axis -1 : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// CHECK: multi-multi-invalid.mlir:[[# @LINE - 1]]:1: error: multi.multi: axis -1 is out of range for rank 2

// -----

// A rank-0 source has no axis to split.
%x = "test.op"() : () -> tensor<f32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.multi: axis 0 is out of range for rank 0}}
%m = multi.multi %x axis 0 : tensor<f32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<f32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: multi-multi-invalid.mlir:[[# @LINE - 1]]:1: error: multi.multi: axis 0 is out of range for rank 0

// -----

// Same element type.
%x = "test.op"() : () -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.multi: element types differ: source f32, result i32}}
%m = multi.multi %x axis 0 : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8x4xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: multi-multi-invalid.mlir:[[# @LINE - 1]]:1: error: multi.multi: element types differ: source f32, result i32

// -----

// Same rank.
%x = "test.op"() : () -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.multi: result rank 3 differs from source rank 2}}
%m = multi.multi %x axis 0 : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8x4x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: multi-multi-invalid.mlir:[[# @LINE - 1]]:1: error: multi.multi: result rank 3 differs from source rank 2

// -----

// Dimensions other than the axis are the source's.
%x = "test.op"() : () -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.multi: dimension 1 is 5 in the result but 4 in the source}}
%m = multi.multi %x axis 0 : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8x5xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: multi-multi-invalid.mlir:[[# @LINE - 1]]:1: error: multi.multi: dimension 1 is 5 in the result but 4 in the source

// -----

// The local length is ceil(L / N): 4 rows per device cannot hold 9 rows over 2 devices.
%x = "test.op"() : () -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.multi: local length 4 on axis 0 does not fit logical length 9 over 2 devices (expected ceil(9/2) = 5)}}
%m = multi.multi %x axis 0 : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<9x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: multi-multi-invalid.mlir:[[# @LINE - 1]]:1: error: multi.multi: local length 4 on axis 0 does not fit logical length 9 over 2 devices (expected ceil(9/2) = 5)

// -----

// The local length is ceil(L / N): 7 rows over 3 devices need local buffers of 3 rows, not 2.
%x = "test.op"() : () -> tensor<2x4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
// expected-error @+1 {{multi.multi: local length 2 on axis 0 does not fit logical length 7 over 3 devices (expected ceil(7/3) = 3)}}
%m = multi.multi %x axis 0 : tensor<2x4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<7x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK: multi-multi-invalid.mlir:[[# @LINE - 1]]:1: error: multi.multi: local length 2 on axis 0 does not fit logical length 7 over 3 devices (expected ceil(7/3) = 3)

// -----

// The local length is ceil(L / N): 4 rows over 3 devices need local buffers of 2 rows, not 1.
%x = "test.op"() : () -> tensor<1x4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
// expected-error @+1 {{multi.multi: local length 1 on axis 0 does not fit logical length 4 over 3 devices (expected ceil(4/3) = 2)}}
%m = multi.multi %x axis 0 : tensor<1x4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<4x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK: multi-multi-invalid.mlir:[[# @LINE - 1]]:1: error: multi.multi: local length 1 on axis 0 does not fit logical length 4 over 3 devices (expected ceil(4/3) = 2)

// -----

// The local length is ceil(L / N): a logical length smaller than the local one.
%x = "test.op"() : () -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.multi: local length 4 on axis 0 does not fit logical length 4 over 2 devices (expected ceil(4/2) = 2)}}
%m = multi.multi %x axis 0 : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: multi-multi-invalid.mlir:[[# @LINE - 1]]:1: error: multi.multi: local length 4 on axis 0 does not fit logical length 4 over 2 devices (expected ceil(4/2) = 2)

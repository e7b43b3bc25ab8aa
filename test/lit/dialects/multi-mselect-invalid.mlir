// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s

// One chunk per verifier rule of multi.mselect (SPEC §2).

// The source must be placed on a tuple: unplaced.
%x = "test.op"() : () -> tensor<4x4xf32>
// expected-error @+1 {{multi.mselect: source must be placed on a tuple of devices (#multi.on), found tensor<4x4xf32>}}
%s = multi.mselect %x[0] : tensor<4x4xf32> -> tensor<4x4xf32, #multi.on<["CPU:0"]>>
// CHECK: multi-mselect-invalid.mlir:[[# @LINE - 1]]:1: error: multi.mselect: source must be placed on a tuple of devices (#multi.on), found tensor<4x4xf32>

// -----

// The source must be placed on a tuple: sharded.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{multi.mselect: source must be placed on a tuple of devices (#multi.on), found tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>}}
%s = multi.mselect %x[0] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<4x4xf32, #multi.on<["CPU:0"]>>
// CHECK: multi-mselect-invalid.mlir:[[# @LINE - 1]]:1: error: multi.mselect: source must be placed on a tuple of devices (#multi.on), found tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>

// -----

// 0 <= index < number of devices.
%x = "test.op"() : () -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.mselect: index 2 is out of range for 2 devices}}
%s = multi.mselect %x[2] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x4xf32, #multi.on<["CPU:1"]>>
// CHECK: multi-mselect-invalid.mlir:[[# @LINE - 1]]:1: error: multi.mselect: index 2 is out of range for 2 devices

// -----

// A negative index is out of range.
%x = "test.op"() : () -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.mselect: index -1 is out of range for 2 devices}}
%s = multi.mselect %x[-1] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x4xf32, #multi.on<["CPU:1"]>>
// CHECK: multi-mselect-invalid.mlir:[[# @LINE - 1]]:1: error: multi.mselect: index -1 is out of range for 2 devices

// -----

// The result is placed on exactly the selected device: another device.
%x = "test.op"() : () -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.mselect: result must be placed on exactly device "CPU:1" (#multi.on<["CPU:1"]>), found tensor<4x4xf32, #multi.on<["CPU:0"]>>}}
%s = multi.mselect %x[1] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x4xf32, #multi.on<["CPU:0"]>>
// CHECK: multi-mselect-invalid.mlir:[[# @LINE - 1]]:1: error: multi.mselect: result must be placed on exactly device "CPU:1" (#multi.on<["CPU:1"]>), found tensor<4x4xf32, #multi.on<["CPU:0"]>>

// -----

// The result is placed on exactly the selected device: not on all of them.
%x = "test.op"() : () -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.mselect: result must be placed on exactly device "CPU:0" (#multi.on<["CPU:0"]>), found tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>}}
%s = multi.mselect %x[0] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: multi-mselect-invalid.mlir:[[# @LINE - 1]]:1: error: multi.mselect: result must be placed on exactly device "CPU:0" (#multi.on<["CPU:0"]>), found tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>

// -----

// The result is placed on exactly the selected device: an unplaced result.
%x = "test.op"() : () -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.mselect: result must be placed on exactly device "CPU:0" (#multi.on<["CPU:0"]>), found tensor<4x4xf32>}}
%s = multi.mselect %x[0] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x4xf32>
// CHECK: multi-mselect-invalid.mlir:[[# @LINE - 1]]:1: error: multi.mselect: result must be placed on exactly device "CPU:0" (#multi.on<["CPU:0"]>), found tensor<4x4xf32>

// -----

// The result is placed on exactly the selected device: a one-device shard is not a placement on it.
%x = "test.op"() : () -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.mselect: result must be placed on exactly device "CPU:0" (#multi.on<["CPU:0"]>), found tensor<4x4xf32, #multi.shard<["CPU:0"], axis = 0>>}}
%s = multi.mselect %x[0] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x4xf32, #multi.shard<["CPU:0"], axis = 0>>
// CHECK: multi-mselect-invalid.mlir:[[# @LINE - 1]]:1: error: multi.mselect: result must be placed on exactly device "CPU:0" (#multi.on<["CPU:0"]>), found tensor<4x4xf32, #multi.shard<["CPU:0"], axis = 0>>

// -----

// Same element type.
%x = "test.op"() : () -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.mselect: element types differ: source f32, result f16}}
%s = multi.mselect %x[1] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x4xf16, #multi.on<["CPU:1"]>>
// CHECK: multi-mselect-invalid.mlir:[[# @LINE - 1]]:1: error: multi.mselect: element types differ: source f32, result f16

// -----

// Same shape.
%x = "test.op"() : () -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.mselect: result shape [8, 4] differs from source shape [4, 4]}}
%s = multi.mselect %x[1] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8x4xf32, #multi.on<["CPU:1"]>>
// CHECK: multi-mselect-invalid.mlir:[[# @LINE - 1]]:1: error: multi.mselect: result shape [8, 4] differs from source shape [4, 4]

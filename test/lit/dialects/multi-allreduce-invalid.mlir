// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s

// One chunk per verifier rule of multi.allreduce (SPEC §2).

// The reduction is add, mul or max (the generic form can write any string).
%x = "test.op"() : () -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.allreduce: reduction 'min' is not one of add, mul, max}}
%r = "multi.allreduce"(%x) <{kind = "min"}> : (tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: multi-allreduce-invalid.mlir:[[# @LINE - 1]]:1: error: multi.allreduce: reduction 'min' is not one of add, mul, max

// -----

// The source is placed on devices: unplaced.
%x = "test.op"() : () -> tensor<4xf32>
// expected-error @+1 {{multi.allreduce: source must be placed on a tuple of devices (#multi.on), found tensor<4xf32>}}
%r = multi.allreduce add %x : tensor<4xf32> -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: multi-allreduce-invalid.mlir:[[# @LINE - 1]]:1: error: multi.allreduce: source must be placed on a tuple of devices (#multi.on), found tensor<4xf32>

// -----

// The source is placed on devices: sharded.
%x = "test.op"() : () -> tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{multi.allreduce: source must be placed on a tuple of devices (#multi.on), found tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>}}
%r = multi.allreduce add %x : tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: multi-allreduce-invalid.mlir:[[# @LINE - 1]]:1: error: multi.allreduce: source must be placed on a tuple of devices (#multi.on), found tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>

// -----

// The result is placed on devices: unplaced.
%x = "test.op"() : () -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.allreduce: result must be placed on a tuple of devices (#multi.on), found tensor<4xf32>}}
%r = multi.allreduce mul %x : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4xf32>
// CHECK: multi-allreduce-invalid.mlir:[[# @LINE - 1]]:1: error: multi.allreduce: result must be placed on a tuple of devices (#multi.on), found tensor<4xf32>

// -----

// The result is placed on devices: sharded.
%x = "test.op"() : () -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.allreduce: result must be placed on a tuple of devices (#multi.on), found tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>}}
%r = multi.allreduce max %x : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: multi-allreduce-invalid.mlir:[[# @LINE - 1]]:1: error: multi.allreduce: result must be placed on a tuple of devices (#multi.on), found tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>

// -----

// Same element type.
%x = "test.op"() : () -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.allreduce: element types differ: source f32, result f64}}
%r = multi.allreduce add %x : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4xf64, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: multi-allreduce-invalid.mlir:[[# @LINE - 1]]:1: error: multi.allreduce: element types differ: source f32, result f64

// -----

// Same shape.
%x = "test.op"() : () -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.allreduce: result shape [8] differs from source shape [4]}}
%r = multi.allreduce add %x : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: multi-allreduce-invalid.mlir:[[# @LINE - 1]]:1: error: multi.allreduce: result shape [8] differs from source shape [4]

// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s

// One chunk per verifier rule of multi.mstack (SPEC §2).

// At least one source (only the generic form can write none).
// expected-error @+1 {{multi.mstack: needs at least one source}}
%t = "multi.mstack"() : () -> tensor<4x4xf32, #multi.on<["CPU:0"]>>
// CHECK: multi-mstack-invalid.mlir:[[# @LINE - 1]]:1: error: multi.mstack: needs at least one source

// -----

// Every source is placed on a single device: a multi-device source.
%a, %b = "test.op"() : () -> (tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>, tensor<4x4xf32, #multi.on<["CPU:2"]>>)
// expected-error @+1 {{multi.mstack: source 0 must be placed on a single device, found tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>}}
%t = multi.mstack %a, %b : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>, tensor<4x4xf32, #multi.on<["CPU:2"]>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
// CHECK: multi-mstack-invalid.mlir:[[# @LINE - 1]]:1: error: multi.mstack: source 0 must be placed on a single device, found tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>

// -----

// Every source is placed on a single device: an unplaced source.
%a, %b = "test.op"() : () -> (tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x4xf32>)
// expected-error @+1 {{multi.mstack: source 1 must be placed on a single device, found tensor<4x4xf32>}}
%t = multi.mstack %a, %b : tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x4xf32> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: multi-mstack-invalid.mlir:[[# @LINE - 1]]:1: error: multi.mstack: source 1 must be placed on a single device, found tensor<4x4xf32>

// -----

// Every source is placed on a single device: a sharded source.
%a = "test.op"() : () -> tensor<4x4xf32, #multi.shard<["CPU:0"], axis = 0>>
// expected-error @+1 {{multi.mstack: source 0 must be placed on a single device, found tensor<4x4xf32, #multi.shard<["CPU:0"], axis = 0>>}}
%t = multi.mstack %a : tensor<4x4xf32, #multi.shard<["CPU:0"], axis = 0>> -> tensor<4x4xf32, #multi.on<["CPU:0"]>>
// CHECK: multi-mstack-invalid.mlir:[[# @LINE - 1]]:1: error: multi.mstack: source 0 must be placed on a single device, found tensor<4x4xf32, #multi.shard<["CPU:0"], axis = 0>>

// -----

// All devices are distinct.
%a, %b = "test.op"() : () -> (tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x4xf32, #multi.on<["CPU:0"]>>)
// expected-error @+1 {{multi.mstack: device "CPU:0" appears in more than one source}}
%t = multi.mstack %a, %b : tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x4xf32, #multi.on<["CPU:0"]>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: multi-mstack-invalid.mlir:[[# @LINE - 1]]:1: error: multi.mstack: device "CPU:0" appears in more than one source

// -----

// All devices are distinct (the same value twice).
%a = "test.op"() : () -> tensor<4x4xf32, #multi.on<["CPU:0"]>>
// expected-error @+1 {{multi.mstack: device "CPU:0" appears in more than one source}}
%t = multi.mstack %a, %a : tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x4xf32, #multi.on<["CPU:0"]>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: multi-mstack-invalid.mlir:[[# @LINE - 1]]:1: error: multi.mstack: device "CPU:0" appears in more than one source

// -----

// Sources share one shape.
%a, %b = "test.op"() : () -> (tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x2xf32, #multi.on<["CPU:1"]>>)
// expected-error @+1 {{multi.mstack: source 1 has shape [4, 2] and element type f32; source 0 has [4, 4] and f32}}
%t = multi.mstack %a, %b : tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x2xf32, #multi.on<["CPU:1"]>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: multi-mstack-invalid.mlir:[[# @LINE - 1]]:1: error: multi.mstack: source 1 has shape [4, 2] and element type f32; source 0 has [4, 4] and f32

// -----

// Sources share one element type.
%a, %b = "test.op"() : () -> (tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x4xi32, #multi.on<["CPU:1"]>>)
// expected-error @+1 {{multi.mstack: source 1 has shape [4, 4] and element type i32; source 0 has [4, 4] and f32}}
%t = multi.mstack %a, %b : tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x4xi32, #multi.on<["CPU:1"]>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: multi-mstack-invalid.mlir:[[# @LINE - 1]]:1: error: multi.mstack: source 1 has shape [4, 4] and element type i32; source 0 has [4, 4] and f32

// -----

// The result is placed on the sources' devices in order: reversed.
%a, %b = "test.op"() : () -> (tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x4xf32, #multi.on<["CPU:1"]>>)
// expected-error @+1 {{multi.mstack: result must be placed on the sources' devices in order ["CPU:0", "CPU:1"], found tensor<4x4xf32, #multi.on<["CPU:1", "CPU:0"]>>}}
%t = multi.mstack %a, %b : tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x4xf32, #multi.on<["CPU:1"]>> -> tensor<4x4xf32, #multi.on<["CPU:1", "CPU:0"]>>
// CHECK: multi-mstack-invalid.mlir:[[# @LINE - 1]]:1: error: multi.mstack: result must be placed on the sources' devices in order ["CPU:0", "CPU:1"], found tensor<4x4xf32, #multi.on<["CPU:1", "CPU:0"]>>

// -----

// The result is placed on the sources' devices in order: one device missing.
%a, %b = "test.op"() : () -> (tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x4xf32, #multi.on<["CPU:1"]>>)
// expected-error @+1 {{multi.mstack: result must be placed on the sources' devices in order ["CPU:0", "CPU:1"], found tensor<4x4xf32, #multi.on<["CPU:0"]>>}}
%t = multi.mstack %a, %b : tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x4xf32, #multi.on<["CPU:1"]>> -> tensor<4x4xf32, #multi.on<["CPU:0"]>>
// CHECK: multi-mstack-invalid.mlir:[[# @LINE - 1]]:1: error: multi.mstack: result must be placed on the sources' devices in order ["CPU:0", "CPU:1"], found tensor<4x4xf32, #multi.on<["CPU:0"]>>

// -----

// The result is placed on the sources' devices: a shard is not a placement on a tuple.
%a, %b = "test.op"() : () -> (tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x4xf32, #multi.on<["CPU:1"]>>)
// expected-error @+1 {{multi.mstack: result must be placed on the sources' devices in order ["CPU:0", "CPU:1"], found tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>}}
%t = multi.mstack %a, %b : tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x4xf32, #multi.on<["CPU:1"]>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: multi-mstack-invalid.mlir:[[# @LINE - 1]]:1: error: multi.mstack: result must be placed on the sources' devices in order ["CPU:0", "CPU:1"], found tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>

// -----

// The result has the sources' element type.
%a, %b = "test.op"() : () -> (tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x4xf32, #multi.on<["CPU:1"]>>)
// expected-error @+1 {{multi.mstack: element types differ: source f32, result f64}}
%t = multi.mstack %a, %b : tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x4xf32, #multi.on<["CPU:1"]>> -> tensor<4x4xf64, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: multi-mstack-invalid.mlir:[[# @LINE - 1]]:1: error: multi.mstack: element types differ: source f32, result f64

// -----

// The result has the sources' shape (each device's buffer, not stacked).
%a, %b = "test.op"() : () -> (tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x4xf32, #multi.on<["CPU:1"]>>)
// expected-error @+1 {{multi.mstack: result shape [2, 4, 4] differs from source shape [4, 4]}}
%t = multi.mstack %a, %b : tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x4xf32, #multi.on<["CPU:1"]>> -> tensor<2x4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: multi-mstack-invalid.mlir:[[# @LINE - 1]]:1: error: multi.mstack: result shape [2, 4, 4] differs from source shape [4, 4]

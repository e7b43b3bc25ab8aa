// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s

// tg.cast changes only the element type: shape and encoding are kept.

// The shape is kept.
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{tg.cast: shape and encoding must be kept: tensor<8x4xf32> -> tensor<32xi32>}}
%y = tg.cast %x : tensor<8x4xf32> -> tensor<32xi32>
// CHECK: tg-cast-invalid.mlir:[[# @LINE - 1]]:1: error: tg.cast: shape and encoding must be kept: tensor<8x4xf32> -> tensor<32xi32>

// -----

// The encoding is kept: a sharded value stays sharded.
%x = "test.op"() : () -> tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{tg.cast: shape and encoding must be kept: tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8xi32>}}
%y = tg.cast %x : tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8xi32>
// CHECK: tg-cast-invalid.mlir:[[# @LINE - 1]]:1: error: tg.cast: shape and encoding must be kept: tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8xi32>

// -----

// The encoding is kept: the same devices.
%x = "test.op"() : () -> tensor<8xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{tg.cast: shape and encoding must be kept: tensor<8xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8xi1, #multi.on<["CPU:0"]>>}}
%y = tg.cast %x : tensor<8xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8xi1, #multi.on<["CPU:0"]>>
// CHECK: tg-cast-invalid.mlir:[[# @LINE - 1]]:1: error: tg.cast: shape and encoding must be kept: tensor<8xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8xi1, #multi.on<["CPU:0"]>>

// -----

// The encoding is kept: an unplaced value stays unplaced.
%x = "test.op"() : () -> tensor<8xi32>
// expected-error @+1 {{tg.cast: shape and encoding must be kept: tensor<8xi32> -> tensor<8xf32, #multi.on<["CPU:0"]>>}}
%y = tg.cast %x : tensor<8xi32> -> tensor<8xf32, #multi.on<["CPU:0"]>>
// CHECK: tg-cast-invalid.mlir:[[# @LINE - 1]]:1: error: tg.cast: shape and encoding must be kept: tensor<8xi32> -> tensor<8xf32, #multi.on<["CPU:0"]>>

// -----

// unsigned needs an integer side: float -> float has none.
%x = "test.op"() : () -> tensor<8xf32>
// expected-error @+1 {{tg.cast: unsigned needs an integer side wider than i1 (an i1 is 0 or 1 either way), found f32 -> f16}}
%y = tg.cast %x unsigned : tensor<8xf32> -> tensor<8xf16>
// CHECK: tg-cast-invalid.mlir:[[# @LINE - 1]]:1: error: tg.cast: unsigned needs an integer side wider than i1 (an i1 is 0 or 1 either way), found f32 -> f16

// -----

// unsigned needs an integer side wider than i1: i1 -> f32 is 0 or 1 anyway.
%x = "test.op"() : () -> tensor<8xi1>
// expected-error @+1 {{tg.cast: unsigned needs an integer side wider than i1 (an i1 is 0 or 1 either way), found i1 -> f32}}
%y = tg.cast %x unsigned : tensor<8xi1> -> tensor<8xf32>
// CHECK: tg-cast-invalid.mlir:[[# @LINE - 1]]:1: error: tg.cast: unsigned needs an integer side wider than i1 (an i1 is 0 or 1 either way), found i1 -> f32

// -----

// unsigned needs an integer side wider than i1: f32 -> i1 (nonzero is 1 anyway; generic form).
%x = "test.op"() : () -> tensor<8xf32>
// expected-error @+1 {{tg.cast: unsigned needs an integer side wider than i1 (an i1 is 0 or 1 either way), found f32 -> i1}}
%y = "tg.cast"(%x) <{unsigned}> : (tensor<8xf32>) -> tensor<8xi1>
// CHECK: tg-cast-invalid.mlir:[[# @LINE - 1]]:1: error: tg.cast: unsigned needs an integer side wider than i1 (an i1 is 0 or 1 either way), found f32 -> i1

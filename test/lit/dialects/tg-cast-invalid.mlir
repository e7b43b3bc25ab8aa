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

// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s

// tg.contiguous keeps the type: shape, element type and encoding.

%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{tg.contiguous: result type tensor<32xf32> differs from operand type tensor<8x4xf32>}}
%y = tg.contiguous %x : tensor<8x4xf32> -> tensor<32xf32>
// CHECK: tg-contiguous-invalid.mlir:[[# @LINE - 1]]:1: error: tg.contiguous: result type tensor<32xf32> differs from operand type tensor<8x4xf32>

// -----

%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{tg.contiguous: element types differ: operand f32, result f16}}
%y = tg.contiguous %x : tensor<8x4xf32> -> tensor<8x4xf16>
// CHECK: tg-contiguous-invalid.mlir:[[# @LINE - 1]]:1: error: tg.contiguous: element types differ: operand f32, result f16

// -----

%x = "test.op"() : () -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{tg.contiguous: result type tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>> differs from operand type tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>}}
%y = tg.contiguous %x : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: tg-contiguous-invalid.mlir:[[# @LINE - 1]]:1: error: tg.contiguous: result type tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>> differs from operand type tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>

// -----

%x = "test.op"() : () -> tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{tg.contiguous: result type tensor<8x4xf32> differs from operand type tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>>}}
%y = tg.contiguous %x : tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8x4xf32>
// CHECK: tg-contiguous-invalid.mlir:[[# @LINE - 1]]:1: error: tg.contiguous: result type tensor<8x4xf32> differs from operand type tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>>

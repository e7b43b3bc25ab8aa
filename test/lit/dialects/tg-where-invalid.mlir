// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s

// One chunk per verifier rule of tg.where (SPEC §3).

// The two values have one type (generic form).
%c, %x, %z = "test.op"() : () -> (tensor<4xi1>, tensor<4xf32>, tensor<4xf64>)
// expected-error @+1 {{tg.where: values and result must share one type, found tensor<4xf32>, tensor<4xf64> -> tensor<4xf32>}}
%y = "tg.where"(%c, %x, %z) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
// CHECK: tg-where-invalid.mlir:[[# @LINE - 1]]:1: error: tg.where: values and result must share one type, found tensor<4xf32>, tensor<4xf64> -> tensor<4xf32>

// -----

// The result has the values' type (generic form).
%c, %x = "test.op"() : () -> (tensor<4xi1>, tensor<4xf32>)
// expected-error @+1 {{tg.where: values and result must share one type, found tensor<4xf32>, tensor<4xf32> -> tensor<4xi32>}}
%y = "tg.where"(%c, %x, %x) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xi32>
// CHECK: tg-where-invalid.mlir:[[# @LINE - 1]]:1: error: tg.where: values and result must share one type, found tensor<4xf32>, tensor<4xf32> -> tensor<4xi32>

// -----

// The values share one encoding (generic form).
%c, %x, %z = "test.op"() : () -> (tensor<8xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, tensor<8xf32, #multi.on<["CPU:0", "CPU:1"]>>)
// expected-error @+1 {{tg.where: values and result must share one type, found tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, tensor<8xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>}}
%y = "tg.where"(%c, %x, %z) : (tensor<8xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, tensor<8xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: tg-where-invalid.mlir:[[# @LINE - 1]]:1: error: tg.where: values and result must share one type, found tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, tensor<8xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>

// -----

// The condition is i1.
%c, %x = "test.op"() : () -> (tensor<4xi32>, tensor<4xf32>)
// expected-error @+1 {{tg.where: condition must be tensor<4xi1>, found tensor<4xi32>}}
%y = tg.where %c, %x, %x : tensor<4xi32>, tensor<4xf32>
// CHECK: tg-where-invalid.mlir:[[# @LINE - 1]]:1: error: tg.where: condition must be tensor<4xi1>, found tensor<4xi32>

// -----

// The condition has the values' shape.
%c, %x = "test.op"() : () -> (tensor<1xi1>, tensor<4xf32>)
// expected-error @+1 {{tg.where: condition must be tensor<4xi1>, found tensor<1xi1>}}
%y = tg.where %c, %x, %x : tensor<1xi1>, tensor<4xf32>
// CHECK: tg-where-invalid.mlir:[[# @LINE - 1]]:1: error: tg.where: condition must be tensor<4xi1>, found tensor<1xi1>

// -----

// The condition has the values' encoding.
%c, %x = "test.op"() : () -> (tensor<8xi1>, tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>)
// expected-error @+1 {{tg.where: condition must be tensor<8xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found tensor<8xi1>}}
%y = tg.where %c, %x, %x : tensor<8xi1>, tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: tg-where-invalid.mlir:[[# @LINE - 1]]:1: error: tg.where: condition must be tensor<8xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found tensor<8xi1>

// -----

// The condition has the values' encoding: the same shard axis.
%c, %x = "test.op"() : () -> (tensor<8x8xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>, tensor<8x8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>)
// expected-error @+1 {{tg.where: condition must be tensor<8x8xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found tensor<8x8xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>}}
%y = tg.where %c, %x, %x : tensor<8x8xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>, tensor<8x8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: tg-where-invalid.mlir:[[# @LINE - 1]]:1: error: tg.where: condition must be tensor<8x8xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found tensor<8x8xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>

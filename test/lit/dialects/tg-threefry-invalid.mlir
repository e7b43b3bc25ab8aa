// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s

// One chunk per verifier rule of tg.threefry (SPEC §3).

// The element type is i64 (tinygrad's uint64).
%x = "test.op"() : () -> tensor<4xi32>
// expected-error @+1 {{tg.threefry: element type must be i64 (tinygrad's uint64), found tensor<4xi32>}}
%r = tg.threefry %x, %x : tensor<4xi32>
// CHECK: tg-threefry-invalid.mlir:[[# @LINE - 1]]:1: error: tg.threefry: element type must be i64 (tinygrad's uint64), found tensor<4xi32>

// -----

// The key has the counter's shape (no broadcast in the op; generic form).
%x, %k = "test.op"() : () -> (tensor<4xi64>, tensor<1xi64>)
// expected-error @+1 {{tg.threefry: counter, key and result must share one type, found tensor<4xi64>, tensor<1xi64> -> tensor<4xi64>}}
%r = "tg.threefry"(%x, %k) : (tensor<4xi64>, tensor<1xi64>) -> tensor<4xi64>
// CHECK: tg-threefry-invalid.mlir:[[# @LINE - 1]]:1: error: tg.threefry: counter, key and result must share one type, found tensor<4xi64>, tensor<1xi64> -> tensor<4xi64>

// -----

// The result has the operands' type (generic form).
%x = "test.op"() : () -> tensor<4xi64>
// expected-error @+1 {{tg.threefry: counter, key and result must share one type, found tensor<4xi64>, tensor<4xi64> -> tensor<4xi32>}}
%r = "tg.threefry"(%x, %x) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi32>
// CHECK: tg-threefry-invalid.mlir:[[# @LINE - 1]]:1: error: tg.threefry: counter, key and result must share one type, found tensor<4xi64>, tensor<4xi64> -> tensor<4xi32>

// -----

// The key has the counter's encoding (generic form).
%x, %k = "test.op"() : () -> (tensor<8xi64, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, tensor<8xi64, #multi.on<["CPU:0", "CPU:1"]>>)
// expected-error @+1 {{tg.threefry: counter, key and result must share one type, found tensor<8xi64, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, tensor<8xi64, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8xi64, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>}}
%r = "tg.threefry"(%x, %k) : (tensor<8xi64, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, tensor<8xi64, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<8xi64, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: tg-threefry-invalid.mlir:[[# @LINE - 1]]:1: error: tg.threefry: counter, key and result must share one type, found tensor<8xi64, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, tensor<8xi64, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8xi64, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>

// -----

// The operands are tensors (generic form).
%x = "test.op"() : () -> i64
// expected-error @+1 {{tg.threefry: operand 'x' at position 0 does not verify: i64 should be of base attribute tensor}}
%r = "tg.threefry"(%x, %x) : (i64, i64) -> i64
// CHECK: tg-threefry-invalid.mlir:[[# @LINE - 1]]:1: error: tg.threefry: operand 'x' at position 0 does not verify: i64 should be of base attribute tensor

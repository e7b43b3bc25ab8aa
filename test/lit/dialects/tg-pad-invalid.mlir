// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s

// One chunk per verifier rule of tg.pad (SPEC §3).

// One [lo, hi] pair per axis.
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{tg.pad: expected 2 [lo, hi] bounds for rank 2, found 1}}
%y = tg.pad %x [[1, 1]] value 0.0 : tensor<8x4xf32> -> tensor<10x4xf32>
// CHECK: tg-pad-invalid.mlir:[[# @LINE - 1]]:1: error: tg.pad: expected 2 [lo, hi] bounds for rank 2, found 1

// -----

// One [lo, hi] pair per axis: too many.
%x = "test.op"() : () -> tensor<8xf32>
// expected-error @+1 {{tg.pad: expected 1 [lo, hi] bound for rank 1, found 2}}
%y = tg.pad %x [[1, 1], [0, 0]] value 0.0 : tensor<8xf32> -> tensor<10xf32>
// CHECK: tg-pad-invalid.mlir:[[# @LINE - 1]]:1: error: tg.pad: expected 1 [lo, hi] bound for rank 1, found 2

// -----

// The rank is kept.
%x = "test.op"() : () -> tensor<8xf32>
// expected-error @+1 {{tg.pad: pad keeps the rank: [8] -> [10, 1]}}
%y = tg.pad %x [[1, 1]] value 0.0 : tensor<8xf32> -> tensor<10x1xf32>
// CHECK: tg-pad-invalid.mlir:[[# @LINE - 1]]:1: error: tg.pad: pad keeps the rank: [8] -> [10, 1]

// -----

// Padding is not negative (the custom form rejects it while parsing: tg-pad-parse-invalid.mlir).
%x = "test.op"() : () -> tensor<8xf32>
// expected-error @+1 {{tg.pad: axis 0 has negative padding -1}}
%y = "tg.pad"(%x) <{static_bounds = array<i64: -1, 1>, value = 0.0 : f32}> : (tensor<8xf32>) -> tensor<8xf32>
// CHECK: tg-pad-invalid.mlir:[[# @LINE - 1]]:1: error: tg.pad: axis 0 has negative padding -1

// -----

// Static bounds: result = operand + lo + hi.
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{tg.pad: axis 0: 8 + 1 + 2 = 11, but the result has 10}}
%y = tg.pad %x [[1, 2], [0, 0]] value 0.0 : tensor<8x4xf32> -> tensor<10x4xf32>
// CHECK: tg-pad-invalid.mlir:[[# @LINE - 1]]:1: error: tg.pad: axis 0: 8 + 1 + 2 = 11, but the result has 10

// -----

// SSA bounds: the result may not be smaller than the operand.
%x, %n = "test.op"() : () -> (tensor<8xf32>, index)
// expected-error @+1 {{tg.pad: axis 0 shrinks from 8 to 6}}
%y = tg.pad %x [[%n, %n]] invalid : tensor<8xf32> -> tensor<6xf32>
// CHECK: tg-pad-invalid.mlir:[[# @LINE - 1]]:1: error: tg.pad: axis 0 shrinks from 8 to 6

// -----

// The element type is kept.
%x = "test.op"() : () -> tensor<8xf32>
// expected-error @+1 {{tg.pad: element types differ: operand f32, result f64}}
%y = tg.pad %x [[1, 1]] value 0.0 : tensor<8xf32> -> tensor<10xf64>
// CHECK: tg-pad-invalid.mlir:[[# @LINE - 1]]:1: error: tg.pad: element types differ: operand f32, result f64

// -----

// Exactly one of a fill value and `invalid` (generic form: neither).
%x = "test.op"() : () -> tensor<8xf32>
// expected-error @+1 {{tg.pad: needs exactly one of a fill value or 'invalid'}}
%y = "tg.pad"(%x) <{static_bounds = array<i64: 1, 1>}> : (tensor<8xf32>) -> tensor<10xf32>
// CHECK: tg-pad-invalid.mlir:[[# @LINE - 1]]:1: error: tg.pad: needs exactly one of a fill value or 'invalid'

// -----

// Exactly one of a fill value and `invalid` (generic form: both).
%x = "test.op"() : () -> tensor<8xf32>
// expected-error @+1 {{tg.pad: needs exactly one of a fill value or 'invalid'}}
%y = "tg.pad"(%x) <{static_bounds = array<i64: 1, 1>, value = 0.0 : f32, invalid}> : (tensor<8xf32>) -> tensor<10xf32>
// CHECK: tg-pad-invalid.mlir:[[# @LINE - 1]]:1: error: tg.pad: needs exactly one of a fill value or 'invalid'

// -----

// The fill value has the element type (generic form).
%x = "test.op"() : () -> tensor<8xf32>
// expected-error @+1 {{tg.pad: fill value 0 : i32 does not match element type f32}}
%y = "tg.pad"(%x) <{static_bounds = array<i64: 1, 1>, value = 0 : i32}> : (tensor<8xf32>) -> tensor<10xf32>
// CHECK: tg-pad-invalid.mlir:[[# @LINE - 1]]:1: error: tg.pad: fill value 0 : i32 does not match element type f32

// -----

// The fill value is a number (generic form).
%x = "test.op"() : () -> tensor<8xf32>
// expected-error @+1 {{tg.pad: fill value "zero" does not match element type f32}}
%y = "tg.pad"(%x) <{static_bounds = array<i64: 1, 1>, value = "zero"}> : (tensor<8xf32>) -> tensor<10xf32>
// CHECK: tg-pad-invalid.mlir:[[# @LINE - 1]]:1: error: tg.pad: fill value "zero" does not match element type f32

// -----

// As many index operands as dynamic bounds (generic form: INT64_MIN marks a dynamic bound).
%x, %n = "test.op"() : () -> (tensor<8xf32>, index)
// expected-error @+1 {{tg.pad: 2 dynamic bounds but 0 index operands}}
%y = "tg.pad"(%x) <{static_bounds = array<i64: -9223372036854775808, -9223372036854775808>, invalid}> : (tensor<8xf32>) -> tensor<10xf32>
// CHECK: tg-pad-invalid.mlir:[[# @LINE - 1]]:1: error: tg.pad: 2 dynamic bounds but 0 index operands

// -----

// As many index operands as dynamic bounds (generic form: one too many).
%x, %n = "test.op"() : () -> (tensor<8xf32>, index)
// expected-error @+1 {{tg.pad: 0 dynamic bounds but 1 index operand}}
%y = "tg.pad"(%x, %n) <{static_bounds = array<i64: 1, 1>, invalid}> : (tensor<8xf32>, index) -> tensor<10xf32>
// CHECK: tg-pad-invalid.mlir:[[# @LINE - 1]]:1: error: tg.pad: 0 dynamic bounds but 1 index operand

// -----

// Bounds are index values.
%x, %n = "test.op"() : () -> (tensor<8xf32>, i64)
// expected-error @+1 {{tg.pad: operand 'dyn_bounds' at position 1 does not verify: i64 should be of base attribute index}}
%y = "tg.pad"(%x, %n) <{static_bounds = array<i64: -9223372036854775808, 1>, invalid}> : (tensor<8xf32>, i64) -> tensor<10xf32>
// CHECK: tg-pad-invalid.mlir:[[# @LINE - 1]]:1: error: tg.pad: operand 'dyn_bounds' at position 1 does not verify: i64 should be of base attribute index

// -----

// An unplaced or #multi.on operand keeps its encoding.
%x = "test.op"() : () -> tensor<8xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{tg.pad: result encoding must be #multi.on<["CPU:0", "CPU:1"]> for operand tensor<8xf32, #multi.on<["CPU:0", "CPU:1"]>>, found #multi.on<["CPU:0"]>}}
%y = tg.pad %x [[1, 1]] value 0.0 : tensor<8xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<10xf32, #multi.on<["CPU:0"]>>
// CHECK: tg-pad-invalid.mlir:[[# @LINE - 1]]:1: error: tg.pad: result encoding must be #multi.on<["CPU:0", "CPU:1"]> for operand tensor<8xf32, #multi.on<["CPU:0", "CPU:1"]>>, found #multi.on<["CPU:0"]>

// -----

// Sharded: the shard axis cannot be padded.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{tg.pad: cannot pad the shard axis 0 (padding [0, 2])}}
%y = tg.pad %x [[0, 2], [0, 0]] value 0.0 : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<10x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: tg-pad-invalid.mlir:[[# @LINE - 1]]:1: error: tg.pad: cannot pad the shard axis 0 (padding [0, 2])

// -----

// Sharded: the shard axis cannot be padded, with Invalid either.
%x = "test.op"() : () -> tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// expected-error @+1 {{tg.pad: cannot pad the shard axis 1 (padding [1, 0])}}
%y = tg.pad %x [[0, 0], [1, 0]] invalid : tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> -> tensor<4x7xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// CHECK: tg-pad-invalid.mlir:[[# @LINE - 1]]:1: error: tg.pad: cannot pad the shard axis 1 (padding [1, 0])

// -----

// Sharded: bounds on the shard axis are static.
%x, %n = "test.op"() : () -> (tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, index)
// expected-error @+1 {{tg.pad: bounds on the shard axis 0 must be static}}
%y = tg.pad %x [[%n, 0], [0, 0]] invalid : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: tg-pad-invalid.mlir:[[# @LINE - 1]]:1: error: tg.pad: bounds on the shard axis 0 must be static

// -----

// Sharded: padding another axis keeps the shard encoding.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{tg.pad: result encoding must be #multi.shard<["CPU:0", "CPU:1"], axis = 0> for operand tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found #multi.on<["CPU:0", "CPU:1"]>}}
%y = tg.pad %x [[0, 0], [1, 1]] value 0.0 : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x6xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: tg-pad-invalid.mlir:[[# @LINE - 1]]:1: error: tg.pad: result encoding must be #multi.shard<["CPU:0", "CPU:1"], axis = 0> for operand tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found #multi.on<["CPU:0", "CPU:1"]>

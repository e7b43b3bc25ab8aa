// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s

// One chunk per verifier rule of tg.shrink (SPEC §3).

// One [lo, hi] pair per axis.
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{tg.shrink: expected 2 [lo, hi] bounds for rank 2, found 1}}
%y = tg.shrink %x [[0, 4]] : tensor<8x4xf32> -> tensor<4x4xf32>
// CHECK: tg-shrink-invalid.mlir:[[# @LINE - 1]]:1: error: tg.shrink: expected 2 [lo, hi] bounds for rank 2, found 1

// -----

// The rank is kept.
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{tg.shrink: shrink keeps the rank: [8, 4] -> [16]}}
%y = tg.shrink %x [[0, 4], [0, 4]] : tensor<8x4xf32> -> tensor<16xf32>
// CHECK: tg-shrink-invalid.mlir:[[# @LINE - 1]]:1: error: tg.shrink: shrink keeps the rank: [8, 4] -> [16]

// -----

// lo is in [0, size] (a negative literal is a parse error: tg-parse-invalid.mlir).
%x = "test.op"() : () -> tensor<8xf32>
// expected-error @+1 {{tg.shrink: axis 0: lower bound -1 is outside [0, 8]}}
%y = "tg.shrink"(%x) <{static_bounds = array<i64: -1, 3>}> : (tensor<8xf32>) -> tensor<4xf32>
// CHECK: tg-shrink-invalid.mlir:[[# @LINE - 1]]:1: error: tg.shrink: axis 0: lower bound -1 is outside [0, 8]

// -----

// hi is in [0, size].
%x = "test.op"() : () -> tensor<8xf32>
// expected-error @+1 {{tg.shrink: axis 0: upper bound 9 is outside [0, 8]}}
%y = tg.shrink %x [[4, 9]] : tensor<8xf32> -> tensor<5xf32>
// CHECK: tg-shrink-invalid.mlir:[[# @LINE - 1]]:1: error: tg.shrink: axis 0: upper bound 9 is outside [0, 8]

// -----

// lo <= hi.
%x = "test.op"() : () -> tensor<8xf32>
// expected-error @+1 {{tg.shrink: axis 0: bounds [5, 3] are reversed}}
%y = tg.shrink %x [[5, 3]] : tensor<8xf32> -> tensor<2xf32>
// CHECK: tg-shrink-invalid.mlir:[[# @LINE - 1]]:1: error: tg.shrink: axis 0: bounds [5, 3] are reversed

// -----

// Static bounds: the result keeps hi - lo rows.
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{tg.shrink: axis 1: [1, 3] keeps 2 rows, but the result has 3}}
%y = tg.shrink %x [[0, 4], [1, 3]] : tensor<8x4xf32> -> tensor<4x3xf32>
// CHECK: tg-shrink-invalid.mlir:[[# @LINE - 1]]:1: error: tg.shrink: axis 1: [1, 3] keeps 2 rows, but the result has 3

// -----

// SSA bounds: the result cannot grow.
%x, %a, %b = "test.op"() : () -> (tensor<8xf32>, index, index)
// expected-error @+1 {{tg.shrink: axis 0 grows from 8 to 9}}
%y = tg.shrink %x [[%a, %b]] : tensor<8xf32> -> tensor<9xf32>
// CHECK: tg-shrink-invalid.mlir:[[# @LINE - 1]]:1: error: tg.shrink: axis 0 grows from 8 to 9

// -----

// SSA bounds: a static lo is still checked against the size.
%x, %b = "test.op"() : () -> (tensor<8xf32>, index)
// expected-error @+1 {{tg.shrink: axis 0: lower bound 9 is outside [0, 8]}}
%y = tg.shrink %x [[9, %b]] : tensor<8xf32> -> tensor<0xf32>
// CHECK: tg-shrink-invalid.mlir:[[# @LINE - 1]]:1: error: tg.shrink: axis 0: lower bound 9 is outside [0, 8]

// -----

// The element type is kept.
%x = "test.op"() : () -> tensor<8xf32>
// expected-error @+1 {{tg.shrink: element types differ: operand f32, result bf16}}
%y = tg.shrink %x [[0, 4]] : tensor<8xf32> -> tensor<4xbf16>
// CHECK: tg-shrink-invalid.mlir:[[# @LINE - 1]]:1: error: tg.shrink: element types differ: operand f32, result bf16

// -----

// As many index operands as dynamic bounds (generic form).
%x, %n = "test.op"() : () -> (tensor<8xf32>, index)
// expected-error @+1 {{tg.shrink: 1 dynamic bound but 0 index operands}}
%y = "tg.shrink"(%x) <{static_bounds = array<i64: -9223372036854775808, 4>}> : (tensor<8xf32>) -> tensor<4xf32>
// CHECK: tg-shrink-invalid.mlir:[[# @LINE - 1]]:1: error: tg.shrink: 1 dynamic bound but 0 index operands

// -----

// An unplaced or #multi.on operand keeps its encoding.
%x = "test.op"() : () -> tensor<8xf32>
// expected-error @+1 {{tg.shrink: result encoding must be none for operand tensor<8xf32>, found #multi.on<["CPU:0"]>}}
%y = tg.shrink %x [[0, 4]] : tensor<8xf32> -> tensor<4xf32, #multi.on<["CPU:0"]>>
// CHECK: tg-shrink-invalid.mlir:[[# @LINE - 1]]:1: error: tg.shrink: result encoding must be none for operand tensor<8xf32>, found #multi.on<["CPU:0"]>

// -----

// Sharded: bounds on the shard axis are static.
%x, %n = "test.op"() : () -> (tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, index)
// expected-error @+1 {{tg.shrink: bounds on the shard axis 0 must be static}}
%y = tg.shrink %x [[%n, 8], [0, 4]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: tg-shrink-invalid.mlir:[[# @LINE - 1]]:1: error: tg.shrink: bounds on the shard axis 0 must be static

// -----

// Sharded: the shard axis is kept whole or cut to exactly one shard; [1, 5) straddles two.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{tg.shrink: shrink [1, 5] on the shard axis 0 must keep the whole axis [0, 8] or exactly one non-empty shard of [[0, 4], [4, 8]]}}
%y = tg.shrink %x [[1, 5], [0, 4]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: tg-shrink-invalid.mlir:[[# @LINE - 1]]:1: error: tg.shrink: shrink [1, 5] on the shard axis 0 must keep the whole axis [0, 8] or exactly one non-empty shard of [[0, 4], [4, 8]]

// -----

// Sharded: part of one shard is not a shard.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{tg.shrink: shrink [0, 2] on the shard axis 0 must keep the whole axis [0, 8] or exactly one non-empty shard of [[0, 4], [4, 8]]}}
%y = tg.shrink %x [[0, 2], [0, 4]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<2x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: tg-shrink-invalid.mlir:[[# @LINE - 1]]:1: error: tg.shrink: shrink [0, 2] on the shard axis 0 must keep the whole axis [0, 8] or exactly one non-empty shard of [[0, 4], [4, 8]]

// -----

// Sharded: the shards of 7 rows over 3 devices are [0, 3), [3, 6), [6, 7); [4, 7) is none of them.
%x = "test.op"() : () -> tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// expected-error @+1 {{tg.shrink: shrink [4, 7] on the shard axis 0 must keep the whole axis [0, 7] or exactly one non-empty shard of [[0, 3], [3, 6], [6, 7]]}}
%y = tg.shrink %x [[4, 7], [0, 2]] : tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<3x2xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
// CHECK: tg-shrink-invalid.mlir:[[# @LINE - 1]]:1: error: tg.shrink: shrink [4, 7] on the shard axis 0 must keep the whole axis [0, 7] or exactly one non-empty shard of [[0, 3], [3, 6], [6, 7]]

// -----

// Sharded: the empty third shard of 4 rows over 3 devices ([4, 4)) cannot be selected.
%x = "test.op"() : () -> tensor<4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// expected-error @+1 {{tg.shrink: shrink [4, 4] on the shard axis 0 must keep the whole axis [0, 4] or exactly one non-empty shard of [[0, 2], [2, 4], [4, 4]]}}
%y = tg.shrink %x [[4, 4]] : tensor<4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<0xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
// CHECK: tg-shrink-invalid.mlir:[[# @LINE - 1]]:1: error: tg.shrink: shrink [4, 4] on the shard axis 0 must keep the whole axis [0, 4] or exactly one non-empty shard of [[0, 2], [2, 4], [4, 4]]

// -----

// Sharded: selecting one shard gives #multi.on on the operand's devices, not a shard.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{tg.shrink: result encoding must be #multi.on<["CPU:0", "CPU:1"]> for operand tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found #multi.shard<["CPU:0", "CPU:1"], axis = 0>}}
%y = tg.shrink %x [[4, 8], [0, 4]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<4x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: tg-shrink-invalid.mlir:[[# @LINE - 1]]:1: error: tg.shrink: result encoding must be #multi.on<["CPU:0", "CPU:1"]> for operand tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found #multi.shard<["CPU:0", "CPU:1"], axis = 0>

// -----

// Sharded: selecting one shard gives #multi.on on ALL the operand's devices.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{tg.shrink: result encoding must be #multi.on<["CPU:0", "CPU:1"]> for operand tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found #multi.on<["CPU:1"]>}}
%y = tg.shrink %x [[4, 8], [0, 4]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<4x4xf32, #multi.on<["CPU:1"]>>
// CHECK: tg-shrink-invalid.mlir:[[# @LINE - 1]]:1: error: tg.shrink: result encoding must be #multi.on<["CPU:0", "CPU:1"]> for operand tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found #multi.on<["CPU:1"]>

// -----

// Sharded: keeping the whole shard axis keeps the shard encoding.
%x = "test.op"() : () -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{tg.shrink: result encoding must be #multi.shard<["CPU:0", "CPU:1"], axis = 0> for operand tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found #multi.on<["CPU:0", "CPU:1"]>}}
%y = tg.shrink %x [[0, 8], [0, 2]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x2xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: tg-shrink-invalid.mlir:[[# @LINE - 1]]:1: error: tg.shrink: result encoding must be #multi.shard<["CPU:0", "CPU:1"], axis = 0> for operand tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found #multi.on<["CPU:0", "CPU:1"]>

// -----

// Sharded, one device: [0, L) is the whole axis AND the one shard; the whole axis wins, so the
// result stays sharded.
%x = "test.op"() : () -> tensor<4xf32, #multi.shard<["CPU:0"], axis = 0>>
// expected-error @+1 {{tg.shrink: result encoding must be #multi.shard<["CPU:0"], axis = 0> for operand tensor<4xf32, #multi.shard<["CPU:0"], axis = 0>>, found #multi.on<["CPU:0"]>}}
%y = tg.shrink %x [[0, 4]] : tensor<4xf32, #multi.shard<["CPU:0"], axis = 0>> -> tensor<4xf32, #multi.on<["CPU:0"]>>
// CHECK: tg-shrink-invalid.mlir:[[# @LINE - 1]]:1: error: tg.shrink: result encoding must be #multi.shard<["CPU:0"], axis = 0> for operand tensor<4xf32, #multi.shard<["CPU:0"], axis = 0>>, found #multi.on<["CPU:0"]>

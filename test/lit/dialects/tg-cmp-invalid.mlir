// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s

// One chunk per verifier rule of tg.cmp (SPEC §3).

// The predicate is lt, le, gt, ge, eq, ne, ult, ule, ugt or uge (generic form).
%x = "test.op"() : () -> tensor<4xi32>
// expected-error @+1 {{tg.cmp: predicate 'slt' is not one of lt, le, gt, ge, eq, ne, ult, ule, ugt, uge}}
%y = "tg.cmp"(%x, %x) <{predicate = "slt"}> : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
// CHECK: tg-cmp-invalid.mlir:[[# @LINE - 1]]:1: error: tg.cmp: predicate 'slt' is not one of lt, le, gt, ge, eq, ne, ult, ule, ugt, uge

// -----

// Both operands have one type (generic form: different element types).
%x, %z = "test.op"() : () -> (tensor<4xf32>, tensor<4xi32>)
// expected-error @+1 {{tg.cmp: operand types differ: tensor<4xf32> and tensor<4xi32>}}
%y = "tg.cmp"(%x, %z) <{predicate = "lt"}> : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi1>
// CHECK: tg-cmp-invalid.mlir:[[# @LINE - 1]]:1: error: tg.cmp: operand types differ: tensor<4xf32> and tensor<4xi32>

// -----

// Both operands have one type (generic form: different encodings).
%x, %z = "test.op"() : () -> (tensor<4xf32, #multi.on<["CPU:0"]>>, tensor<4xf32, #multi.on<["CPU:1"]>>)
// expected-error @+1 {{tg.cmp: operand types differ: tensor<4xf32, #multi.on<["CPU:0"]>> and tensor<4xf32, #multi.on<["CPU:1"]>>}}
%y = "tg.cmp"(%x, %z) <{predicate = "eq"}> : (tensor<4xf32, #multi.on<["CPU:0"]>>, tensor<4xf32, #multi.on<["CPU:1"]>>) -> tensor<4xi1, #multi.on<["CPU:0"]>>
// CHECK: tg-cmp-invalid.mlir:[[# @LINE - 1]]:1: error: tg.cmp: operand types differ: tensor<4xf32, #multi.on<["CPU:0"]>> and tensor<4xf32, #multi.on<["CPU:1"]>>

// -----

// The result is i1.
%x = "test.op"() : () -> tensor<4xf32>
// expected-error @+1 {{tg.cmp: result must be tensor<4xi1>, found tensor<4xf32>}}
%y = tg.cmp lt %x, %x : tensor<4xf32> -> tensor<4xf32>
// CHECK: tg-cmp-invalid.mlir:[[# @LINE - 1]]:1: error: tg.cmp: result must be tensor<4xi1>, found tensor<4xf32>

// -----

// The result has the operands' shape.
%x = "test.op"() : () -> tensor<4xf32>
// expected-error @+1 {{tg.cmp: result must be tensor<4xi1>, found tensor<1xi1>}}
%y = tg.cmp ge %x, %x : tensor<4xf32> -> tensor<1xi1>
// CHECK: tg-cmp-invalid.mlir:[[# @LINE - 1]]:1: error: tg.cmp: result must be tensor<4xi1>, found tensor<1xi1>

// -----

// The result has the operands' encoding.
%x = "test.op"() : () -> tensor<8xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{tg.cmp: result must be tensor<8xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found tensor<8xi1>}}
%y = tg.cmp ne %x, %x : tensor<8xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8xi1>
// CHECK: tg-cmp-invalid.mlir:[[# @LINE - 1]]:1: error: tg.cmp: result must be tensor<8xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, found tensor<8xi1>

// -----

// The result has the operands' encoding: the same devices.
%x = "test.op"() : () -> tensor<8xi32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{tg.cmp: result must be tensor<8xi1, #multi.on<["CPU:0", "CPU:1"]>>, found tensor<8xi1, #multi.on<["CPU:0"]>>}}
%y = tg.cmp le %x, %x : tensor<8xi32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8xi1, #multi.on<["CPU:0"]>>
// CHECK: tg-cmp-invalid.mlir:[[# @LINE - 1]]:1: error: tg.cmp: result must be tensor<8xi1, #multi.on<["CPU:0", "CPU:1"]>>, found tensor<8xi1, #multi.on<["CPU:0"]>>

// -----

// Unsigned predicates read integers as unsigned: they take no floats.
%x = "test.op"() : () -> tensor<4xf32>
// expected-error @+1 {{tg.cmp: unsigned predicate 'ult' needs integer operands, found f32}}
%y = tg.cmp ult %x, %x : tensor<4xf32> -> tensor<4xi1>
// CHECK: tg-cmp-invalid.mlir:[[# @LINE - 1]]:1: error: tg.cmp: unsigned predicate 'ult' needs integer operands, found f32

// -----

// Unsigned predicates take no floats: bf16 (generic form).
%x = "test.op"() : () -> tensor<4xbf16>
// expected-error @+1 {{tg.cmp: unsigned predicate 'uge' needs integer operands, found bf16}}
%y = "tg.cmp"(%x, %x) <{predicate = "uge"}> : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xi1>
// CHECK: tg-cmp-invalid.mlir:[[# @LINE - 1]]:1: error: tg.cmp: unsigned predicate 'uge' needs integer operands, found bf16

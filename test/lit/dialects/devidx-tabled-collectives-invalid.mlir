// RUN: multi-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s

// devidx.allreduce: members are distinct device numbers.
%x = "test.op"() : () -> tensor<4xf32>
// expected-error @+1 {{devidx.allreduce: members must be distinct device numbers >= 0, at least one, found [2, 2]}}
%r = devidx.allreduce add %x algorithm naive members [2, 2] : tensor<4xf32>
// CHECK: devidx-tabled-collectives-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.allreduce: members must be distinct

// -----

// devidx.allreduce: at least one member.
%x = "test.op"() : () -> tensor<4xf32>
// expected-error @+1 {{devidx.allreduce: members must be distinct device numbers >= 0, at least one, found []}}
%r = devidx.allreduce add %x algorithm naive members [] : tensor<4xf32>
// CHECK: devidx-tabled-collectives-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.allreduce: members must be

// -----

// devidx.alltoall rows form: the value has S leading rows, the result T, same trailing shape.
%x = "test.op"() : () -> tensor<4x5xf32>
%k = "test.op"() : () -> index
// expected-error @+1 {{devidx.alltoall: rows 4 -> 3 needs a value of 4 leading rows and a result of 3 rows of the same kind, trailing shape and element type, found tensor<4x5xf32> -> tensor<3x6xf32>}}
%a = devidx.alltoall %x at %k from %k rows 4 -> 3 of 10 : tensor<4x5xf32> -> tensor<3x6xf32>
// CHECK: devidx-tabled-collectives-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.alltoall: rows 4 -> 3 needs

// -----

// devidx.alltoall rows form: S, T >= 1.
%x = "test.op"() : () -> tensor<4x5xf32>
%k = "test.op"() : () -> index
// expected-error @+1 {{devidx.alltoall: rows S -> T of L needs S, T >= 1 and L >= 0, found 4 -> 0 of 10}}
%a = devidx.alltoall %x at %k from %k rows 4 -> 0 of 10 : tensor<4x5xf32> -> tensor<0x5xf32>
// CHECK: devidx-tabled-collectives-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.alltoall: rows S -> T

// -----

// The generic form goes through the verifier: rows without `from`.
%x = "test.op"() : () -> tensor<4x5xf32>
%k = "test.op"() : () -> index
// expected-error @+1 {{devidx.alltoall: `rows S -> T of L` needs `from %i`, found rows without from}}
%a = "devidx.alltoall"(%x, %k) <{rows = array<i64: 4, 3, 10>}> : (tensor<4x5xf32>, index) -> tensor<3x5xf32>

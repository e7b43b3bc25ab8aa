// RUN: multi-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s

// devidx.lookup: the table has at least one entry.
%i = "test.op"() : () -> index
// expected-error @+1 {{devidx.lookup: the table must have at least one entry}}
%k = devidx.lookup %i in [] : index
// CHECK: devidx-lookup-invalid.mlir:[[# @LINE - 1]]:26: error: devidx.lookup: the table must have at least one entry

// -----

// devidx.lookup: the index is an index value.
%i = "test.op"() : () -> i32
// expected-error @+1 {{operand is used with type index, but has been previously used or defined with type i32}}
%k = devidx.lookup %i in [1, 0] : index
// CHECK: devidx-lookup-invalid.mlir:[[# @LINE - 1]]:20: error: operand is used with type index

// -----

// devidx.lookup: the result is an index.
%i = "test.op"() : () -> index
// expected-error @+1 {{devidx.lookup: the result must be index, found i32}}
%k = devidx.lookup %i in [1, 0] : i32
// CHECK: devidx-lookup-invalid.mlir:[[# @LINE - 1]]:35: error: devidx.lookup: the result must be index, found i32

// -----

// The generic form goes through the verifier: an empty table.
%i = "test.op"() : () -> index
// expected-error @+1 {{devidx.lookup: the table must have at least one entry, found []}}
%k = "devidx.lookup"(%i) <{table = array<i64>}> : (index) -> index

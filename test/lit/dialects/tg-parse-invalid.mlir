// RUN: multi-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s

// Parse errors in the custom syntax of the tg ops (tg.pad: tg-pad-parse-invalid.mlir).

// tg.permute: the order is a list of integers.
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{'[' expected}}
%y = tg.permute %x (1, 0) : tensor<8x4xf32> -> tensor<4x8xf32>
// CHECK: tg-parse-invalid.mlir:[[# @LINE - 1]]:20: error: '[' expected

// -----

// tg.permute: list entries are integers, not values.
%x, %i = "test.op"() : () -> (tensor<8x4xf32>, index)
// expected-error @+1 {{Expected integer literal}}
%y = tg.permute %x [%i, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
// CHECK: tg-parse-invalid.mlir:[[# @LINE - 1]]:21: error: Expected integer literal

// -----

// tg.permute: list entries fit in 64 bits.
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{integer 99999999999999999999 does not fit in 64 bits}}
%y = tg.permute %x [1, 99999999999999999999] : tensor<8x4xf32> -> tensor<4x8xf32>
// CHECK: tg-parse-invalid.mlir:[[# @LINE - 1]]:24: error: integer 99999999999999999999 does not fit in 64 bits

// -----

// tg.reduce: the reduction is add, mul or max.
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{Expected one of 'add', 'max', 'mul'}}
%y = tg.reduce sum %x [1] : tensor<8x4xf32> -> tensor<8x1xf32>
// CHECK: tg-parse-invalid.mlir:[[# @LINE - 1]]:16: error: Expected one of 'add', 'max', 'mul'

// -----

// tg.reduce: axes are required (possibly []).
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{'[' expected}}
%y = tg.reduce add %x : tensor<8x4xf32> -> tensor<8x1xf32>
// CHECK: tg-parse-invalid.mlir:[[# @LINE - 1]]:23: error: '[' expected

// -----

// tg.flip: axes are a list.
%x = "test.op"() : () -> tensor<8x4xf32>
// expected-error @+1 {{'[' expected}}
%y = tg.flip %x 0 : tensor<8x4xf32>
// CHECK: tg-parse-invalid.mlir:[[# @LINE - 1]]:17: error: '[' expected

// -----

// tg.shrink: bounds are a list of [lo, hi] pairs.
%x = "test.op"() : () -> tensor<8xf32>
// expected-error @+1 {{'[' expected}}
%y = tg.shrink %x [0, 4] : tensor<8xf32> -> tensor<4xf32>
// CHECK: tg-parse-invalid.mlir:[[# @LINE - 1]]:20: error: '[' expected

// -----

// tg.shrink: a pair has two bounds.
%x = "test.op"() : () -> tensor<8xf32>
// expected-error @+1 {{a bound is a pair [lo, hi], found 1 value}}
%y = tg.shrink %x [[4]] : tensor<8xf32> -> tensor<4xf32>
// CHECK: tg-parse-invalid.mlir:[[# @LINE - 1]]:20: error: a bound is a pair [lo, hi], found 1 value

// -----

// tg.shrink: static bounds are not negative (INT64_MIN, the generic form's dynamic marker, too).
%x = "test.op"() : () -> tensor<8xf32>
// expected-error @+1 {{tg.shrink: bound -1 is negative; static bounds are >= 0}}
%y = tg.shrink %x [[-1, 3]] : tensor<8xf32> -> tensor<4xf32>
// CHECK: tg-parse-invalid.mlir:[[# @LINE - 1]]:21: error: tg.shrink: bound -1 is negative; static bounds are >= 0

// -----

%x = "test.op"() : () -> tensor<8xf32>
// expected-error @+1 {{tg.shrink: bound -9223372036854775808 is negative; static bounds are >= 0}}
%y = tg.shrink %x [[-9223372036854775808, 4]] : tensor<8xf32> -> tensor<4xf32>
// CHECK: tg-parse-invalid.mlir:[[# @LINE - 1]]:21: error: tg.shrink: bound -9223372036854775808 is negative; static bounds are >= 0

// -----

// tg.shrink: an SSA bound is an index.
%x, %n = "test.op"() : () -> (tensor<8xf32>, i64)
// expected-error @+1 {{operand is used with type index, but has been previously used or defined with type i64}}
%y = tg.shrink %x [[0, %n]] : tensor<8xf32> -> tensor<4xf32>
// CHECK: tg-parse-invalid.mlir:[[# @LINE - 1]]:24: error: operand is used with type index, but has been previously used or defined with type i64

// -----

// tg.shrink: an SSA bound is defined.
%x = "test.op"() : () -> tensor<8xf32>
// expected-error @+1 {{value %undefined is used but not defined}}
%y = tg.shrink %x [[0, %undefined]] : tensor<8xf32> -> tensor<4xf32>
// CHECK: tg-parse-invalid.mlir:[[# @LINE - 1]]:1: error: value %undefined is used but not defined

// -----

// tg.cmp: the predicate is lt, le, gt, ge, eq, ne, ult, ule, ugt or uge.
%x = "test.op"() : () -> tensor<4xf32>
// expected-error @+1 {{Expected one of 'eq', 'ge', 'gt', 'le', 'lt', 'ne', 'uge', 'ugt', 'ule', 'ult'}}
%y = tg.cmp olt %x, %x : tensor<4xf32> -> tensor<4xi1>
// CHECK: tg-parse-invalid.mlir:[[# @LINE - 1]]:13: error: Expected one of 'eq', 'ge', 'gt', 'le', 'lt', 'ne', 'uge', 'ugt', 'ule', 'ult'

// -----

// tg.cmp: the operands are tensors.
%x = "test.op"() : () -> f32
// expected-error @+1 {{tg.cmp: operands must be tensors, found f32}}
%y = tg.cmp lt %x, %x : f32 -> i1
// CHECK: tg-parse-invalid.mlir:[[# @LINE - 1]]:23: error: tg.cmp: operands must be tensors, found f32

// -----

// tg.cmp: two operands.
%x = "test.op"() : () -> tensor<4xf32>
// expected-error @+1 {{Expected ','}}
%y = tg.cmp lt %x : tensor<4xf32> -> tensor<4xi1>
// CHECK: tg-parse-invalid.mlir:[[# @LINE - 1]]:19: error: Expected ','

// -----

// tg.where: the condition type, then the value type.
%c, %x = "test.op"() : () -> (tensor<4xi1>, tensor<4xf32>)
%y = tg.where %c, %x, %x : tensor<4xf32>
// CHECK: tg-parse-invalid.mlir:[[# @LINE + 3]]:1: error: Expected ','

// expected-error @+1 {{Expected ','}}
// -----

// tg.cast: the operand's written type is its type.
%x = "test.op"() : () -> tensor<4xf32>
// expected-error @+1 {{operand is used with type tensor<4xi32>, but has been previously used or defined with type tensor<4xf32>}}
%y = tg.cast %x : tensor<4xi32> -> tensor<4xf32>
// CHECK: tg-parse-invalid.mlir:[[# @LINE - 1]]:14: error: operand is used with type tensor<4xi32>, but has been previously used or defined with type tensor<4xf32>

// -----

// An unknown op of the tg dialect.
%x = "test.op"() : () -> tensor<4xf32>
// expected-error @+1 {{Operation tg.sqrt is not registered}}
%y = tg.sqrt %x : tensor<4xf32>
// CHECK: tg-parse-invalid.mlir:[[# @LINE - 1]]:14: error: Operation tg.sqrt is not registered

// RUN: multi-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s

// Parse errors of tg.pad's custom syntax: each is reported at the offending token.

// The fill literal follows the element type: no fraction for integers.
%x = "test.op"() : () -> tensor<8xi32>
// expected-error @+1 {{tg.pad: fill value 1.5 does not fit element type i32}}
%y = tg.pad %x [[1, 1]] value 1.5 : tensor<8xi32> -> tensor<10xi32>
// CHECK: tg-pad-parse-invalid.mlir:[[# @LINE - 1]]:31: error: tg.pad: fill value 1.5 does not fit element type i32

// -----

// The fill literal follows the element type: no bool for floats.
%x = "test.op"() : () -> tensor<8xf32>
// expected-error @+1 {{tg.pad: fill value true does not fit element type f32}}
%y = tg.pad %x [[1, 1]] value true : tensor<8xf32> -> tensor<10xf32>
// CHECK: tg-pad-parse-invalid.mlir:[[# @LINE - 1]]:31: error: tg.pad: fill value true does not fit element type f32

// -----

// The fill literal follows the element type: i1 takes true, false, 0 or 1.
%x = "test.op"() : () -> tensor<8xi1>
// expected-error @+1 {{tg.pad: fill value 2 does not fit element type i1}}
%y = tg.pad %x [[1, 1]] value 2 : tensor<8xi1> -> tensor<10xi1>
// CHECK: tg-pad-parse-invalid.mlir:[[# @LINE - 1]]:31: error: tg.pad: fill value 2 does not fit element type i1

// -----

// The fill literal follows the element type: it fits the integer width.
%x = "test.op"() : () -> tensor<8xi8>
// expected-error @+1 {{tg.pad: fill value 300 does not fit element type i8}}
%y = tg.pad %x [[1, 1]] value 300 : tensor<8xi8> -> tensor<10xi8>
// CHECK: tg-pad-parse-invalid.mlir:[[# @LINE - 1]]:31: error: tg.pad: fill value 300 does not fit element type i8

// -----

// The fill literal follows the element type: it fits the float type (f32 max is ~3.4e38).
%x = "test.op"() : () -> tensor<8xf32>
// expected-error @+1 {{tg.pad: fill value 3.5e+38 does not fit element type f32}}
%y = tg.pad %x [[1, 1]] value 3.5e38 : tensor<8xf32> -> tensor<10xf32>
// CHECK: tg-pad-parse-invalid.mlir:[[# @LINE - 1]]:31: error: tg.pad: fill value 3.5e+38 does not fit element type f32

// -----

// The fill literal follows the element type: f16 max is 65504.
%x = "test.op"() : () -> tensor<8xf16>
// expected-error @+1 {{tg.pad: fill value 70000.0 does not fit element type f16}}
%y = tg.pad %x [[1, 1]] value 70000.0 : tensor<8xf16> -> tensor<10xf16>
// CHECK: tg-pad-parse-invalid.mlir:[[# @LINE - 1]]:31: error: tg.pad: fill value 70000.0 does not fit element type f16

// -----

// The fill literal is finite (inf would not print back as a number).
%x = "test.op"() : () -> tensor<8xf64>
// expected-error @+1 {{tg.pad: fill value inf does not fit element type f64}}
%y = tg.pad %x [[1, 1]] value 1.0e400 : tensor<8xf64> -> tensor<10xf64>
// CHECK: tg-pad-parse-invalid.mlir:[[# @LINE - 1]]:31: error: tg.pad: fill value inf does not fit element type f64

// -----

// `value V` or `invalid` is required.
%x = "test.op"() : () -> tensor<8xf32>
// expected-error @+1 {{Expected 'value' or 'invalid'}}
%y = tg.pad %x [[1, 1]] : tensor<8xf32> -> tensor<10xf32>
// CHECK: tg-pad-parse-invalid.mlir:[[# @LINE - 1]]:25: error: Expected 'value' or 'invalid'

// -----

// A bound is a pair [lo, hi].
%x = "test.op"() : () -> tensor<8xf32>
// expected-error @+1 {{a bound is a pair [lo, hi], found 3 values}}
%y = tg.pad %x [[1, 1, 1]] value 0.0 : tensor<8xf32> -> tensor<11xf32>
// CHECK: tg-pad-parse-invalid.mlir:[[# @LINE - 1]]:17: error: a bound is a pair [lo, hi], found 3 values

// -----

// A bound is an integer or an SSA value.
%x = "test.op"() : () -> tensor<8xf32>
// expected-error @+1 {{Expected integer literal or SSA value as bound}}
%y = tg.pad %x [[1.5, 1]] value 0.0 : tensor<8xf32> -> tensor<10xf32>
// CHECK: tg-pad-parse-invalid.mlir:[[# @LINE - 1]]:18: error: Expected integer literal or SSA value as bound

// -----

// A bound fits in 64 bits.
%x = "test.op"() : () -> tensor<8xf32>
// expected-error @+1 {{integer 99999999999999999999 does not fit in 64 bits}}
%y = tg.pad %x [[99999999999999999999, 1]] value 0.0 : tensor<8xf32> -> tensor<10xf32>
// CHECK: tg-pad-parse-invalid.mlir:[[# @LINE - 1]]:18: error: integer 99999999999999999999 does not fit in 64 bits

// -----

// An SSA bound is an index value.
%x, %n = "test.op"() : () -> (tensor<8xf32>, i32)
// expected-error @+1 {{operand is used with type index, but has been previously used or defined with type i32}}
%y = tg.pad %x [[%n, 1]] invalid : tensor<8xf32> -> tensor<10xf32>
// CHECK: tg-pad-parse-invalid.mlir:[[# @LINE - 1]]:18: error: operand is used with type index, but has been previously used or defined with type i32

// -----

// The operand is a tensor.
%x = "test.op"() : () -> f32
// expected-error @+1 {{tg.pad: operand must be a tensor, found f32}}
%y = tg.pad %x [[1, 1]] value 0.0 : f32 -> tensor<10xf32>
// CHECK: tg-pad-parse-invalid.mlir:[[# @LINE - 1]]:35: error: tg.pad: operand must be a tensor, found f32

// -----

// Static bounds are not negative: rejected at the literal.
%x = "test.op"() : () -> tensor<8xf32>
// expected-error @+1 {{tg.pad: bound -1 is negative; static bounds are >= 0}}
%y = tg.pad %x [[-1, 1]] value 0.0 : tensor<8xf32> -> tensor<8xf32>
// CHECK: tg-pad-parse-invalid.mlir:[[# @LINE - 1]]:18: error: tg.pad: bound -1 is negative; static bounds are >= 0
// CHECK-NEXT: {{^}}%y = tg.pad %x {{\[\[}}-1, 1]] value 0.0 : tensor<8xf32> -> tensor<8xf32>
// CHECK-NEXT: {{^}}                 ^~{{$}}

// -----

// INT64_MIN is how the generic form marks a dynamic bound; written as a literal it is a negative
// bound, not a missing index operand.
%x = "test.op"() : () -> tensor<4xf32>
// expected-error @+1 {{tg.pad: bound -9223372036854775808 is negative; static bounds are >= 0}}
%y = tg.pad %x [[-9223372036854775808, 0]] invalid : tensor<4xf32> -> tensor<4xf32>
// CHECK: tg-pad-parse-invalid.mlir:[[# @LINE - 1]]:18: error: tg.pad: bound -9223372036854775808 is negative; static bounds are >= 0
// CHECK-NOT: index operand

// -----

// The same next to a dynamic bound.
%x, %n = "test.op"() : () -> (tensor<4xf32>, index)
// expected-error @+1 {{tg.pad: bound -9223372036854775808 is negative; static bounds are >= 0}}
%y = tg.pad %x [[%n, -9223372036854775808]] invalid : tensor<4xf32> -> tensor<8xf32>
// CHECK: tg-pad-parse-invalid.mlir:[[# @LINE - 1]]:22: error: tg.pad: bound -9223372036854775808 is negative; static bounds are >= 0

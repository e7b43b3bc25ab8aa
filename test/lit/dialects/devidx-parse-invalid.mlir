// RUN: multi-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s

// Parse errors in the custom syntax of the devidx ops.

// devidx.index: the index is an SSA value in square brackets.
%s = "test.op"() : () -> tensor<2x4xf32>
// expected-error @+1 {{operand expected}}
%ix = devidx.index %s[0] : tensor<2x4xf32> -> tensor<4xf32>
// CHECK: devidx-parse-invalid.mlir:[[# @LINE - 1]]:23: error: operand expected

// -----

// devidx.index: the index is an index value.
%s, %i = "test.op"() : () -> (tensor<2x4xf32>, i32)
// expected-error @+1 {{operand is used with type index, but has been previously used or defined with type i32}}
%ix = devidx.index %s[%i] : tensor<2x4xf32> -> tensor<4xf32>
// CHECK: devidx-parse-invalid.mlir:[[# @LINE - 1]]:23: error: operand is used with type index, but has been previously used or defined with type i32

// -----

// devidx.fetch needs `from`.
%x, %src = "test.op"() : () -> (tensor<4xf32>, index)
// expected-error @+1 {{Expected 'from'}}
%ft = devidx.fetch %x %src : tensor<4xf32>
// CHECK: devidx-parse-invalid.mlir:[[# @LINE - 1]]:23: error: Expected 'from'

// -----

// devidx.fetch: the source device is an SSA value, not a constant.
%x = "test.op"() : () -> tensor<4xf32>
// expected-error @+1 {{operand expected}}
%ft = devidx.fetch %x from 0 : tensor<4xf32>
// CHECK: devidx-parse-invalid.mlir:[[# @LINE - 1]]:28: error: operand expected

// -----

// devidx.send needs `to N channel C`.
%x = "test.op"() : () -> tensor<4xf32>
// expected-error @+1 {{Expected 'channel'}}
devidx.send %x to 1 : tensor<4xf32>
// CHECK: devidx-parse-invalid.mlir:[[# @LINE - 1]]:21: error: Expected 'channel'

// -----

// devidx.send: the destination is a constant device number, not a value.
%x, %d = "test.op"() : () -> (tensor<4xf32>, index)
// expected-error @+1 {{Expected integer literal}}
devidx.send %x to %d channel 0 : tensor<4xf32>
// CHECK: devidx-parse-invalid.mlir:[[# @LINE - 1]]:19: error: Expected integer literal

// -----

// devidx.send: the channel fits in 64 bits.
%x = "test.op"() : () -> tensor<4xf32>
// expected-error @+1 {{integer 18446744073709551616 does not fit in 64 bits}}
devidx.send %x to 1 channel 18446744073709551616 : tensor<4xf32>
// CHECK: devidx-parse-invalid.mlir:[[# @LINE - 1]]:29: error: integer 18446744073709551616 does not fit in 64 bits

// -----

// devidx.recv needs `from N`.
// expected-error @+1 {{Expected 'from'}}
%r = devidx.recv channel 7 : tensor<4xf32>
// CHECK: devidx-parse-invalid.mlir:[[# @LINE - 1]]:18: error: Expected 'from'

// -----

// devidx.recv has no operand.
%x = "test.op"() : () -> tensor<4xf32>
// expected-error @+1 {{Expected 'from'}}
%r = devidx.recv %x from 0 channel 7 : tensor<4xf32>
// CHECK: devidx-parse-invalid.mlir:[[# @LINE - 1]]:18: error: Expected 'from'

// -----

// devidx.stack: one type per source.
%a, %b = "test.op"() : () -> (tensor<4xf32>, tensor<4xf32>)
// expected-error @+1 {{expected 2 operand types, found 3}}
%st = devidx.stack %a, %b : tensor<4xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<3x4xf32>
// CHECK: devidx-parse-invalid.mlir:[[# @LINE - 1]]:29: error: expected 2 operand types, found 3

// -----

// devidx.device_num takes no operand.
%i = "test.op"() : () -> index
// expected-error @+1 {{Expected ':'}}
%dn = devidx.device_num %i : index
// CHECK: devidx-parse-invalid.mlir:[[# @LINE - 1]]:25: error: Expected ':'

// -----

// An unknown op of the devidx dialect.
// expected-error @+1 {{Operation devidx.num_devices is not registered}}
%x = devidx.num_devices : index
// CHECK: devidx-parse-invalid.mlir:[[# @LINE - 1]]:25: error: Operation devidx.num_devices is not registered

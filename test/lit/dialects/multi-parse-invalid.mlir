// RUN: multi-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s

// Parse errors in the custom syntax of the multi ops.

// multi.multi needs `axis N`.
%x = "test.op"() : () -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{Expected 'axis'}}
%m = multi.multi %x : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: multi-parse-invalid.mlir:[[# @LINE - 1]]:21: error: Expected 'axis'

// -----

// multi.multi: the axis is an integer.
%x = "test.op"() : () -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{Expected integer literal}}
%m = multi.multi %x axis x : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: multi-parse-invalid.mlir:[[# @LINE - 1]]:26: error: Expected integer literal

// -----

// multi.multi: the axis fits in 64 bits.
%x = "test.op"() : () -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{integer 99999999999999999999 does not fit in 64 bits}}
%m = multi.multi %x axis 99999999999999999999 : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: multi-parse-invalid.mlir:[[# @LINE - 1]]:26: error: integer 99999999999999999999 does not fit in 64 bits

// -----

// multi.mselect: the index is in square brackets.
%x = "test.op"() : () -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{Expected '['}}
%s = multi.mselect %x 1 : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4xf32, #multi.on<["CPU:1"]>>
// CHECK: multi-parse-invalid.mlir:[[# @LINE - 1]]:23: error: Expected '['

// -----

// multi.mselect: the index is an integer, not a value.
%x, %i = "test.op"() : () -> (tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>, index)
// expected-error @+1 {{Expected integer literal}}
%s = multi.mselect %x[%i] : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4xf32, #multi.on<["CPU:1"]>>
// CHECK: multi-parse-invalid.mlir:[[# @LINE - 1]]:23: error: Expected integer literal

// -----

// multi.mstack: one type per source.
%a, %b = "test.op"() : () -> (tensor<4xf32, #multi.on<["CPU:0"]>>, tensor<4xf32, #multi.on<["CPU:1"]>>)
// expected-error @+1 {{expected 2 operand types, found 1}}
%t = multi.mstack %a, %b : tensor<4xf32, #multi.on<["CPU:0"]>> -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: multi-parse-invalid.mlir:[[# @LINE - 1]]:28: error: expected 2 operand types, found 1

// -----

// multi.mstack: the result type follows `->`.
%a = "test.op"() : () -> tensor<4xf32, #multi.on<["CPU:0"]>>
%t = multi.mstack %a : tensor<4xf32, #multi.on<["CPU:0"]>>
// CHECK: multi-parse-invalid.mlir:[[# @LINE + 3]]:1: error: Expected '->'

// expected-error @+1 {{Expected '->'}}
// -----

// multi.mstack: at least one source.
// expected-error @+1 {{operand expected}}
%t = multi.mstack : tensor<4xf32, #multi.on<["CPU:0"]>>
// CHECK: multi-parse-invalid.mlir:[[# @LINE - 1]]:19: error: operand expected

// -----

// multi.allreduce: the reduction is add, mul or max.
%x = "test.op"() : () -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{Expected one of 'add', 'max', 'mul'}}
%r = multi.allreduce min %x : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: multi-parse-invalid.mlir:[[# @LINE - 1]]:22: error: Expected one of 'add', 'max', 'mul'

// -----

// multi.allreduce: the reduction is written first.
%x = "test.op"() : () -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{Expected one of 'add', 'max', 'mul'}}
%r = multi.allreduce %x add : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: multi-parse-invalid.mlir:[[# @LINE - 1]]:22: error: Expected one of 'add', 'max', 'mul'

// -----

// multi.copy: the written type is the operand's type.
%x = "test.op"() : () -> tensor<4xf32, #multi.on<["CPU:0"]>>
// expected-error @+1 {{operand is used with type tensor<4xf32, #multi.on<["CPU:1"]>>, but has been previously used or defined with type tensor<4xf32, #multi.on<["CPU:0"]>>}}
%c = multi.copy %x : tensor<4xf32, #multi.on<["CPU:1"]>> -> tensor<4xf32, #multi.on<["CPU:2"]>>
// CHECK: multi-parse-invalid.mlir:[[# @LINE - 1]]:17: error: operand is used with type tensor<4xf32, #multi.on<["CPU:1"]>>, but has been previously used or defined with type tensor<4xf32, #multi.on<["CPU:0"]>>

// -----

// An unknown op of the multi dialect.
%x = "test.op"() : () -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{Operation multi.allgather is not registered}}
%r = multi.allgather %x : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: multi-parse-invalid.mlir:[[# @LINE - 1]]:22: error: Operation multi.allgather is not registered

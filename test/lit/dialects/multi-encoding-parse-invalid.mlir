// RUN: multi-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s

// Parse errors in the placement encodings, reported at the offending text.

// A device list names at least one device.
// expected-error @+1 {{a device list must name at least one device}}
%x = "test.op"() : () -> tensor<4xf32, #multi.on<[]>>
// CHECK: multi-encoding-parse-invalid.mlir:[[# @LINE - 1]]:50: error: a device list must name at least one device

// -----

// A device list names at least one device (shard).
// expected-error @+1 {{a device list must name at least one device}}
%x = "test.op"() : () -> tensor<4xf32, #multi.shard<[], axis = 0>>
// CHECK: multi-encoding-parse-invalid.mlir:[[# @LINE - 1]]:53: error: a device list must name at least one device

// -----

// A device appears once.
// expected-error @+1 {{device "CPU:0" appears twice in the list}}
%x = "test.op"() : () -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:0"]>>
// CHECK: multi-encoding-parse-invalid.mlir:[[# @LINE - 1]]:50: error: device "CPU:0" appears twice in the list

// -----

// A device appears once (shard).
// expected-error @+1 {{device "CPU:1" appears twice in the list}}
%x = "test.op"() : () -> tensor<8xf32, #multi.shard<["CPU:1", "CPU:1"], axis = 0>>
// CHECK: multi-encoding-parse-invalid.mlir:[[# @LINE - 1]]:53: error: device "CPU:1" appears twice in the list

// -----

// The shard axis is not negative.
// expected-error @+1 {{shard axis must be >= 0, found -1}}
%x = "test.op"() : () -> tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = -1>>
// CHECK: multi-encoding-parse-invalid.mlir:[[# @LINE - 1]]:80: error: shard axis must be >= 0, found -1

// -----

// The shard axis is an integer, not `?`.
// expected-error @+1 {{Expected integer literal for the shard axis}}
%x = "test.op"() : () -> tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = ?>>
// CHECK: multi-encoding-parse-invalid.mlir:[[# @LINE - 1]]:80: error: Expected integer literal for the shard axis

// -----

// The shard encoding needs `axis = N`.
// expected-error @+1 {{Expected ','}}
%x = "test.op"() : () -> tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"]>>
// CHECK: multi-encoding-parse-invalid.mlir:[[# @LINE - 1]]:71: error: Expected ','

// -----

// `axis` is spelled out.
// expected-error @+1 {{Expected 'axis'}}
%x = "test.op"() : () -> tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], dim = 0>>
// CHECK: multi-encoding-parse-invalid.mlir:[[# @LINE - 1]]:73: error: Expected 'axis'

// -----

// Device names are string literals.
// expected-error @+1 {{string literal expected (a device name)}}
%x = "test.op"() : () -> tensor<4xf32, #multi.on<[CPU0]>>
// CHECK: multi-encoding-parse-invalid.mlir:[[# @LINE - 1]]:51: error: string literal expected (a device name)

// -----

// Device names are string literals, not integers.
// expected-error @+1 {{string literal expected (a device name)}}
%x = "test.op"() : () -> tensor<4xf32, #multi.on<[0, 1]>>
// CHECK: multi-encoding-parse-invalid.mlir:[[# @LINE - 1]]:51: error: string literal expected (a device name)

// -----

// The device list is in square brackets.
// expected-error @+1 {{'[' expected}}
%x = "test.op"() : () -> tensor<4xf32, #multi.on<"CPU:0">>
// CHECK: multi-encoding-parse-invalid.mlir:[[# @LINE - 1]]:50: error: '[' expected

// -----

// Unknown attribute of the multi dialect.
// expected-error @+1 {{'multi.replicated' is not registered}}
%x = "test.op"() : () -> tensor<4xf32, #multi.replicated<["CPU:0"]>>
// CHECK: multi-encoding-parse-invalid.mlir:[[# @LINE - 1]]:57: error: 'multi.replicated' is not registered

// -----

// Unterminated device list.
// expected-error @+1 {{']' expected}}
%x = "test.op"() : () -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1">>
// CHECK: multi-encoding-parse-invalid.mlir:[[# @LINE - 1]]:67: error: ']' expected

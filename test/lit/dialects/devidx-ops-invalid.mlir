// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s

// One chunk per verifier rule of the devidx ops (SPEC §4).

// devidx.device_num is an index.
// expected-error @+1 {{devidx.device_num: result 'result' at position 0 does not verify: i32 should be of base attribute index}}
%dn = "devidx.device_num"() : () -> i32
// CHECK: devidx-ops-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.device_num: result 'result' at position 0 does not verify: i32 should be of base attribute index

// -----

// devidx.invalid is a tensor. Its custom format checks the type while parsing; the error is
// still at the op and names it.
// expected-error @+1 {{devidx.invalid: result 'result' does not verify: f32 should be of base attribute tensor}}
%inv = devidx.invalid : f32
// CHECK: devidx-ops-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.invalid: result 'result' does not verify: f32 should be of base attribute tensor
// CHECK-NEXT: {{^}}%inv = devidx.invalid : f32
// CHECK-NEXT: {{^}}^{{$}}

// -----

// devidx.invalid has a static shape.
// expected-error @+1 {{devidx.invalid: result must have a static shape, found tensor<?xf32>}}
%inv = devidx.invalid : tensor<?xf32>
// CHECK: devidx-ops-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.invalid: result must have a static shape, found tensor<?xf32>

// -----

// devidx.stack: at least one source (generic form).
// expected-error @+1 {{devidx.stack: needs at least one source}}
%st = "devidx.stack"() : () -> tensor<0xf32>
// CHECK: devidx-ops-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.stack: needs at least one source

// -----

// devidx.stack: all sources have one type (shape).
%a, %b = "test.op"() : () -> (tensor<4xf32>, tensor<3xf32>)
// expected-error @+1 {{devidx.stack: source 1 has type tensor<3xf32>, source 0 has tensor<4xf32>}}
%st = devidx.stack %a, %b : tensor<4xf32>, tensor<3xf32> -> tensor<2x4xf32>
// CHECK: devidx-ops-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.stack: source 1 has type tensor<3xf32>, source 0 has tensor<4xf32>

// -----

// devidx.stack: all sources have one type (element type).
%a, %b = "test.op"() : () -> (tensor<4xf32>, tensor<4xf16>)
// expected-error @+1 {{devidx.stack: source 1 has type tensor<4xf16>, source 0 has tensor<4xf32>}}
%st = devidx.stack %a, %b : tensor<4xf32>, tensor<4xf16> -> tensor<2x4xf32>
// CHECK: devidx-ops-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.stack: source 1 has type tensor<4xf16>, source 0 has tensor<4xf32>

// -----

// devidx.stack: all sources have one type (encoding).
%a, %b = "test.op"() : () -> (tensor<4xf32, #multi.on<["CPU:0"]>>, tensor<4xf32>)
// expected-error @+1 {{devidx.stack: source 1 has type tensor<4xf32>, source 0 has tensor<4xf32, #multi.on<["CPU:0"]>>}}
%st = devidx.stack %a, %b : tensor<4xf32, #multi.on<["CPU:0"]>>, tensor<4xf32> -> tensor<2x4xf32>
// CHECK: devidx-ops-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.stack: source 1 has type tensor<4xf32>, source 0 has tensor<4xf32, #multi.on<["CPU:0"]>>

// -----

// devidx.stack: the result has a leading axis of the number of sources.
%a, %b = "test.op"() : () -> (tensor<4xf32>, tensor<4xf32>)
// expected-error @+1 {{devidx.stack: result must be tensor<2x4xf32>, found tensor<3x4xf32>}}
%st = devidx.stack %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<3x4xf32>
// CHECK: devidx-ops-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.stack: result must be tensor<2x4xf32>, found tensor<3x4xf32>

// -----

// devidx.stack: the new axis is leading.
%a, %b = "test.op"() : () -> (tensor<4xf32>, tensor<4xf32>)
// expected-error @+1 {{devidx.stack: result must be tensor<2x4xf32>, found tensor<4x2xf32>}}
%st = devidx.stack %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<4x2xf32>
// CHECK: devidx-ops-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.stack: result must be tensor<2x4xf32>, found tensor<4x2xf32>

// -----

// devidx.stack: the result has the sources' element type.
%a, %b = "test.op"() : () -> (tensor<4xf32>, tensor<4xf32>)
// expected-error @+1 {{devidx.stack: result must be tensor<2x4xf32>, found tensor<2x4xi32>}}
%st = devidx.stack %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<2x4xi32>
// CHECK: devidx-ops-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.stack: result must be tensor<2x4xf32>, found tensor<2x4xi32>

// -----

// devidx.stack: the result has the sources' encoding.
%a = "test.op"() : () -> tensor<4xf32, #multi.on<["CPU:0"]>>
// expected-error @+1 {{devidx.stack: result must be tensor<1x4xf32, #multi.on<["CPU:0"]>>, found tensor<1x4xf32>}}
%st = devidx.stack %a : tensor<4xf32, #multi.on<["CPU:0"]>> -> tensor<1x4xf32>
// CHECK: devidx-ops-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.stack: result must be tensor<1x4xf32, #multi.on<["CPU:0"]>>, found tensor<1x4xf32>

// -----

// devidx.index: the source has rank >= 1.
%s, %i = "test.op"() : () -> (tensor<f32>, index)
// expected-error @+1 {{devidx.index: source must have rank >= 1, found tensor<f32>}}
%ix = devidx.index %s[%i] : tensor<f32> -> tensor<f32>
// CHECK: devidx-ops-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.index: source must have rank >= 1, found tensor<f32>

// -----

// devidx.index: the result drops the leading axis.
%s, %i = "test.op"() : () -> (tensor<2x4xf32>, index)
// expected-error @+1 {{devidx.index: result must be tensor<4xf32>, found tensor<2xf32>}}
%ix = devidx.index %s[%i] : tensor<2x4xf32> -> tensor<2xf32>
// CHECK: devidx-ops-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.index: result must be tensor<4xf32>, found tensor<2xf32>

// -----

// devidx.index: the result keeps the element type.
%s, %i = "test.op"() : () -> (tensor<2x4xf32>, index)
// expected-error @+1 {{devidx.index: result must be tensor<4xf32>, found tensor<4xf64>}}
%ix = devidx.index %s[%i] : tensor<2x4xf32> -> tensor<4xf64>
// CHECK: devidx-ops-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.index: result must be tensor<4xf32>, found tensor<4xf64>

// -----

// devidx.index: the result keeps the encoding.
%s, %i = "test.op"() : () -> (tensor<2x4xf32, #multi.on<["CPU:0"]>>, index)
// expected-error @+1 {{devidx.index: result must be tensor<4xf32, #multi.on<["CPU:0"]>>, found tensor<4xf32>}}
%ix = devidx.index %s[%i] : tensor<2x4xf32, #multi.on<["CPU:0"]>> -> tensor<4xf32>
// CHECK: devidx-ops-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.index: result must be tensor<4xf32, #multi.on<["CPU:0"]>>, found tensor<4xf32>

// -----

// devidx.index: the index is an index value (generic form).
%s, %i = "test.op"() : () -> (tensor<2x4xf32>, i64)
// expected-error @+1 {{devidx.index: operand 'index' at position 1 does not verify: i64 should be of base attribute index}}
%ix = "devidx.index"(%s, %i) : (tensor<2x4xf32>, i64) -> tensor<4xf32>
// CHECK: devidx-ops-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.index: operand 'index' at position 1 does not verify: i64 should be of base attribute index

// -----

// devidx.fetch: the result has the value's type (generic form).
%x, %src = "test.op"() : () -> (tensor<4xf32>, index)
// expected-error @+1 {{devidx.fetch: result type tensor<4xf64> differs from tensor<4xf32>}}
%ft = "devidx.fetch"(%x, %src) : (tensor<4xf32>, index) -> tensor<4xf64>
// CHECK: devidx-ops-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.fetch: result type tensor<4xf64> differs from tensor<4xf32>

// -----

// devidx.fetch: the source device is an index value (generic form).
%x, %src = "test.op"() : () -> (tensor<4xf32>, i32)
// expected-error @+1 {{devidx.fetch: operand 'src' at position 1 does not verify: i32 should be of base attribute index}}
%ft = "devidx.fetch"(%x, %src) : (tensor<4xf32>, i32) -> tensor<4xf32>
// CHECK: devidx-ops-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.fetch: operand 'src' at position 1 does not verify: i32 should be of base attribute index

// -----

// devidx.fetch: the value is a tensor.
%x, %src = "test.op"() : () -> (f32, index)
// expected-error @+1 {{devidx.fetch: operand 'value' at position 0 does not verify: f32 should be of base attribute tensor}}
%ft = devidx.fetch %x from %src : f32
// CHECK: devidx-ops-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.fetch: operand 'value' at position 0 does not verify: f32 should be of base attribute tensor

// -----

// devidx.send: the destination device is not negative.
%x = "test.op"() : () -> tensor<4xf32>
// expected-error @+1 {{devidx.send: destination device -1 is negative}}
devidx.send %x to -1 channel 7 : tensor<4xf32>
// CHECK: devidx-ops-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.send: destination device -1 is negative

// -----

// devidx.send: the channel is not negative.
%x = "test.op"() : () -> tensor<4xf32>
// expected-error @+1 {{devidx.send: channel -7 is negative}}
devidx.send %x to 1 channel -7 : tensor<4xf32>
// CHECK: devidx-ops-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.send: channel -7 is negative

// -----

// devidx.send: the value is a tensor.
%x = "test.op"() : () -> i32
// expected-error @+1 {{devidx.send: operand 'value' at position 0 does not verify: i32 should be of base attribute tensor or memref}}
devidx.send %x to 1 channel 7 : i32
// CHECK: devidx-ops-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.send: operand 'value' at position 0 does not verify: i32 should be of base attribute tensor

// -----

// devidx.recv: the source device is not negative.
// expected-error @+1 {{devidx.recv: source device -2 is negative}}
%r = devidx.recv from -2 channel 0 : tensor<4xf32>
// CHECK: devidx-ops-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.recv: source device -2 is negative

// -----

// devidx.recv: the channel is not negative.
// expected-error @+1 {{devidx.recv: channel -1 is negative}}
%r = devidx.recv from 0 channel -1 : tensor<4xf32>
// CHECK: devidx-ops-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.recv: channel -1 is negative

// -----

// devidx.recv: the result is a static tensor.
// expected-error @+1 {{devidx.recv: result must have a static shape, found tensor<?x4xf32>}}
%r = devidx.recv from 0 channel 1 : tensor<?x4xf32>
// CHECK: devidx-ops-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.recv: result must have a static shape, found tensor<?x4xf32>

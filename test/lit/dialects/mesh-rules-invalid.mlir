// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s

// One chunk per verifier rule on device meshes (SPEC §1.1, §2, §3).

// CHECK-NOT: Traceback

// Module rule: every split tensor axis is below the rank (a function argument).
// expected-error @+1 {{func.func @f: argument 0 (%x): tensor<8xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> has mesh axes [0, 1]: tensor axis 1 is out of range for rank 1}}
func.func @f(%x: tensor<8xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>) {
// CHECK: mesh-rules-invalid.mlir:[[# @LINE - 1]]:14: error: func.func @f: argument 0 (%x): tensor<8xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> has mesh axes [0, 1]: tensor axis 1 is out of range for rank 1
  func.return
}

// -----

// multi.multi: an entry of axes is below the source's rank.
%y = "test.op"() : () -> tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>
// expected-error @+1 {{multi.multi: axis 2 is out of range for rank 2}}
%g = multi.multi %y axes [0, 2] : tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>> -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// CHECK: mesh-rules-invalid.mlir:[[# @LINE - 1]]:1: error: multi.multi: axis 2 is out of range for rank 2

// -----

// multi.multi: the result's mesh axes are the op's.
%y = "test.op"() : () -> tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>
// expected-error @+1 {{multi.multi: result is sharded on mesh = [2, 2], axes = [1, 0], op axes are [0, 1]}}
%g = multi.multi %y axes [0, 1] : tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>> -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [1, 0]>>
// CHECK: mesh-rules-invalid.mlir:[[# @LINE - 1]]:1: error: multi.multi: result is sharded on mesh = [2, 2], axes = [1, 0], op axes are [0, 1]

// -----

// multi.multi: the op's axes and a one-axis result.
%y = "test.op"() : () -> tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>
// expected-error @+1 {{multi.multi: result is sharded on axis 0, op axes are [0, 1]}}
%g = multi.multi %y axes [0, 1] : tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>> -> tensor<16x3xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], axis = 0>>
// CHECK: mesh-rules-invalid.mlir:[[# @LINE - 1]]:1: error: multi.multi: result is sharded on axis 0, op axes are [0, 1]

// -----

// multi.multi: every split axis's local length fits its logical length (SPEC §1.1).
%y = "test.op"() : () -> tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>
// expected-error @+1 {{multi.multi: local length 3 on axis 1 does not fit logical length 7 over 2 devices (expected ceil(7/2) = 4)}}
%g = multi.multi %y axes [0, 1] : tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>> -> tensor<8x7xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// CHECK: mesh-rules-invalid.mlir:[[# @LINE - 1]]:1: error: multi.multi: local length 3 on axis 1 does not fit logical length 7 over 2 devices (expected ceil(7/2) = 4)

// -----

// multi.multi: two mesh dims on one axis split it twice.
%y = "test.op"() : () -> tensor<2x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>
// expected-error @+1 {{multi.multi: local length 2 on axis 0 does not fit logical length 9 over 4 devices (expected split by [2, 2] = 3)}}
%g = multi.multi %y axes [0, 0] : tensor<2x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>> -> tensor<9x3xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 0]>>
// CHECK: mesh-rules-invalid.mlir:[[# @LINE - 1]]:1: error: multi.multi: local length 2 on axis 0 does not fit logical length 9 over 4 devices (expected split by [2, 2] = 3)

// -----

// multi.multi: exactly one of axis and axes (generic form).
%y = "test.op"() : () -> tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>
// expected-error @+1 {{multi.multi: needs exactly one of axis or axes}}
%g = "multi.multi"(%y) <{axis = 0 : i64, axes = array<i64: 0, 1>}> : (tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>) -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// CHECK: mesh-rules-invalid.mlir:[[# @LINE - 1]]:1: error: multi.multi: needs exactly one of axis or axes

// -----

// multi.local: the result has the local (ceil) shape of every split axis.
%g = "test.op"() : () -> tensor<7x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// expected-error @+1 {{multi.local: result shape [3, 3] is not the local shape [4, 3] of [7, 6] sharded on mesh = [2, 2], axes = [0, 1] (the ceil lengths of SPEC §1.1)}}
%l = multi.local %g : tensor<7x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<3x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>
// CHECK: mesh-rules-invalid.mlir:[[# @LINE - 1]]:1: error: multi.local: result shape [3, 3] is not the local shape [4, 3] of [7, 6] sharded on mesh = [2, 2], axes = [0, 1] (the ceil lengths of SPEC §1.1)

// -----

// Elementwise ops need one encoding.
%a = "test.op"() : () -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
%b = "test.op"() : () -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, none]>>
// expected-error @+1 {{arith.addf: operand 'rhs' at position 1 does not verify}}
%c = "arith.addf"(%a, %b) : (tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>, tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, none]>>) -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// CHECK: mesh-rules-invalid.mlir:[[# @LINE - 1]]:1: error: arith.addf: operand 'rhs' at position 1 does not verify: attribute tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> expected from variable 'T', but got tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, none]>>

// -----

// tg.reduce over a split axis: its mesh dims become none.
%a = "test.op"() : () -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// expected-error @+1 {{tg.reduce: result encoding must be #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, none]> for operand tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>, found #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>}}
%r = tg.reduce add %a [1] : tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<8x1xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// CHECK: mesh-rules-invalid.mlir:[[# @LINE - 1]]:1: error: tg.reduce: result encoding must be #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, none]> for operand tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>, found #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>

// -----

// tg.reduce over every split axis: #multi.on.
%a = "test.op"() : () -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 0]>>
// expected-error @+1 {{tg.reduce: result encoding must be #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]> for operand tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 0]>>, found #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [none, 0]>}}
%r = tg.reduce add %a [0] : tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 0]>> -> tensor<1x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [none, 0]>>
// CHECK: mesh-rules-invalid.mlir:[[# @LINE - 1]]:1: error: tg.reduce: result encoding must be #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]> for operand tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 0]>>, found #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [none, 0]>

// -----

// tg.pad: no split axis is padded.
%a = "test.op"() : () -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// expected-error @+1 {{tg.pad: cannot pad the shard axis 1 (padding [1, 0])}}
%p = tg.pad %a [[0, 0], [1, 0]] value 0.0 : tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<8x7xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// CHECK: mesh-rules-invalid.mlir:[[# @LINE - 1]]:1: error: tg.pad: cannot pad the shard axis 1 (padding [1, 0])

// -----

// tg.flip: no split axis is flipped.
%a = "test.op"() : () -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// expected-error @+1 {{tg.flip: cannot flip the shard axis 1}}
%f = tg.flip %a [1] : tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// CHECK: mesh-rules-invalid.mlir:[[# @LINE - 1]]:1: error: tg.flip: cannot flip the shard axis 1

// -----

// tg.expand: no split axis is expanded.
%a = "test.op"() : () -> tensor<8x1xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// expected-error @+1 {{tg.expand: cannot expand the shard axis 1 from 1 to 4}}
%e = tg.expand %a : tensor<8x1xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// CHECK: mesh-rules-invalid.mlir:[[# @LINE - 1]]:1: error: tg.expand: cannot expand the shard axis 1 from 1 to 4

// -----

// tg.shrink on a split axis keeps it whole or selects one block.
%a = "test.op"() : () -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// expected-error @+1 {{tg.shrink: shrink [1, 3] on the shard axis 0 must keep the whole axis [0, 8] or exactly one non-empty shard of [[0, 4], [4, 8]]}}
%s = tg.shrink %a [[1, 3], [0, 6]] : tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<2x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// CHECK: mesh-rules-invalid.mlir:[[# @LINE - 1]]:1: error: tg.shrink: shrink [1, 3] on the shard axis 0 must keep the whole axis [0, 8] or exactly one non-empty shard of [[0, 4], [4, 8]]

// -----

// tg.shrink selecting one block: that axis's mesh dims become none.
%a = "test.op"() : () -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// expected-error @+1 {{tg.shrink: result encoding must be #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [none, 1]> for operand tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>, found #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>}}
%s = tg.shrink %a [[4, 8], [0, 6]] : tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// CHECK: mesh-rules-invalid.mlir:[[# @LINE - 1]]:1: error: tg.shrink: result encoding must be #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [none, 1]> for operand tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>, found #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>

// -----

// tg.reshape keeps every split axis whole.
%a = "test.op"() : () -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// expected-error @+1 {{tg.reshape: reshape [8, 6] -> [48] of a value split on axis 0 by mesh dims [0] must keep that axis whole: no axis of length 8 starts after 1 element in [48]}}
%s = tg.reshape %a : tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<48xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 0]>>
// CHECK: mesh-rules-invalid.mlir:[[# @LINE - 1]]:1: error: tg.reshape: reshape [8, 6] -> [48] of a value split on axis 0 by mesh dims [0] must keep that axis whole: no axis of length 8 starts after 1 element in [48]

// -----

// tg.permute moves every split axis with its data.
%a = "test.op"() : () -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// expected-error @+1 {{tg.permute: result encoding must be #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [1, 0]> for operand tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>, found #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>}}
%p = tg.permute %a [1, 0] : tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<6x8xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// CHECK: mesh-rules-invalid.mlir:[[# @LINE - 1]]:1: error: tg.permute: result encoding must be #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [1, 0]> for operand tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>, found #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>

// -----

// multi.copy: the logical shapes agree between mesh encodings.
%a = "test.op"() : () -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// expected-error @+1 {{multi.copy: the source's logical shape [8, 6] differs from the result's [8, 5] (scatter copy)}}
%c = multi.copy %a : tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<8x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [1, none]>>
// CHECK: mesh-rules-invalid.mlir:[[# @LINE - 1]]:1: error: multi.copy: the source's logical shape [8, 6] differs from the result's [8, 5] (scatter copy)


// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s

// The verifier rules on device meshes (SPEC §1.1, §2, §3) that mesh-rules-invalid.mlir
// does not reach: one chunk per rule, the diagnostic with file:line:col.

// CHECK-NOT: Traceback

// tg.pad: the bounds on a mesh split axis are static (SPEC §3, per split axis).
%x = "test.op"() : () -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
%lo = "test.op"() : () -> index
// expected-error @+1 {{tg.pad: bounds on the shard axis 0 must be static}}
%p = tg.pad %x [[%lo, 0], [0, 0]] value 0.0 : tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<9x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// CHECK: mesh-rules-invalid-more.mlir:[[# @LINE - 1]]:1: error: tg.pad: bounds on the shard axis 0 must be static

// -----

// tg.shrink: the bounds on a mesh split axis (here the one mesh dim 1 splits) are static.
%x = "test.op"() : () -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
%lo = "test.op"() : () -> index
// expected-error @+1 {{tg.shrink: bounds on the shard axis 1 must be static}}
%s = tg.shrink %x [[0, 8], [%lo, 6]] : tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<8x3xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// CHECK: mesh-rules-invalid-more.mlir:[[# @LINE - 1]]:1: error: tg.shrink: bounds on the shard axis 1 must be static

// -----

// multi.multi: the mesh result lists the source's devices, in order.
%y = "test.op"() : () -> tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>
// expected-error @+1 {{multi.multi: result devices ["CPU:0", "CPU:1", "CPU:3", "CPU:2"] differ from source devices ["CPU:0", "CPU:1", "CPU:2", "CPU:3"]}}
%g = multi.multi %y axes [0, 1] : tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>> -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:3", "CPU:2"], mesh = [2, 2], axes = [0, 1]>>
// CHECK: mesh-rules-invalid-more.mlir:[[# @LINE - 1]]:1: error: multi.multi: result devices ["CPU:0", "CPU:1", "CPU:3", "CPU:2"] differ from source devices ["CPU:0", "CPU:1", "CPU:2", "CPU:3"]

// -----

// multi.local: every split axis of the mesh source is below its rank.
%x = "test.op"() : () -> tensor<8xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// expected-error @+1 {{multi.local: source has mesh axes [0, 1]: tensor axis 1 is out of range for rank 1: tensor<8xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>}}
%l = multi.local %x : tensor<8xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>
// CHECK: mesh-rules-invalid-more.mlir:[[# @LINE - 1]]:1: error: multi.local: source has mesh axes [0, 1]: tensor axis 1 is out of range for rank 1: tensor<8xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>

// -----

// multi.mselect: a mesh value is not a tuple of buffers (copy it to #multi.on first).
%x = "test.op"() : () -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// expected-error @+1 {{multi.mselect: source must be placed on a tuple of devices (#multi.on), found tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>}}
%s = multi.mselect %x[1] : tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<4x3xf32, #multi.on<["CPU:1"]>>
// CHECK: mesh-rules-invalid-more.mlir:[[# @LINE - 1]]:1: error: multi.mselect: source must be placed on a tuple of devices (#multi.on), found tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>

// -----

// multi.allreduce: the same for a mesh source (reduces over split axes are tg.reduce's).
%x = "test.op"() : () -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// expected-error @+1 {{multi.allreduce: source must be placed on a tuple of devices (#multi.on), found tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>}}
%s = multi.allreduce add %x : tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<8x6xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>
// CHECK: mesh-rules-invalid-more.mlir:[[# @LINE - 1]]:1: error: multi.allreduce: source must be placed on a tuple of devices (#multi.on), found tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>

// -----

// multi.mstack: each source is on one device, never a mesh value.
%x = "test.op"() : () -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// expected-error @+1 {{multi.mstack: source 0 must be placed on a single device, found tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>}}
%s = multi.mstack %x, %x : tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>, tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<8x6xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>
// CHECK: mesh-rules-invalid-more.mlir:[[# @LINE - 1]]:1: error: multi.mstack: source 0 must be placed on a single device, found tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>

// -----

// Module rule: every split tensor axis is below the rank (a function result).
// expected-error @+1 {{func.func @f: property 'function_type': tensor<8xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> has mesh axes [0, 1]: tensor axis 1 is out of range for rank 1}}
func.func @f() -> tensor<8xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> {
// CHECK: mesh-rules-invalid-more.mlir:[[# @LINE - 1]]:1: error: func.func @f: property 'function_type': tensor<8xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> has mesh axes [0, 1]: tensor axis 1 is out of range for rank 1
  %x = "test.op"() : () -> tensor<8xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
  func.return %x : tensor<8xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
}

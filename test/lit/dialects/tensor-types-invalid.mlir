// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Every operand and result of multi, tg and devidx ops is a static-shaped tensor of a
// supported element type (SPEC §1), and a #multi.shard encoding's axis is in [0, rank).

// Not a tensor (the generic form gets past the custom parser).
%x = "test.op"() : () -> f32
// expected-error @+1 {{tg.contiguous: operand 'source' at position 0 does not verify: f32 should be of base attribute tensor}}
%y = "tg.contiguous"(%x) : (f32) -> f32
// CHECK: tensor-types-invalid.mlir:[[# @LINE - 1]]:1: error: tg.contiguous: operand 'source' at position 0 does not verify: f32 should be of base attribute tensor

// -----

// Not a tensor: a memref.
%x = "test.op"() : () -> memref<4xf32>
// expected-error @+1 {{multi.copy: operand 'source' at position 0 does not verify: memref<4xf32> should be of base attribute tensor}}
%y = "multi.copy"(%x) : (memref<4xf32>) -> tensor<4xf32, #multi.on<["CPU:0"]>>
// CHECK: tensor-types-invalid.mlir:[[# @LINE - 1]]:1: error: multi.copy: operand 'source' at position 0 does not verify: memref<4xf32> should be of base attribute tensor

// -----

// A dynamic shape.
%x = "test.op"() : () -> tensor<?x4xf32>
// expected-error @+1 {{tg.contiguous: operand must have a static shape, found tensor<?x4xf32>}}
%y = tg.contiguous %x : tensor<?x4xf32>
// CHECK: tensor-types-invalid.mlir:[[# @LINE - 1]]:1: error: tg.contiguous: operand must have a static shape, found tensor<?x4xf32>

// -----

// A dynamic shape on a placed tensor.
%x = "test.op"() : () -> tensor<?xf32, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.allreduce: source must have a static shape, found tensor<?xf32, #multi.on<["CPU:0", "CPU:1"]>>}}
%r = multi.allreduce add %x : tensor<?xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<?xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK: tensor-types-invalid.mlir:[[# @LINE - 1]]:1: error: multi.allreduce: source must have a static shape, found tensor<?xf32, #multi.on<["CPU:0", "CPU:1"]>>

// -----

// An unsupported integer width.
%x = "test.op"() : () -> tensor<4xi3>
// expected-error @+1 {{tg.contiguous: operand has element type i3; expected one of f32, f64, f16, bf16, i1, i8, i16, i32, i64}}
%y = tg.contiguous %x : tensor<4xi3>
// CHECK: tensor-types-invalid.mlir:[[# @LINE - 1]]:1: error: tg.contiguous: operand has element type i3; expected one of f32, f64, f16, bf16, i1, i8, i16, i32, i64

// -----

// index is not a tensor element type.
%x = "test.op"() : () -> tensor<4xindex>
// expected-error @+1 {{tg.flip: operand has element type index; expected one of f32, f64, f16, bf16, i1, i8, i16, i32, i64}}
%y = tg.flip %x [0] : tensor<4xindex>
// CHECK: tensor-types-invalid.mlir:[[# @LINE - 1]]:1: error: tg.flip: operand has element type index; expected one of f32, f64, f16, bf16, i1, i8, i16, i32, i64

// -----

// Signed and unsigned integers are not supported (signless only).
%x = "test.op"() : () -> tensor<4xsi32>
// expected-error @+1 {{tg.reshape: operand has element type si32; expected one of f32, f64, f16, bf16, i1, i8, i16, i32, i64}}
%y = tg.reshape %x : tensor<4xsi32> -> tensor<2x2xsi32>
// CHECK: tensor-types-invalid.mlir:[[# @LINE - 1]]:1: error: tg.reshape: operand has element type si32; expected one of f32, f64, f16, bf16, i1, i8, i16, i32, i64

// -----

// Unsigned integers neither.
%x = "test.op"() : () -> tensor<4xui8, #multi.on<["CPU:0", "CPU:1"]>>
// expected-error @+1 {{multi.mselect: source has element type ui8; expected one of f32, f64, f16, bf16, i1, i8, i16, i32, i64}}
%y = multi.mselect %x[0] : tensor<4xui8, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4xui8, #multi.on<["CPU:0"]>>
// CHECK: tensor-types-invalid.mlir:[[# @LINE - 1]]:1: error: multi.mselect: source has element type ui8; expected one of f32, f64, f16, bf16, i1, i8, i16, i32, i64

// -----

// Unsupported float types.
%x, %i = "test.op"() : () -> (tensor<4xf80>, index)
// expected-error @+1 {{devidx.fetch: value has element type f80; expected one of f32, f64, f16, bf16, i1, i8, i16, i32, i64}}
%y = devidx.fetch %x from %i : tensor<4xf80>
// CHECK: tensor-types-invalid.mlir:[[# @LINE - 1]]:1: error: devidx.fetch: value has element type f80; expected one of f32, f64, f16, bf16, i1, i8, i16, i32, i64

// -----

// Unsupported element type of a result.
%x = "test.op"() : () -> tensor<4xf32>
// expected-error @+1 {{tg.cast: result has element type complex<f32>; expected one of f32, f64, f16, bf16, i1, i8, i16, i32, i64}}
%y = tg.cast %x : tensor<4xf32> -> tensor<4xcomplex<f32>>
// CHECK: tensor-types-invalid.mlir:[[# @LINE - 1]]:1: error: tg.cast: result has element type complex<f32>; expected one of f32, f64, f16, bf16, i1, i8, i16, i32, i64

// -----

// A shard axis past the rank: tg.pad.
%x = "test.op"() : () -> tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 3>>
// expected-error @+1 {{tg.pad: operand is sharded on axis 3, out of range for rank 1: tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 3>>}}
%p = tg.pad %x [[0, 1]] value 0.0 : tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 3>> -> tensor<9xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 3>>
// CHECK: tensor-types-invalid.mlir:[[# @LINE - 1]]:1: error: tg.pad: operand is sharded on axis 3, out of range for rank 1: tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 3>>

// -----

// A shard axis past the rank: tg.shrink.
%x = "test.op"() : () -> tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// expected-error @+1 {{tg.shrink: operand is sharded on axis 1, out of range for rank 1: tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>}}
%p = tg.shrink %x [[0, 1]] : tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> -> tensor<1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// CHECK: tensor-types-invalid.mlir:[[# @LINE - 1]]:1: error: tg.shrink: operand is sharded on axis 1, out of range for rank 1: tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>

// -----

// A shard axis past the rank: tg.expand.
%x = "test.op"() : () -> tensor<1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// expected-error @+1 {{tg.expand: operand is sharded on axis 1, out of range for rank 1: tensor<1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>}}
%p = tg.expand %x : tensor<1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> -> tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// CHECK: tensor-types-invalid.mlir:[[# @LINE - 1]]:1: error: tg.expand: operand is sharded on axis 1, out of range for rank 1: tensor<1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>

// -----

// A shard axis past the rank: tg.permute.
%x = "test.op"() : () -> tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// expected-error @+1 {{tg.permute: operand is sharded on axis 1, out of range for rank 1: tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>}}
%p = tg.permute %x [0] : tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// CHECK: tensor-types-invalid.mlir:[[# @LINE - 1]]:1: error: tg.permute: operand is sharded on axis 1, out of range for rank 1: tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>

// -----

// A shard axis past the rank: the source of a copy.
%x = "test.op"() : () -> tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// expected-error @+1 {{multi.copy: source is sharded on axis 1, out of range for rank 1: tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>}}
%c = multi.copy %x : tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> -> tensor<8xf32, #multi.on<["CPU:0"]>>
// CHECK: tensor-types-invalid.mlir:[[# @LINE - 1]]:1: error: multi.copy: source is sharded on axis 1, out of range for rank 1: tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>

// -----

// A shard axis past the rank: a rank-0 tensor cannot be sharded.
%x = "test.op"() : () -> tensor<f32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// expected-error @+1 {{tg.cmp: lhs is sharded on axis 0, out of range for rank 0: tensor<f32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>}}
%c = tg.cmp lt %x, %x : tensor<f32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<i1, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK: tensor-types-invalid.mlir:[[# @LINE - 1]]:1: error: tg.cmp: lhs is sharded on axis 0, out of range for rank 0: tensor<f32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>

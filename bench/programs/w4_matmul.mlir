// BENCH W4: matmul codegen.
// numpy:  c = a @ b
//   a (1024, 1024) f32 sharded on axis 0 over 2 devices        (logical input: a)
//   b (1024, 1024) f32 replicated, one copy per device          (logical input: (2, 1024, 1024))
//   c (1024, 1024) sharded on axis 0.
// tinygrad's matmul: a -> (M, 1, K) -> expand (M, N, K); b -> permute (N, K) -> (1, N, K) ->
// expand (M, N, K); multiply; reduce add over K; reshape (M, N). The replicated b joins the
// sharded product with a "keep slice" multi.copy on the same device list (no traffic), which is
// tinygrad's `_shard(axis)` of an axis-None operand. See examples/dp_mlp.mlir.
#on = #multi.on<["CPU:0", "CPU:1"]>
#s0 = #multi.shard<["CPU:0", "CPU:1"], axis = 0>
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%a: tensor<1024x1024xf32, #s0>, %b: tensor<1024x1024xf32, #on>)
      -> tensor<1024x1024xf32, #s0> {
    %ar = tg.reshape %a : tensor<1024x1024xf32, #s0> -> tensor<1024x1x1024xf32, #s0>
    %ae = tg.expand %ar : tensor<1024x1x1024xf32, #s0> -> tensor<1024x1024x1024xf32, #s0>
    %bt = tg.permute %b [1, 0] : tensor<1024x1024xf32, #on> -> tensor<1024x1024xf32, #on>
    %br = tg.reshape %bt : tensor<1024x1024xf32, #on> -> tensor<1x1024x1024xf32, #on>
    %be = tg.expand %br : tensor<1x1024x1024xf32, #on> -> tensor<1024x1024x1024xf32, #on>
    %bs = multi.copy %be : tensor<1024x1024x1024xf32, #on> -> tensor<1024x1024x1024xf32, #s0>
    %p = arith.mulf %ae, %bs : tensor<1024x1024x1024xf32, #s0>
    %s = tg.reduce add %p [2] : tensor<1024x1024x1024xf32, #s0> -> tensor<1024x1024x1xf32, #s0>
    %c = tg.reshape %s : tensor<1024x1024x1xf32, #s0> -> tensor<1024x1024xf32, #s0>
    func.return %c : tensor<1024x1024xf32, #s0>
  }
}

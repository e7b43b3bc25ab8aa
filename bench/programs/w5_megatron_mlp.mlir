// BENCH W5: Megatron MLP, with #multi.shard weights (tinygrad's formulation).
// numpy:  y = np.maximum(x @ W1, 0) @ W2
//   x  (512, 1024) f32 replicated                   (logical input: (2, 512, 1024))
//   W1 (1024, 4096) sharded on axis 1               (logical input: W1)
//   W2 (4096, 1024) sharded on axis 0               (logical input: W2)
//   y  (512, 1024) on both devices                  (logical output: (2, 512, 1024))
// The hidden layer is sharded on its 4096 units; the second product (M, N, K) is sharded on K, so
// `tg.reduce add` over K is the allreduce. w5_megatron_mlp_local.mlir writes the same MLP on
// per-device weight buffers with an explicit `multi.allreduce`. See examples/megatron_mlp*.mlir.
#on = #multi.on<["CPU:0", "CPU:1"]>
#s0 = #multi.shard<["CPU:0", "CPU:1"], axis = 0>
#s1 = #multi.shard<["CPU:0", "CPU:1"], axis = 1>
#s2 = #multi.shard<["CPU:0", "CPU:1"], axis = 2>
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<512x1024xf32, #on>, %w1: tensor<1024x4096xf32, #s1>,
                  %w2: tensor<4096x1024xf32, #s0>) -> tensor<512x1024xf32, #on> {
    %xr = tg.reshape %x : tensor<512x1024xf32, #on> -> tensor<512x1x1024xf32, #on>
    %xe = tg.expand %xr : tensor<512x1x1024xf32, #on> -> tensor<512x4096x1024xf32, #on>
    %xs = multi.copy %xe : tensor<512x4096x1024xf32, #on> -> tensor<512x4096x1024xf32, #s1>
    %w1t = tg.permute %w1 [1, 0] : tensor<1024x4096xf32, #s1> -> tensor<4096x1024xf32, #s0>
    %w1r = tg.reshape %w1t : tensor<4096x1024xf32, #s0> -> tensor<1x4096x1024xf32, #s1>
    %w1e = tg.expand %w1r : tensor<1x4096x1024xf32, #s1> -> tensor<512x4096x1024xf32, #s1>
    %p1 = arith.mulf %xs, %w1e : tensor<512x4096x1024xf32, #s1>
    %s1 = tg.reduce add %p1 [2] : tensor<512x4096x1024xf32, #s1> -> tensor<512x4096x1xf32, #s1>
    %mm1 = tg.reshape %s1 : tensor<512x4096x1xf32, #s1> -> tensor<512x4096xf32, #s1>
    %zero = arith.constant dense<0.0> : tensor<512x4096xf32, #s1>
    %h = arith.maximumf %mm1, %zero : tensor<512x4096xf32, #s1>
    %hr = tg.reshape %h : tensor<512x4096xf32, #s1> -> tensor<512x1x4096xf32, #s2>
    %he = tg.expand %hr : tensor<512x1x4096xf32, #s2> -> tensor<512x1024x4096xf32, #s2>
    %w2t = tg.permute %w2 [1, 0] : tensor<4096x1024xf32, #s0> -> tensor<1024x4096xf32, #s1>
    %w2r = tg.reshape %w2t : tensor<1024x4096xf32, #s1> -> tensor<1x1024x4096xf32, #s2>
    %w2e = tg.expand %w2r : tensor<1x1024x4096xf32, #s2> -> tensor<512x1024x4096xf32, #s2>
    %p2 = arith.mulf %he, %w2e : tensor<512x1024x4096xf32, #s2>
    %s2 = tg.reduce add %p2 [2] : tensor<512x1024x4096xf32, #s2> -> tensor<512x1024x1xf32, #on>
    %y = tg.reshape %s2 : tensor<512x1024x1xf32, #on> -> tensor<512x1024xf32, #on>
    func.return %y : tensor<512x1024xf32, #on>
  }
}

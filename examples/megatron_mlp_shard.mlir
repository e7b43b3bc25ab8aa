// Megatron (tensor-parallel) MLP on 2 devices, written the tinygrad way with #multi.shard weights.
//
// numpy:  y = np.maximum(x @ W1, 0) @ W2          x (4, 8), W1 (8, 16), W2 (16, 8), y (4, 8)
//   x   replicated: the same (4, 8) buffer on both devices      (logical input: (2, 4, 8))
//   W1  sharded on axis 1 (columns 0-7 on CPU:0, 8-15 on CPU:1)  (logical input: W1, (8, 16))
//   W2  sharded on axis 0 (rows 0-7 on CPU:0, 8-15 on CPU:1)     (logical input: W2, (16, 8))
//   y   on both devices, the full result on each                 (logical output: (2, 4, 8))
//
// tinygrad: `x.shard(None) @ W1.shard(1)` then `@ W2.shard(0)`. The first matmul's product
// (M, N, K) = (4, 16, 8) is sharded on N, axis 1; x joins it through a "keep slice" `multi.copy`
// (each device slices its own copy of x: no traffic). The hidden layer h (4, 16) is then sharded
// on axis 1, which the reshape to (4, 1, 16) moves to axis 2 (SPEC §3's reshape rule). W2's
// permute + reshape puts its shard axis on axis 2 too, so the second product (4, 8, 16) is
// sharded on K, and `tg.reduce add` over K, the shard axis, is the allreduce: its result is
// #multi.on on both devices. Compare examples/megatron_mlp.mlir, which writes that allreduce.
#on = #multi.on<["CPU:0", "CPU:1"]>
#s0 = #multi.shard<["CPU:0", "CPU:1"], axis = 0>
#s1 = #multi.shard<["CPU:0", "CPU:1"], axis = 1>
#s2 = #multi.shard<["CPU:0", "CPU:1"], axis = 2>
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<4x8xf32, #on>, %w1: tensor<8x16xf32, #s1>,
                  %w2: tensor<16x8xf32, #s0>) -> tensor<4x8xf32, #on> {
    // ---- h = relu(x @ W1): product (4, 16, 8) sharded on axis 1 (the hidden units)
    %xr = tg.reshape %x : tensor<4x8xf32, #on> -> tensor<4x1x8xf32, #on>
    %xe = tg.expand %xr : tensor<4x1x8xf32, #on> -> tensor<4x16x8xf32, #on>
    %xs = multi.copy %xe : tensor<4x16x8xf32, #on> -> tensor<4x16x8xf32, #s1>
    %w1t = tg.permute %w1 [1, 0] : tensor<8x16xf32, #s1> -> tensor<16x8xf32, #s0>
    %w1r = tg.reshape %w1t : tensor<16x8xf32, #s0> -> tensor<1x16x8xf32, #s1>
    %w1e = tg.expand %w1r : tensor<1x16x8xf32, #s1> -> tensor<4x16x8xf32, #s1>
    %p1 = arith.mulf %xs, %w1e : tensor<4x16x8xf32, #s1>
    %s1 = tg.reduce add %p1 [2] : tensor<4x16x8xf32, #s1> -> tensor<4x16x1xf32, #s1>
    %mm1 = tg.reshape %s1 : tensor<4x16x1xf32, #s1> -> tensor<4x16xf32, #s1>
    %zero = arith.constant dense<0.0> : tensor<4x16xf32, #s1>
    %h = arith.maximumf %mm1, %zero : tensor<4x16xf32, #s1>
    // ---- y = h @ W2: product (4, 8, 16) sharded on axis 2 (K); reducing it is the allreduce
    %hr = tg.reshape %h : tensor<4x16xf32, #s1> -> tensor<4x1x16xf32, #s2>
    %he = tg.expand %hr : tensor<4x1x16xf32, #s2> -> tensor<4x8x16xf32, #s2>
    %w2t = tg.permute %w2 [1, 0] : tensor<16x8xf32, #s0> -> tensor<8x16xf32, #s1>
    %w2r = tg.reshape %w2t : tensor<8x16xf32, #s1> -> tensor<1x8x16xf32, #s2>
    %w2e = tg.expand %w2r : tensor<1x8x16xf32, #s2> -> tensor<4x8x16xf32, #s2>
    %p2 = arith.mulf %he, %w2e : tensor<4x8x16xf32, #s2>
    %s2 = tg.reduce add %p2 [2] : tensor<4x8x16xf32, #s2> -> tensor<4x8x1xf32, #on>
    %y = tg.reshape %s2 : tensor<4x8x1xf32, #on> -> tensor<4x8xf32, #on>
    func.return %y : tensor<4x8xf32, #on>
  }
}

// Megatron (tensor-parallel) MLP on 2 devices, with the collective written out.
//
// numpy:  y = np.maximum(x @ W1, 0) @ W2          x (4, 8), W1 (8, 16), W2 (16, 8), y (4, 8)
//   x   replicated: the same (4, 8) buffer on both devices          (logical input: (2, 4, 8))
//   W1  column-parallel: device k holds W1[:, 8k:8k+8], (8, 8)      (logical input: (2, 8, 8))
//   W2  row-parallel:    device k holds W2[8k:8k+8, :], (8, 8)      (logical input: (2, 8, 8))
//   y   replicated: every device holds the full (4, 8) result       (logical output: (2, 4, 8))
//
// Formulation: the weights are given as their per-device buffers (#multi.on), so the two matmuls
// are plain per-device work: h_k = relu(x @ W1_k) is device k's 8 columns of the hidden layer,
// partial_k = h_k @ W2_k its contribution to y, and y = sum_k partial_k is `multi.allreduce add`.
// (examples/megatron_mlp_shard.mlir writes the same MLP with #multi.shard weights, where the
// allreduce is implied by a reduce over the shard axis, as in tinygrad.)
#on = #multi.on<["CPU:0", "CPU:1"]>
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<4x8xf32, #on>, %w1: tensor<8x8xf32, #on>,
                  %w2: tensor<8x8xf32, #on>) -> tensor<4x8xf32, #on> {
    // ---- h = relu(x @ W1_k): (4, 8) @ (8, 8) -> (4, 8) on each device
    %xr = tg.reshape %x : tensor<4x8xf32, #on> -> tensor<4x1x8xf32, #on>
    %xe = tg.expand %xr : tensor<4x1x8xf32, #on> -> tensor<4x8x8xf32, #on>
    %w1t = tg.permute %w1 [1, 0] : tensor<8x8xf32, #on> -> tensor<8x8xf32, #on>
    %w1r = tg.reshape %w1t : tensor<8x8xf32, #on> -> tensor<1x8x8xf32, #on>
    %w1e = tg.expand %w1r : tensor<1x8x8xf32, #on> -> tensor<4x8x8xf32, #on>
    %p1 = arith.mulf %xe, %w1e : tensor<4x8x8xf32, #on>
    %s1 = tg.reduce add %p1 [2] : tensor<4x8x8xf32, #on> -> tensor<4x8x1xf32, #on>
    %mm1 = tg.reshape %s1 : tensor<4x8x1xf32, #on> -> tensor<4x8xf32, #on>
    %zero = arith.constant dense<0.0> : tensor<4x8xf32, #on>
    %h = arith.maximumf %mm1, %zero : tensor<4x8xf32, #on>
    // ---- partial_k = h_k @ W2_k: (4, 8) @ (8, 8) -> (4, 8) on each device
    %hr = tg.reshape %h : tensor<4x8xf32, #on> -> tensor<4x1x8xf32, #on>
    %he = tg.expand %hr : tensor<4x1x8xf32, #on> -> tensor<4x8x8xf32, #on>
    %w2t = tg.permute %w2 [1, 0] : tensor<8x8xf32, #on> -> tensor<8x8xf32, #on>
    %w2r = tg.reshape %w2t : tensor<8x8xf32, #on> -> tensor<1x8x8xf32, #on>
    %w2e = tg.expand %w2r : tensor<1x8x8xf32, #on> -> tensor<4x8x8xf32, #on>
    %p2 = arith.mulf %he, %w2e : tensor<4x8x8xf32, #on>
    %s2 = tg.reduce add %p2 [2] : tensor<4x8x8xf32, #on> -> tensor<4x8x1xf32, #on>
    %partial = tg.reshape %s2 : tensor<4x8x1xf32, #on> -> tensor<4x8xf32, #on>
    // ---- y = partial_0 + partial_1 on every device
    %y = multi.allreduce add %partial : tensor<4x8xf32, #on> -> tensor<4x8xf32, #on>
    func.return %y : tensor<4x8xf32, #on>
  }
}

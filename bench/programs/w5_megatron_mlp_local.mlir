// BENCH W5 (per-device buffers, explicit allreduce): Megatron MLP.
// numpy:  y = np.maximum(x @ W1, 0) @ W2           x (512, 1024), W1 (1024, 4096), W2 (4096, 1024)
//   x   replicated                                            (logical input: (2, 512, 1024))
//   W1  device k holds W1[:, 2048k:2048k+2048], (1024, 2048)  (logical input: (2, 1024, 2048))
//   W2  device k holds W2[2048k:2048k+2048, :], (2048, 1024)  (logical input: (2, 2048, 1024))
//   y   on both devices                                       (logical output: (2, 512, 1024))
// Each device computes relu(x @ W1_k) @ W2_k; `multi.allreduce add` sums the two partials.
#on = #multi.on<["CPU:0", "CPU:1"]>
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<512x1024xf32, #on>, %w1: tensor<1024x2048xf32, #on>,
                  %w2: tensor<2048x1024xf32, #on>) -> tensor<512x1024xf32, #on> {
    %xr = tg.reshape %x : tensor<512x1024xf32, #on> -> tensor<512x1x1024xf32, #on>
    %xe = tg.expand %xr : tensor<512x1x1024xf32, #on> -> tensor<512x2048x1024xf32, #on>
    %w1t = tg.permute %w1 [1, 0] : tensor<1024x2048xf32, #on> -> tensor<2048x1024xf32, #on>
    %w1r = tg.reshape %w1t : tensor<2048x1024xf32, #on> -> tensor<1x2048x1024xf32, #on>
    %w1e = tg.expand %w1r : tensor<1x2048x1024xf32, #on> -> tensor<512x2048x1024xf32, #on>
    %p1 = arith.mulf %xe, %w1e : tensor<512x2048x1024xf32, #on>
    %s1 = tg.reduce add %p1 [2] : tensor<512x2048x1024xf32, #on> -> tensor<512x2048x1xf32, #on>
    %mm1 = tg.reshape %s1 : tensor<512x2048x1xf32, #on> -> tensor<512x2048xf32, #on>
    %zero = arith.constant dense<0.0> : tensor<512x2048xf32, #on>
    %h = arith.maximumf %mm1, %zero : tensor<512x2048xf32, #on>
    %hr = tg.reshape %h : tensor<512x2048xf32, #on> -> tensor<512x1x2048xf32, #on>
    %he = tg.expand %hr : tensor<512x1x2048xf32, #on> -> tensor<512x1024x2048xf32, #on>
    %w2t = tg.permute %w2 [1, 0] : tensor<2048x1024xf32, #on> -> tensor<1024x2048xf32, #on>
    %w2r = tg.reshape %w2t : tensor<1024x2048xf32, #on> -> tensor<1x1024x2048xf32, #on>
    %w2e = tg.expand %w2r : tensor<1x1024x2048xf32, #on> -> tensor<512x1024x2048xf32, #on>
    %p2 = arith.mulf %he, %w2e : tensor<512x1024x2048xf32, #on>
    %s2 = tg.reduce add %p2 [2] : tensor<512x1024x2048xf32, #on> -> tensor<512x1024x1xf32, #on>
    %partial = tg.reshape %s2 : tensor<512x1024x1xf32, #on> -> tensor<512x1024xf32, #on>
    %y = multi.allreduce add %partial : tensor<512x1024xf32, #on> -> tensor<512x1024xf32, #on>
    func.return %y : tensor<512x1024xf32, #on>
  }
}

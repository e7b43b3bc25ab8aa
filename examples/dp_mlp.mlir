// Data-parallel MLP on 2 devices.
//
// numpy:  y = np.maximum(x @ W1, 0) @ W2
//   x  (8, 16)  sharded on axis 0: CPU:0 holds rows 0-3, CPU:1 rows 4-7   (logical input: x)
//   W1 (16, 32) replicated: one identical buffer per device               (logical input: (2, 16, 32))
//   W2 (32, 4)  replicated: one identical buffer per device               (logical input: (2, 32, 4))
//   y  (8, 4)   sharded on axis 0                                         (logical output: y)
//
// Formulation. tinygrad runs `x.shard(axis=0) @ W.shard(None)`: its ALU rule brings the axis-None
// operand into the shard layout with `_shard(axis)`, a device-local shrink, and then computes on
// the shards. Elementwise ops here need one type (encoding included) for all operands, so we do
// the same explicitly: the weight is broadcast-reshaped to the full logical (M, N, K) product
// shape on every device (#multi.on), then `multi.copy` to `#multi.shard<..., axis = 0>` on the SAME
// device list: that copy kind is "keep slice" (SPEC §2), each device slices its own buffer and
// nothing moves between devices. After that the matmul is tinygrad's: reshape/expand x to
// (M, N, K), multiply, `tg.reduce add` over K, reshape to (M, N). The reduce is over axis 2, not
// the shard axis, so results stay sharded and no collective is needed anywhere.
// (Equivalent alternative: expand W to the local (M/2, N, K) and `multi.multi ... axis 0`.)
#on = #multi.on<["CPU:0", "CPU:1"]>
#s0 = #multi.shard<["CPU:0", "CPU:1"], axis = 0>
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<8x16xf32, #s0>, %w1: tensor<16x32xf32, #on>,
                  %w2: tensor<32x4xf32, #on>) -> tensor<8x4xf32, #s0> {
    // ---- h = relu(x @ W1): (8, 16) @ (16, 32) -> (8, 32)
    %xr = tg.reshape %x : tensor<8x16xf32, #s0> -> tensor<8x1x16xf32, #s0>
    %xe = tg.expand %xr : tensor<8x1x16xf32, #s0> -> tensor<8x32x16xf32, #s0>
    %w1t = tg.permute %w1 [1, 0] : tensor<16x32xf32, #on> -> tensor<32x16xf32, #on>
    %w1r = tg.reshape %w1t : tensor<32x16xf32, #on> -> tensor<1x32x16xf32, #on>
    %w1e = tg.expand %w1r : tensor<1x32x16xf32, #on> -> tensor<8x32x16xf32, #on>
    %w1s = multi.copy %w1e : tensor<8x32x16xf32, #on> -> tensor<8x32x16xf32, #s0>
    %p1 = arith.mulf %xe, %w1s : tensor<8x32x16xf32, #s0>
    %s1 = tg.reduce add %p1 [2] : tensor<8x32x16xf32, #s0> -> tensor<8x32x1xf32, #s0>
    %mm1 = tg.reshape %s1 : tensor<8x32x1xf32, #s0> -> tensor<8x32xf32, #s0>
    %zero = arith.constant dense<0.0> : tensor<8x32xf32, #s0>
    %h = arith.maximumf %mm1, %zero : tensor<8x32xf32, #s0>
    // ---- y = h @ W2: (8, 32) @ (32, 4) -> (8, 4)
    %hr = tg.reshape %h : tensor<8x32xf32, #s0> -> tensor<8x1x32xf32, #s0>
    %he = tg.expand %hr : tensor<8x1x32xf32, #s0> -> tensor<8x4x32xf32, #s0>
    %w2t = tg.permute %w2 [1, 0] : tensor<32x4xf32, #on> -> tensor<4x32xf32, #on>
    %w2r = tg.reshape %w2t : tensor<4x32xf32, #on> -> tensor<1x4x32xf32, #on>
    %w2e = tg.expand %w2r : tensor<1x4x32xf32, #on> -> tensor<8x4x32xf32, #on>
    %w2s = multi.copy %w2e : tensor<8x4x32xf32, #on> -> tensor<8x4x32xf32, #s0>
    %p2 = arith.mulf %he, %w2s : tensor<8x4x32xf32, #s0>
    %s2 = tg.reduce add %p2 [2] : tensor<8x4x32xf32, #s0> -> tensor<8x4x1xf32, #s0>
    %y = tg.reshape %s2 : tensor<8x4x1xf32, #s0> -> tensor<8x4xf32, #s0>
    func.return %y : tensor<8x4xf32, #s0>
  }
}

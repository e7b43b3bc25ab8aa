// Uneven shards: 7 rows over 3 devices, local length ceil(7/3) = 3, so the devices own
// rows [0, 3), [3, 6) and [6, 7) (3, 3 and 1 rows; the last two rows of CPU:2's buffer are padding).
//
// numpy:  rows = (x * x).sum(axis=1, keepdims=True)    (7, 1), sharded on axis 0 like x
//         cols = x.sum(axis=0, keepdims=True)          (1, 5), on all three devices
//   x (7, 5) sharded on axis 0                          (logical input: x)
//   outputs: rows (7, 1) (logical: the full array); cols (logical: (3, 1, 5), every slice equal)
//
// The row sums reduce a non-shard axis: purely local, the result keeps the uneven split.
// The column sums reduce the shard axis itself, which tinygrad turns into a local reduce plus an
// allreduce: the result is #multi.on on every device, and CPU:2's two padding rows must not count.
#on3 = #multi.on<["CPU:0", "CPU:1", "CPU:2"]>
#s0 = #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>
module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2"]} {
  func.func @main(%x: tensor<7x5xf32, #s0>) -> (tensor<7x1xf32, #s0>, tensor<1x5xf32, #on3>) {
    %sq = arith.mulf %x, %x : tensor<7x5xf32, #s0>
    %rows = tg.reduce add %sq [1] : tensor<7x5xf32, #s0> -> tensor<7x1xf32, #s0>
    %cols = tg.reduce add %x [0] : tensor<7x5xf32, #s0> -> tensor<1x5xf32, #on3>
    func.return %rows, %cols : tensor<7x1xf32, #s0>, tensor<1x5xf32, #on3>
  }
}

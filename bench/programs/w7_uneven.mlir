// BENCH W7: uneven shards, no manual padding.
// numpy:  s = (x * x).sum(axis=1, keepdims=True)
//   x (1000, 999) f32 sharded on axis 0 over 3 devices: local length ceil(1000/3) = 334, so the
//   devices own 334, 334 and 332 rows. s (1000, 1) sharded on axis 0 the same way.
#s0 = #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>
module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2"]} {
  func.func @main(%x: tensor<1000x999xf32, #s0>) -> tensor<1000x1xf32, #s0> {
    %sq = arith.mulf %x, %x : tensor<1000x999xf32, #s0>
    %s = tg.reduce add %sq [1] : tensor<1000x999xf32, #s0> -> tensor<1000x1xf32, #s0>
    func.return %s : tensor<1000x1xf32, #s0>
  }
}

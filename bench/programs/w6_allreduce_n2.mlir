// BENCH W6 at N = 2: collectives (run with multi-to-devidx{allreduce=naive|ring|all2all}).
// numpy:  s = x.sum(axis=0, keepdims=True)
//   x (2, 4194304) f32 sharded on axis 0 over 2 devices: one row of 2^22 per device.
//   s (1, 4194304) on every device (logical output (2, 1, 4194304), all slices equal):
//   reducing the shard axis is an allreduce of the rows.
#on = #multi.on<["CPU:0", "CPU:1"]>
#s0 = #multi.shard<["CPU:0", "CPU:1"], axis = 0>
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<2x4194304xf32, #s0>) -> tensor<1x4194304xf32, #on> {
    %s = tg.reduce add %x [0] : tensor<2x4194304xf32, #s0> -> tensor<1x4194304xf32, #on>
    func.return %s : tensor<1x4194304xf32, #on>
  }
}

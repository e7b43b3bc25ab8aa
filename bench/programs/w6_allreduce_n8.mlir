// BENCH W6 at N = 8: collectives (run with multi-to-devidx{allreduce=naive|ring|all2all}).
// numpy:  s = x.sum(axis=0, keepdims=True)
//   x (8, 4194304) f32 sharded on axis 0 over 8 devices: one row of 2^22 per device.
//   s (1, 4194304) on every device (logical output (8, 1, 4194304), all slices equal):
//   reducing the shard axis is an allreduce of the rows.
#on = #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3", "CPU:4", "CPU:5", "CPU:6", "CPU:7"]>
#s0 = #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3", "CPU:4", "CPU:5", "CPU:6", "CPU:7"], axis = 0>
module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2", "CPU:3", "CPU:4", "CPU:5", "CPU:6", "CPU:7"]} {
  func.func @main(%x: tensor<8x4194304xf32, #s0>) -> tensor<1x4194304xf32, #on> {
    %s = tg.reduce add %x [0] : tensor<8x4194304xf32, #s0> -> tensor<1x4194304xf32, #on>
    func.return %s : tensor<1x4194304xf32, #on>
  }
}

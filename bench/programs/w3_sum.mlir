// BENCH W3: local reduce + allreduce.
// numpy:  s = x.sum(keepdims=True)     (shape (1,))
//   x (2^24,) = (16777216,) f32 sharded on axis 0 over 2 devices.
//   s on both devices (logical output (2, 1), both slices equal): reducing the shard axis is a
//   local sum on each device followed by an allreduce (tinygrad's rule), so the result is #multi.on.
#on = #multi.on<["CPU:0", "CPU:1"]>
#s0 = #multi.shard<["CPU:0", "CPU:1"], axis = 0>
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<16777216xf32, #s0>) -> tensor<1xf32, #on> {
    %s = tg.reduce add %x [0] : tensor<16777216xf32, #s0> -> tensor<1xf32, #on>
    func.return %s : tensor<1xf32, #on>
  }
}

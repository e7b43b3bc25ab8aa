// BENCH W1: fused elementwise, memory bandwidth.
// numpy:  y = np.maximum(x * 2 + 1, 0) - x / 3
//   x (4096, 4096) f32 sharded on axis 0 over 2 devices; y (4096, 4096) sharded on axis 0.
#s0 = #multi.shard<["CPU:0", "CPU:1"], axis = 0>
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<4096x4096xf32, #s0>) -> tensor<4096x4096xf32, #s0> {
    %two = arith.constant dense<2.0> : tensor<4096x4096xf32, #s0>
    %one = arith.constant dense<1.0> : tensor<4096x4096xf32, #s0>
    %zero = arith.constant dense<0.0> : tensor<4096x4096xf32, #s0>
    %three = arith.constant dense<3.0> : tensor<4096x4096xf32, #s0>
    %a = arith.mulf %x, %two : tensor<4096x4096xf32, #s0>
    %b = arith.addf %a, %one : tensor<4096x4096xf32, #s0>
    %c = arith.maximumf %b, %zero : tensor<4096x4096xf32, #s0>
    %d = arith.divf %x, %three : tensor<4096x4096xf32, #s0>
    %y = arith.subf %c, %d : tensor<4096x4096xf32, #s0>
    func.return %y : tensor<4096x4096xf32, #s0>
  }
}

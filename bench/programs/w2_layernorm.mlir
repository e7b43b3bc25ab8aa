// BENCH W2: several reductions in one kernel.
// numpy:  mu  = x.mean(axis=1, keepdims=True)
//         var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
//         y   = (x - mu) / np.sqrt(var + 1e-5)
//   x (8192, 1024) f32 sharded on axis 0 over 2 devices; y sharded on axis 0.
//   mean = sum * (1/1024); the division by sqrt is a multiply by `math.rsqrt`.
#s0 = #multi.shard<["CPU:0", "CPU:1"], axis = 0>
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<8192x1024xf32, #s0>) -> tensor<8192x1024xf32, #s0> {
    %inv_n = arith.constant dense<9.765625e-04> : tensor<8192x1xf32, #s0>
    %eps = arith.constant dense<1.0e-05> : tensor<8192x1xf32, #s0>
    %sum = tg.reduce add %x [1] : tensor<8192x1024xf32, #s0> -> tensor<8192x1xf32, #s0>
    %mu = arith.mulf %sum, %inv_n : tensor<8192x1xf32, #s0>
    %mue = tg.expand %mu : tensor<8192x1xf32, #s0> -> tensor<8192x1024xf32, #s0>
    %d = arith.subf %x, %mue : tensor<8192x1024xf32, #s0>
    %d2 = arith.mulf %d, %d : tensor<8192x1024xf32, #s0>
    %ssq = tg.reduce add %d2 [1] : tensor<8192x1024xf32, #s0> -> tensor<8192x1xf32, #s0>
    %var = arith.mulf %ssq, %inv_n : tensor<8192x1xf32, #s0>
    %ve = arith.addf %var, %eps : tensor<8192x1xf32, #s0>
    %rstd = math.rsqrt %ve : tensor<8192x1xf32, #s0>
    %rstde = tg.expand %rstd : tensor<8192x1xf32, #s0> -> tensor<8192x1024xf32, #s0>
    %y = arith.mulf %d, %rstde : tensor<8192x1024xf32, #s0>
    func.return %y : tensor<8192x1024xf32, #s0>
  }
}

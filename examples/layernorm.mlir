// Layer normalization over the last axis of a row-sharded matrix, on 2 devices.
//
// numpy:  mu  = x.mean(axis=1, keepdims=True)
//         var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
//         y   = (x - mu) / np.sqrt(var + 1e-5)
//   x (8, 16) sharded on axis 0 (rows 0-3 on CPU:0, 4-7 on CPU:1); y (8, 16) sharded on axis 0.
//
// Everything works on the sharded values directly: `tg.reduce` over axis 1 is not the shard axis,
// so mu and var stay sharded on axis 0 as (8, 1), and `tg.expand` back to (8, 16) keeps the
// shard axis (it only expands axis 1). Each row is normalized on the device that owns it and no
// data moves. mean = sum * (1/16); 1/sqrt is `math.rsqrt`.
#s0 = #multi.shard<["CPU:0", "CPU:1"], axis = 0>
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<8x16xf32, #s0>) -> tensor<8x16xf32, #s0> {
    %inv_n = arith.constant dense<0.0625> : tensor<8x1xf32, #s0>
    %eps = arith.constant dense<1.0e-05> : tensor<8x1xf32, #s0>
    // mu = mean(x, axis=1)
    %sum = tg.reduce add %x [1] : tensor<8x16xf32, #s0> -> tensor<8x1xf32, #s0>
    %mu = arith.mulf %sum, %inv_n : tensor<8x1xf32, #s0>
    %mue = tg.expand %mu : tensor<8x1xf32, #s0> -> tensor<8x16xf32, #s0>
    %d = arith.subf %x, %mue : tensor<8x16xf32, #s0>
    // var = mean((x - mu)^2, axis=1)
    %d2 = arith.mulf %d, %d : tensor<8x16xf32, #s0>
    %ssq = tg.reduce add %d2 [1] : tensor<8x16xf32, #s0> -> tensor<8x1xf32, #s0>
    %var = arith.mulf %ssq, %inv_n : tensor<8x1xf32, #s0>
    // y = (x - mu) * rsqrt(var + eps)
    %ve = arith.addf %var, %eps : tensor<8x1xf32, #s0>
    %rstd = math.rsqrt %ve : tensor<8x1xf32, #s0>
    %rstde = tg.expand %rstd : tensor<8x1xf32, #s0> -> tensor<8x16xf32, #s0>
    %y = arith.mulf %d, %rstde : tensor<8x16xf32, #s0>
    func.return %y : tensor<8x16xf32, #s0>
  }
}

// Every kind of `multi.copy` transfer between placements (SPEC §2), on 2 devices.
//
// numpy:  e = x * 2 + 1
//   x (8, 4) on CPU:0 only                                              (logical input: x)
//   1. scatter   x on CPU:0 -> shard axis 0 over CPU:0, CPU:1 (rows 0-3 stay, 4-7 go to CPU:1)
//      then e = x * 2 + 1 computed on the shards
//   2. gather    e (shard)  -> CPU:1: the full e on one device          result0 = e          (8, 4)
//   3. broadcast e on CPU:1 -> both devices                             result1 = [e, e]  (2, 8, 4)
//   4. all-gather e (shard) -> both devices                             result2 = [e, e]  (2, 8, 4)
//   5. reshard   e (shard axis 0) -> shard axis 1                       result3 = e          (8, 4)
//   6. stack + swap: t = mstack(x on CPU:0, e on CPU:1) is [x, e] on (CPU:0, CPU:1); copying it
//      to on (CPU:1, CPU:0) moves buffer i to the i-th device of the new list: x goes to CPU:1,
//      e to CPU:0. Logical values follow the encoding's order, so
//                                                                       result4 = [x, e]  (2, 8, 4)
#c0 = #multi.on<["CPU:0"]>
#c1 = #multi.on<["CPU:1"]>
#on = #multi.on<["CPU:0", "CPU:1"]>
#on_rev = #multi.on<["CPU:1", "CPU:0"]>
#s0 = #multi.shard<["CPU:0", "CPU:1"], axis = 0>
#s1 = #multi.shard<["CPU:0", "CPU:1"], axis = 1>
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<8x4xf32, #c0>)
      -> (tensor<8x4xf32, #c1>, tensor<8x4xf32, #on>, tensor<8x4xf32, #on>,
          tensor<8x4xf32, #s1>, tensor<8x4xf32, #on_rev>) {
    %xs = multi.copy %x : tensor<8x4xf32, #c0> -> tensor<8x4xf32, #s0>
    %two = arith.constant dense<2.0> : tensor<8x4xf32, #s0>
    %one = arith.constant dense<1.0> : tensor<8x4xf32, #s0>
    %x2 = arith.mulf %xs, %two : tensor<8x4xf32, #s0>
    %e = arith.addf %x2, %one : tensor<8x4xf32, #s0>
    %g = multi.copy %e : tensor<8x4xf32, #s0> -> tensor<8x4xf32, #c1>
    %b = multi.copy %g : tensor<8x4xf32, #c1> -> tensor<8x4xf32, #on>
    %ag = multi.copy %e : tensor<8x4xf32, #s0> -> tensor<8x4xf32, #on>
    %rs = multi.copy %e : tensor<8x4xf32, #s0> -> tensor<8x4xf32, #s1>
    %t = multi.mstack %x, %g : tensor<8x4xf32, #c0>, tensor<8x4xf32, #c1> -> tensor<8x4xf32, #on>
    %sw = multi.copy %t : tensor<8x4xf32, #on> -> tensor<8x4xf32, #on_rev>
    func.return %g, %b, %ag, %rs, %sw
        : tensor<8x4xf32, #c1>, tensor<8x4xf32, #on>, tensor<8x4xf32, #on>,
          tensor<8x4xf32, #s1>, tensor<8x4xf32, #on_rev>
  }
}

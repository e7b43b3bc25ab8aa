// A splat constant of 4*10^11 elements: xDSL expands splats while parsing.
func.func @f() {
  %one = arith.constant dense<1.0> : tensor<100000000000x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  func.return
}

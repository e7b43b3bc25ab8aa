// A shard axis past the rank where no op of ours sees it: a signature and an arith op.
func.func @f(%x: tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>) -> tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> {
  %y = arith.addf %x, %x : tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
  func.return %y : tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
}

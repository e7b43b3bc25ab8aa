// A shard axis past the tensor's rank (this used to crash the tg.pad verifier).
func.func @f(%x: tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 3>>) {
  %p = tg.pad %x [[0, 1]] value 0.0 : tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 3>> -> tensor<9xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 3>>
  func.return
}

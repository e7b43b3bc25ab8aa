// Found by the compiled random-program soak (random_program(127), threads, both modes) and
// minimized by hand: a shrink that selects one shard (rows 2..4: CPU:0's) of an Invalid pad is a
// movement op, so the pad's column 0 and columns 3-4 stay Invalid and exp of them is Invalid
// (stored 0, SPEC §4 rules 1, 3). multi-to-devidx lowered it to a fetch from the owner, which
// stores Invalid as 0, so every device computed exp(0) = 1 there. Now the shard's validity is
// fetched with it (ShrinkOfOneShardFetchesFromOwner). The shard list is in another order than
// the module's devices, and the max over axis 0 reads the shrunk shard too (identity vs 0).
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%a0: tensor<4x2xf32, #multi.shard<["CPU:1", "CPU:0"], axis = 0>>) -> (tensor<2x5xf32, #multi.on<["CPU:1", "CPU:0"]>>, tensor<1x5xf32, #multi.on<["CPU:1", "CPU:0"]>>) {
    %v12 = tg.pad %a0 [[0, 0], [1, 2]] invalid : tensor<4x2xf32, #multi.shard<["CPU:1", "CPU:0"], axis = 0>> -> tensor<4x5xf32, #multi.shard<["CPU:1", "CPU:0"], axis = 0>>
    %v13 = tg.shrink %v12 [[2, 4], [0, 5]] : tensor<4x5xf32, #multi.shard<["CPU:1", "CPU:0"], axis = 0>> -> tensor<2x5xf32, #multi.on<["CPU:1", "CPU:0"]>>
    %v14 = math.exp %v13 : tensor<2x5xf32, #multi.on<["CPU:1", "CPU:0"]>>
    %v15 = tg.reduce max %v13 [0] : tensor<2x5xf32, #multi.on<["CPU:1", "CPU:0"]>> -> tensor<1x5xf32, #multi.on<["CPU:1", "CPU:0"]>>
    func.return %v14, %v15 : tensor<2x5xf32, #multi.on<["CPU:1", "CPU:0"]>>, tensor<1x5xf32, #multi.on<["CPU:1", "CPU:0"]>>
  }
}

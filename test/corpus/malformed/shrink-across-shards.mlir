// [2, 6) of 8 rows over 2 devices is neither the whole axis nor one shard.
func.func @f(%x: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) {
  %y = tg.shrink %x [[2, 6], [0, 4]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
  func.return
}

// Flattening 7 rows over 3 devices would move elements between devices.
func.func @f(%x: tensor<7x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>) {
  %y = tg.reshape %x : tensor<7x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<28xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  func.return
}

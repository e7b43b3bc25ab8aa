// The function returns a sharded value but declares a #multi.on result.
func.func @f(%x: tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> {
  %m = multi.multi %x axis 0 : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  func.return %m : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
}

// 7 rows over 3 devices need local buffers of ceil(7/3) = 3 rows.
func.func @f(%x: tensor<2x4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>) {
  %m = multi.multi %x axis 0 : tensor<2x4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<7x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  func.return
}

// multi has no scatter op (scatter is a multi.copy to a #multi.shard type).
func.func @f(%x: tensor<8xf32, #multi.on<["CPU:0"]>>) {
  %s = multi.scatter %x : tensor<8xf32, #multi.on<["CPU:0"]>> -> tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  func.return
}

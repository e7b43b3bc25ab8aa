// %x is a #multi.on value but is used with a #multi.shard type.
func.func @f(%x: tensor<8xf32, #multi.on<["CPU:0", "CPU:1"]>>) {
  %c = multi.copy %x : tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8xf32, #multi.on<["CPU:0"]>>
  func.return
}

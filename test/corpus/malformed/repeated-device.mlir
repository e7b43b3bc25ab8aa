// A device appears twice in an encoding.
func.func @f(%x: tensor<8xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:0"], axis = 0>>) {
  func.return
}

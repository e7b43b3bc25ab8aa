// The placements are #multi.on and #multi.shard; there is no #multi.replicated.
func.func @f(%x: tensor<8xf32, #multi.replicated<["CPU:0", "CPU:1"]>>) {
  func.return
}

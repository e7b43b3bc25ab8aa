// Huge dimensions are only numbers to the verifier: 10^11 rows over 2 devices need 5*10^10 local
// rows, not 10^11.
func.func @f(%x: tensor<100000000000x4xf32, #multi.on<["CPU:0", "CPU:1"]>>) {
  %m = multi.multi %x axis 0 : tensor<100000000000x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<100000000000x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  func.return
}

// Device 2 of a two-device value.
func.func @f(%x: tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>) {
  %s = multi.mselect %x[2] : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4xf32, #multi.on<["CPU:1"]>>
  func.return
}

// ARGS: -p multi-to-devidx
// The input is verified before the first pass: the error is in this file.
func.func @main(%x: tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4xf32, #multi.on<["CPU:0"]>> {
  %s = multi.mselect %x[1] : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4xf32, #multi.on<["CPU:0"]>>
  func.return %s : tensor<4xf32, #multi.on<["CPU:0"]>>
}

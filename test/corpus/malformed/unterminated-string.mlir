// A device name whose string literal never ends.
func.func @f(%x: tensor<4xf32, #multi.on<["CPU:0>>) {
  func.return
}

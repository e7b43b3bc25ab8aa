// A bool fill for a float tensor.
func.func @f(%x: tensor<4xf32>) {
  %y = tg.pad %x [[1, 1]] value true : tensor<4xf32> -> tensor<6xf32>
  func.return
}

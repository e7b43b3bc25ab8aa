// The function body is never closed.
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tg.contiguous %x : tensor<4xf32>
  func.return %y : tensor<4xf32>

// An axis that does not fit in 64 bits (this used to crash while building the property).
func.func @f(%x: tensor<4x4xf32>) {
  %y = tg.permute %x [1, 99999999999999999999] : tensor<4x4xf32> -> tensor<4x4xf32>
  func.return
}

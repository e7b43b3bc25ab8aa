// 3.5e38 does not fit f32 (this used to crash with OverflowError).
func.func @f(%x: tensor<4xf32>) {
  %y = tg.pad %x [[1, 1]] value 3.5e38 : tensor<4xf32> -> tensor<6xf32>
  func.return
}

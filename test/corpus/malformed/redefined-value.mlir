// %a is defined twice.
func.func @f(%x: tensor<4xf32>) {
  %a = tg.contiguous %x : tensor<4xf32>
  %a = tg.flip %x [0] : tensor<4xf32>
  func.return
}

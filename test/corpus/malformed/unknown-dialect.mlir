// No dialect named `tinygrad`.
func.func @f(%x: tensor<8xf32>) {
  %y = tinygrad.relu %x : tensor<8xf32>
  func.return
}

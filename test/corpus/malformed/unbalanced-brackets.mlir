// One '>' too many.
func.func @f(%x: tensor<4xf32>>) {
  func.return
}

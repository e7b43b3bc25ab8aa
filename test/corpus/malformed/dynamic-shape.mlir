// Shapes are static.
func.func @f(%x: tensor<?x4xf32>) {
  %y = tg.reduce add %x [1] : tensor<?x4xf32> -> tensor<?x1xf32>
  func.return
}

// ARGS: -p 'multi-to-devidx{ring-threshold=abc}'
// NOLOC: the error is in the pass option, not in this file
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}

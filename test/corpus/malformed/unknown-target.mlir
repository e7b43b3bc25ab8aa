// ARGS: -t nonexistent-target
// NOLOC: the error is in the target name, not in this file
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}

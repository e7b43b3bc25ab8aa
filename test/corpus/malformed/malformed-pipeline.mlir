// ARGS: -p 'multi-to-devidx{allreduce=ring'
// NOLOC: the error is in the pipeline text, not in this file
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}

// ARGS: -p specialize-devices
// NOLOC: specialize-devices needs the SPMD form (a `multi.devices` module attribute)
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}

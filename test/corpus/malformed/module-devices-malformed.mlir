// SPEC §1: `multi.devices` is a list of device names without repeats.
builtin.module attributes {multi.devices = [0, 1, 1]} {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    func.return %x : tensor<4xf32>
  }
}

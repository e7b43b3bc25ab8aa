// SPEC §1: when the module has `multi.devices`, it lists every device used; CPU:5 is not listed.
builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<4xf32, #multi.on<["CPU:0", "CPU:5"]>>) -> tensor<4xf32, #multi.on<["CPU:0", "CPU:5"]>> {
    func.return %x : tensor<4xf32, #multi.on<["CPU:0", "CPU:5"]>>
  }
}

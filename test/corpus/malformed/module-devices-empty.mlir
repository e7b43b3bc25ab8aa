// SPEC §1: `multi.devices` is a non-empty list.
builtin.module attributes {multi.devices = []} {
  func.func @main(%x: tensor<4xf32, #multi.on<["CPU:0"]>>) {
    func.return
  }
}

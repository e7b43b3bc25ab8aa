// ARGS: -p 'multi-to-devidx{allreduce=bogus}'
// NOLOC: the error is in the pass option, not in this file
func.func @main(%x: tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> {
  %r = multi.allreduce add %x : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
  func.return %r : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
}

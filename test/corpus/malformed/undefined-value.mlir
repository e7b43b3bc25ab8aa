// %y is never defined.
func.func @f(%x: tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>) {
  %r = multi.allreduce add %y : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
  func.return
}

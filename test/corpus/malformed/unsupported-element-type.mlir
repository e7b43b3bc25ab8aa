// i3 is not one of the supported element types.
func.func @f(%x: tensor<4xi3, #multi.on<["CPU:0", "CPU:1"]>>) {
  %r = multi.allreduce add %x : tensor<4xi3, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4xi3, #multi.on<["CPU:0", "CPU:1"]>>
  func.return
}

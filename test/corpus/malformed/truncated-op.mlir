// The file ends in the middle of an op.
func.func @f(%x: tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>) {
  %m = multi.multi %x axis

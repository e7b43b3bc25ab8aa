// Issue 9 minimized (test/support/minimize_program.py): %v1 is returned (stored with 0 in its
// Invalid rows) and also read by the kernel of %v15, which must still see those rows Invalid.
// Failed after form-kernels, specialized and SPMD, on any device list (even one device).
module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2"]} {
  func.func @main(%x0: tensor<2x3xi32, #multi.on<["CPU:1", "CPU:0"]>>, %x1: tensor<18x7xi32, #multi.on<["CPU:1", "CPU:0"]>>) -> (tensor<18x7xi32, #multi.on<["CPU:1", "CPU:0"]>>, tensor<7x3xi32, #multi.on<["CPU:1", "CPU:0"]>>) {
    %v1 = tg.pad %x0 [[2, 3], [0, 0]] invalid : tensor<2x3xi32, #multi.on<["CPU:1", "CPU:0"]>> -> tensor<7x3xi32, #multi.on<["CPU:1", "CPU:0"]>>
    %v2 = tg.reshape %v1 : tensor<7x3xi32, #multi.on<["CPU:1", "CPU:0"]>> -> tensor<1x3x7xi32, #multi.on<["CPU:1", "CPU:0"]>>
    %v3 = tg.pad %v2 [[2, 3], [0, 0], [0, 0]] invalid : tensor<1x3x7xi32, #multi.on<["CPU:1", "CPU:0"]>> -> tensor<6x3x7xi32, #multi.on<["CPU:1", "CPU:0"]>>
    %v5 = tg.reshape %v3 : tensor<6x3x7xi32, #multi.on<["CPU:1", "CPU:0"]>> -> tensor<18x7xi32, #multi.on<["CPU:1", "CPU:0"]>>
    %v15 = arith.addi %v5, %x1 : tensor<18x7xi32, #multi.on<["CPU:1", "CPU:0"]>>
    func.return %v15, %v1 : tensor<18x7xi32, #multi.on<["CPU:1", "CPU:0"]>>, tensor<7x3xi32, #multi.on<["CPU:1", "CPU:0"]>>
  }
}

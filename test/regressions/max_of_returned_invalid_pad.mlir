// Issue 9's class, found by random_program(136) on the threads backend and minimized: %v7 (an
// Invalid pad) is returned, so stored with 0 in its padding columns, and the max over axis 0
// read that buffer as valid: 0 instead of the identity (the i32 minimum) for the all-Invalid
// columns (SPEC §4 rule 2). 2 columns over 4 devices (two empty shards), on-values in another
// order than the module's device list.
module attributes {multi.devices = ["CPU:0", "CPU:2", "CPU:3", "CPU:1"]} {
  func.func @main(%a1: tensor<2x2xi32, #multi.shard<["CPU:1", "CPU:3", "CPU:2", "CPU:0"], axis = 1>>) -> (tensor<2x3xi32, #multi.on<["CPU:1", "CPU:3", "CPU:2", "CPU:0"]>>, tensor<1x3xi32, #multi.on<["CPU:1", "CPU:3", "CPU:2", "CPU:0"]>>) {
    %v3 = tg.reduce mul %a1 [1] : tensor<2x2xi32, #multi.shard<["CPU:1", "CPU:3", "CPU:2", "CPU:0"], axis = 1>> -> tensor<2x1xi32, #multi.on<["CPU:1", "CPU:3", "CPU:2", "CPU:0"]>>
    %c1 = arith.constant 1 : index
    %v7 = tg.pad %v3 [[0, 0], [1, %c1]] invalid : tensor<2x1xi32, #multi.on<["CPU:1", "CPU:3", "CPU:2", "CPU:0"]>> -> tensor<2x3xi32, #multi.on<["CPU:1", "CPU:3", "CPU:2", "CPU:0"]>>
    %v8 = tg.reduce max %v7 [0] : tensor<2x3xi32, #multi.on<["CPU:1", "CPU:3", "CPU:2", "CPU:0"]>> -> tensor<1x3xi32, #multi.on<["CPU:1", "CPU:3", "CPU:2", "CPU:0"]>>
    func.return %v7, %v8 : tensor<2x3xi32, #multi.on<["CPU:1", "CPU:3", "CPU:2", "CPU:0"]>>, tensor<1x3xi32, #multi.on<["CPU:1", "CPU:3", "CPU:2", "CPU:0"]>>
  }
}

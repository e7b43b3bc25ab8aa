// Same root cause as reduce_of_invalid_pad_negative_shrink.mlir, through the lane-wise rule
// (invalid_windows.py, a shrink of an elementwise op whose operand is an Invalid pad): on a
// value sharded on axis 1, the condition of tg.where is padded with Invalid on axis 0; after
// specialize-devices a `tg.shrink` with lower bound -1 on axis 0 fails verification.
// Found by test/transforms/test_random_programs.py.
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%a: tensor<2x3xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>) -> tensor<3x3xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> {
    %p = tg.pad %a [[1, 0], [0, 0]] invalid : tensor<2x3xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> -> tensor<3x3xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
    %x = arith.constant dense<-1> : tensor<3x3xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
    %y = arith.constant dense<2> : tensor<3x3xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
    %w = tg.where %p, %x, %y : tensor<3x3xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>, tensor<3x3xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
    func.return %w : tensor<3x3xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
  }
}

// specialize-devices (its per-device simplification, with d constant) rewrites the shard's
// shrink(reduce(pad(x, invalid))) with invalid_windows.ShrinkOfReduce, whose _Emit.content
// assumes the window lies inside the pad's data; here the reduced axis is taken whole, padding
// included, and the result is `tg.shrink %a [[0, 1], [-1, 2]] : tensor<1x2xf32> ->
// tensor<1x3xf32>`, which fails verification ("lower bound -1 is outside [0, 2]").
// Found by test/transforms/test_random_programs.py.
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%a: tensor<2x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<2x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
    %p = tg.pad %a [[0, 0], [1, 0]] invalid : tensor<2x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<2x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
    %r = tg.reduce add %p [1] : tensor<2x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<2x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
    func.return %r : tensor<2x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  }
}

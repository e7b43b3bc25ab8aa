// (fixed in 06a2ea3) multi-to-devidx lowered a keep-slice copy (many-device #multi.on -> #multi.shard on the same
// device list) to `clean(x)` alone, so Invalid lanes of x survive the copy. SPEC §4: a copy is a
// materialization and stores Invalid as 0. Here column 0 is Invalid before the copy, 0 after it,
// so the max over axis 0 is 0; after multi-to-devidx the reduce skips the Invalid lanes and gives
// -inf (with `mul` it would give 1 instead of 0). Found by test/transforms/test_random_programs.py.
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%a0: tensor<2x2xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<1x3xf32, #multi.on<["CPU:0", "CPU:1"]>> {
    %p = tg.pad %a0 [[0, 0], [1, 0]] invalid : tensor<2x2xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<2x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
    %s = multi.copy %p : tensor<2x3xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<2x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
    %r = tg.reduce max %s [0] : tensor<2x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<1x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
    func.return %r : tensor<1x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
  }
}

// devidx-simplify folded `select(c, x, x) -> x` even when c may be Invalid (fixed in 06a2ea3).
// SPEC §4 rule 1 (Invalid poisons elementwise ops; tg.where is elementwise, its condition too):
// where(pad(c, invalid), x, x) is Invalid in the padding, stored as 0 at the function result.
// Multi level (interpreter): [x, x, 0]; after multi-to-devidx: [x, x, 0]; after devidx-simplify:
// [x, x, x]. Found by test/transforms/test_random_programs.py.
module attributes {multi.devices = ["CPU:0"]} {
  func.func @main(%a0: tensor<2xf32, #multi.on<["CPU:0"]>>) -> tensor<3xf32, #multi.on<["CPU:0"]>> {
    %p = tg.pad %a0 [[0, 1]] invalid : tensor<2xf32, #multi.on<["CPU:0"]>> -> tensor<3xf32, #multi.on<["CPU:0"]>>
    %c = tg.cmp ge %p, %p : tensor<3xf32, #multi.on<["CPU:0"]>> -> tensor<3xi1, #multi.on<["CPU:0"]>>
    %x = arith.constant dense<-0.5> : tensor<3xf32, #multi.on<["CPU:0"]>>
    %w = tg.where %c, %x, %x : tensor<3xi1, #multi.on<["CPU:0"]>>, tensor<3xf32, #multi.on<["CPU:0"]>>
    func.return %w : tensor<3xf32, #multi.on<["CPU:0"]>>
  }
}

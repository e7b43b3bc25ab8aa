// A dialect verifier error without --verify-diagnostics: the first failing op is reported on
// stderr at its line, with the op name, the rule and the values, and exit code 1; the module is
// not printed.
// RUN: %expect-exit 1 multi-opt %s 2>&1 | filecheck %s

// CHECK-NOT:  Traceback
// CHECK:      verify-error-exit.mlir:[[# @LINE + 8]]:3: error: tg.shrink: shrink [2, 6] on the shard axis 0 must keep the whole axis [0, 8] or exactly one non-empty shard of [[0, 4], [4, 8]]
// CHECK-NEXT: {{^}}  %y = tg.shrink
// CHECK-NEXT: {{^}}  ^{{$}}
// CHECK-NOT:  builtin.module
// CHECK-NOT:  multi.mselect
// CHECK-NOT:  Traceback
func.func @f(%x: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, %z: tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>) {
  %ok = tg.shrink %x [[4, 8], [0, 4]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
  %y = tg.shrink %x [[2, 6], [0, 4]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
  %s = multi.mselect %z[5] : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4xf32, #multi.on<["CPU:1"]>>
  func.return
}

// RUN: %expect-exit 1 multi-opt %s -p multi-to-devidx 2>&1 | filecheck %s
// RUN: %expect-exit 1 multi-run %s --random-inputs --seed 0 2>&1 | filecheck %s
// RUN: multi-run %s --backend interp --random-inputs --seed 0 | filecheck %s --check-prefix=INTERP

// Device meshes (SPEC §1.1) run in the reference interpreter at the multi level, but the
// lowering does not take them yet: multi-to-devidx (and so multi-run's compiled backends and
// xdsl_multi.compile) rejects them with a located diagnostic, never a traceback.

// CHECK-NOT: Traceback
// CHECK: mesh-not-lowered.mlir:[[# @LINE + 2]]:3: error: {{.*}}multi-to-devidx: multi.multi: device meshes are not lowered yet (SPEC §1.1), found tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
func.func @main(%y: tensor<2x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>) -> tensor<1x1xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>> {
  %g = multi.multi %y axes [0, 1] : tensor<2x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>> -> tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
  %r = tg.reduce max %g [0, 1] : tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<1x1xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>
  func.return %r : tensor<1x1xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>
}
// INTERP: result0: tensor<1x1xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>: shape (4, 1, 1)

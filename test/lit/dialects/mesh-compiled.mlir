// RUN: multi-run %s --random-inputs --seed 0 --check | filecheck %s
// RUN: multi-run %s --spmd --random-inputs --seed 0 --check | filecheck %s
// RUN: multi-run %s --backend interp --random-inputs --seed 0 | filecheck %s --check-prefix=INTERP

// Device meshes (SPEC §1.1) through the compiled pipeline: multi-run's threads backend, with
// one module per device and in SPMD mode (a grouped devidx.allreduce), checked against the
// reference interpreter (--check).

// CHECK-NOT: Traceback
// CHECK: result0: tensor<1x1xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>: shape (4, 1, 1)
// CHECK: check: threads matches interp (1 results)
func.func @main(%y: tensor<2x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>) -> tensor<1x1xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>> {
  %g = multi.multi %y axes [0, 1] : tensor<2x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>> -> tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
  %r = tg.reduce max %g [0, 1] : tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<1x1xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>
  func.return %r : tensor<1x1xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>
}
// INTERP: result0: tensor<1x1xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>: shape (4, 1, 1)

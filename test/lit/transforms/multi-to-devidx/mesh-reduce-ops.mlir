// RUN: multi-opt %s -p 'multi-to-devidx{collectives=ops}' | filecheck %s
// With collectives=ops (SPMD mode), a reduce over the split axes of a 2x2 mesh value
// (rows over mesh dim 0, columns over mesh dim 1) is the local reduce and ONE grouped
// devidx.allreduce: each device reduces over the devices that differ from it only in mesh
// coordinate 0 (axis 0) or 0 and 1 (both axes), whatever N; no fetches.

module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2", "CPU:3"]} {
  func.func @main(%x: tensor<5x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>) -> (tensor<1x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [none, 1]>>, tensor<1x1xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>) {
    %r = tg.reduce add %x [0] : tensor<5x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<1x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [none, 1]>>
    %t = tg.reduce max %x [0, 1] : tensor<5x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<1x1xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>
    func.return %r, %t : tensor<1x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [none, 1]>>, tensor<1x1xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>
  }
}

// CHECK:      %[[L:.*]] = tg.reduce add %{{.*}} [0] : tensor<5x6xf32> -> tensor<1x6xf32>
// CHECK-NEXT: %{{.*}} = devidx.allreduce add %[[L]] algorithm naive groups [2, 2] over [0] : tensor<1x6xf32>
// CHECK:      %[[M:.*]] = tg.reduce max %{{.*}} [0, 1] : tensor<5x6xf32> -> tensor<1x1xf32>
// CHECK-NEXT: %{{.*}} = devidx.allreduce max %[[M]] algorithm naive groups [2, 2] over [0, 1] : tensor<1x1xf32>
// CHECK-NOT:  devidx.fetch

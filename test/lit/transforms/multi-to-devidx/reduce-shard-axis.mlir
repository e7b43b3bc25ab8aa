// RUN: multi-opt %s -p 'multi-to-devidx{allreduce=naive}' | filecheck %s
// Rule: ReduceOverShardAxisToAllreduce
// A reduce over the shard axis: a local reduce of the device's own rows (others Invalid, which
// reduce as the identity) and an allreduce; the result is on every device.

module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<5x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<1x3xf32, #multi.on<["CPU:0", "CPU:1"]>> {
    %r = tg.reduce add %x [0] : tensor<5x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<1x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
    func.return %r : tensor<1x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
  }
}

// CHECK:      %[[L:.*]] = tg.reduce add %{{.*}} [0] : tensor<5x3xf32> -> tensor<1x3xf32>
// CHECK:      %[[A:.*]] = devidx.fetch %[[L]] from %{{.*}} : tensor<1x3xf32>
// CHECK:      %[[B:.*]] = devidx.fetch %[[L]] from %{{.*}} : tensor<1x3xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[B]] : tensor<1x3xf32>
// CHECK-NEXT: func.return %[[S]] : tensor<1x3xf32>

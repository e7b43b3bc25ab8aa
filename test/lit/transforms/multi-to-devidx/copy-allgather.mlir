// RUN: multi-opt %s -p 'multi-to-devidx{collectives=ops}' | filecheck %s
// Rule: CopyShardToEveryDeviceAllGathers
// collectives=ops: a copy from an uneven shard (7 columns over 3 devices, listed in another
// order than the module's) to every device is one all-gather of the 3-column local buffers at
// each device's shard position, stacked on a new leading axis, moved next to the shard axis
// and cut back to 7 columns.

module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2"]} {
  func.func @main(%x: tensor<2x7xf32, #multi.shard<["CPU:2", "CPU:0", "CPU:1"], axis = 1>>) -> tensor<2x7xf32, #multi.on<["CPU:1", "CPU:2", "CPU:0"]>> {
    %c = multi.copy %x : tensor<2x7xf32, #multi.shard<["CPU:2", "CPU:0", "CPU:1"], axis = 1>> -> tensor<2x7xf32, #multi.on<["CPU:1", "CPU:2", "CPU:0"]>>
    func.return %c : tensor<2x7xf32, #multi.on<["CPU:1", "CPU:2", "CPU:0"]>>
  }
}

// CHECK:      func.func @main(%{{.*}}: tensor<2x3xf32>) -> tensor<2x7xf32>
// CHECK-NOT:  devidx.fetch
// CHECK:      %[[B:.*]] = tg.contiguous %{{.*}} : tensor<2x3xf32>
// CHECK-NEXT: %[[G:.*]] = devidx.allgather %[[B]] at %{{.*}} : tensor<2x3xf32> -> tensor<3x2x3xf32>
// CHECK-NEXT: %[[P:.*]] = tg.permute %[[G]] [1, 0, 2] : tensor<3x2x3xf32> -> tensor<2x3x3xf32>
// CHECK-NEXT: %[[R:.*]] = tg.reshape %[[P]] : tensor<2x3x3xf32> -> tensor<2x9xf32>
// CHECK-NEXT: %{{.*}} = tg.shrink %[[R]] {{\[}}[0, 2], [0, 7]] : tensor<2x9xf32> -> tensor<2x7xf32>
// CHECK-NOT:  devidx.fetch

// RUN: multi-opt %s -p 'multi-to-devidx{collectives=ops}' | filecheck %s
// Rule: CopyShardToOneDeviceGathers
// collectives=ops: a copy from an uneven shard (7 columns over 3 devices, listed in another
// order than the module's) to one device is one gather of the 3-column local buffers at each
// device's shard position to that device (root 2), put back on the shard axis, cut back to 7
// columns and masked to device 2.

module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2"]} {
  func.func @main(%x: tensor<2x7xf32, #multi.shard<["CPU:2", "CPU:0", "CPU:1"], axis = 1>>) -> tensor<2x7xf32, #multi.on<["CPU:2"]>> {
    %c = multi.copy %x : tensor<2x7xf32, #multi.shard<["CPU:2", "CPU:0", "CPU:1"], axis = 1>> -> tensor<2x7xf32, #multi.on<["CPU:2"]>>
    func.return %c : tensor<2x7xf32, #multi.on<["CPU:2"]>>
  }
}

// CHECK:      func.func @main(%{{.*}}: tensor<2x3xf32>) -> tensor<2x7xf32>
// CHECK-NOT:  devidx.fetch
// CHECK:      %[[B:.*]] = tg.contiguous %{{.*}} : tensor<2x3xf32>
// CHECK-NEXT: %[[G:.*]] = devidx.gather %[[B]] at %{{.*}} root 2 : tensor<2x3xf32> -> tensor<3x2x3xf32>
// CHECK:      %[[P:.*]] = tg.permute %[[G]] [1, 0, 2] : tensor<3x2x3xf32> -> tensor<2x3x3xf32>
// CHECK-NEXT: %[[R:.*]] = tg.reshape %[[P]] : tensor<2x3x3xf32> -> tensor<2x9xf32>
// CHECK-NEXT: %[[S:.*]] = tg.shrink %[[R]] {{\[}}[0, 2], [0, 7]] : tensor<2x9xf32> -> tensor<2x7xf32>
// CHECK-NEXT: %[[I:.*]] = devidx.invalid : tensor<2x7xf32>
// CHECK-NEXT: %{{.*}} = arith.select %{{.*}}, %[[S]], %[[I]] : tensor<2x7xf32>
// CHECK-NOT:  devidx.fetch

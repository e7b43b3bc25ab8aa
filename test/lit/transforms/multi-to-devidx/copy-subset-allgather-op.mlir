// RUN: multi-opt %s -p 'multi-to-devidx{collectives=ops}' | filecheck %s
// Rule: CopyFromShardAllGathersOp
// collectives=ops: a copy from an uneven shard over two of the three devices (5 rows, listed
// CPU:2 then CPU:0) to `#multi.on` the same two devices is one allgather over every device:
// the positions are a table on d (CPU:2 -> 0, CPU:0 -> 1, the non-member CPU:1 -> 2), the
// first two 3-row entries are put back on the shard axis, cut to 5 rows and masked to the
// destination's devices (a 0/1 table).

module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2"]} {
  func.func @main(%x: tensor<5x2xf32, #multi.shard<["CPU:2", "CPU:0"], axis = 0>>) -> tensor<5x2xf32, #multi.on<["CPU:0", "CPU:2"]>> {
    %c = multi.copy %x : tensor<5x2xf32, #multi.shard<["CPU:2", "CPU:0"], axis = 0>> -> tensor<5x2xf32, #multi.on<["CPU:0", "CPU:2"]>>
    func.return %c : tensor<5x2xf32, #multi.on<["CPU:0", "CPU:2"]>>
  }
}

// CHECK:      func.func @main(%{{.*}}: tensor<3x2xf32>) -> tensor<5x2xf32>
// CHECK:      %[[D:.*]] = devidx.device_num : index
// CHECK:      %[[K:.*]] = devidx.lookup %[[D]] in [1, 2, 0] : index
// CHECK-NOT:  devidx.fetch
// CHECK:      %[[B:.*]] = tg.contiguous %{{.*}} : tensor<3x2xf32>
// CHECK-NEXT: %[[G:.*]] = devidx.allgather %[[B]] at %[[K]] : tensor<3x2xf32> -> tensor<3x3x2xf32>
// CHECK-NEXT: %[[E:.*]] = tg.shrink %[[G]] {{\[}}[0, 2], [0, 3], [0, 2]] : tensor<3x3x2xf32> -> tensor<2x3x2xf32>
// CHECK-NEXT: %[[R:.*]] = tg.reshape %[[E]] : tensor<2x3x2xf32> -> tensor<6x2xf32>
// CHECK-NEXT: %[[S:.*]] = tg.shrink %[[R]] {{\[}}[0, 5], [0, 2]] : tensor<6x2xf32> -> tensor<5x2xf32>
// CHECK-NEXT: %[[M:.*]] = devidx.lookup %[[D]] in [1, 0, 1] : index
// CHECK:      %{{.*}} = arith.select %{{.*}}, %[[S]], %{{.*}} : tensor<5x2xf32>
// CHECK-NOT:  devidx.fetch

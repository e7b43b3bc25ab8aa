// RUN: multi-opt %s -p 'multi-to-devidx{collectives=ops}' | filecheck %s
// Rule: CopyBetweenShardsOnOneAxisAlltoallOp
// collectives=ops: a copy from an uneven shard on axis 1 over two of the three devices (5
// columns, listed CPU:2 then CPU:0: 3 each) to a shard on axis 1 over every device in another
// order (CPU:1, CPU:0, CPU:2: 2 each) is one rows alltoall over every device: `from` is d's
// source position (CPU:2 -> 0, CPU:0 -> 1, the unlisted CPU:1 -> 2), `at` its destination
// position; the local block has its shard axis moved to the front (3x2), each device gets
// its 2 columns (2x2) from their owners only, moved back and `global`ed at its position.

module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2"]} {
  func.func @main(%x: tensor<2x5xf32, #multi.shard<["CPU:2", "CPU:0"], axis = 1>>) -> tensor<2x5xf32, #multi.shard<["CPU:1", "CPU:0", "CPU:2"], axis = 1>> {
    %c = multi.copy %x : tensor<2x5xf32, #multi.shard<["CPU:2", "CPU:0"], axis = 1>> -> tensor<2x5xf32, #multi.shard<["CPU:1", "CPU:0", "CPU:2"], axis = 1>>
    func.return %c : tensor<2x5xf32, #multi.shard<["CPU:1", "CPU:0", "CPU:2"], axis = 1>>
  }
}

// CHECK:      func.func @main(%{{.*}}: tensor<2x3xf32>) -> tensor<2x2xf32>
// CHECK:      %[[D:.*]] = devidx.device_num : index
// CHECK-NEXT: %[[I:.*]] = devidx.lookup %[[D]] in [1, 2, 0] : index
// CHECK-NOT:  devidx.fetch
// CHECK:      %[[K:.*]] = devidx.lookup %[[D]] in [1, 0, 2] : index
// CHECK:      %[[T:.*]] = tg.permute %{{.*}} [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK-NEXT: %[[B:.*]] = tg.contiguous %[[T]] : tensor<3x2xf32>
// CHECK-NEXT: %[[A:.*]] = devidx.alltoall %[[B]] at %[[K]] from %[[I]] rows 3 -> 2 of 5 : tensor<3x2xf32> -> tensor<2x2xf32>
// CHECK-NEXT: %{{.*}} = tg.permute %[[A]] [1, 0] : tensor<2x2xf32>
// CHECK-NOT:  devidx.fetch
// CHECK-NOT:  devidx.allgather

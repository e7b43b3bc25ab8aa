// RUN: multi-opt %s -p 'multi-to-devidx{collectives=ops}' | filecheck %s
// Rule: CopyBetweenShardsOnTwoAxesAlltoallOp
// collectives=ops: a copy from an uneven shard on axis 0 over two of the three devices (5
// rows, CPU:2 then CPU:0: 3 each) to a shard on axis 1 over two others (CPU:1, CPU:2: 2
// columns each) is one alltoall over every device: each device's 3-row block is split into
// N = 3 column blocks of 2 (the third all padding), sent with `at` the destination position
// and `from` the source position (unlisted devices after the listed ones); the receiver
// keeps the first two entries (the real senders), joins them on axis 0 (cut to 5 rows) and
// `global`s them at its column position, masked to CPU:1 and CPU:2.

module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2"]} {
  func.func @main(%x: tensor<5x4xf32, #multi.shard<["CPU:2", "CPU:0"], axis = 0>>) -> tensor<5x4xf32, #multi.shard<["CPU:1", "CPU:2"], axis = 1>> {
    %c = multi.copy %x : tensor<5x4xf32, #multi.shard<["CPU:2", "CPU:0"], axis = 0>> -> tensor<5x4xf32, #multi.shard<["CPU:1", "CPU:2"], axis = 1>>
    func.return %c : tensor<5x4xf32, #multi.shard<["CPU:1", "CPU:2"], axis = 1>>
  }
}

// CHECK:      func.func @main(%{{.*}}: tensor<3x4xf32>) -> tensor<5x2xf32>
// CHECK:      %[[D:.*]] = devidx.device_num : index
// CHECK-NEXT: %[[I:.*]] = devidx.lookup %[[D]] in [1, 2, 0] : index
// CHECK-NOT:  devidx.fetch
// CHECK:      %[[K:.*]] = devidx.lookup %[[D]] in [2, 0, 1] : index
// CHECK:      tg.reshape %{{.*}} : tensor<3x6xf32> -> tensor<3x3x2xf32>
// CHECK:      %[[A:.*]] = devidx.alltoall %{{.*}} at %[[K]] from %[[I]] : tensor<3x3x2xf32>
// CHECK-NEXT: %[[E:.*]] = tg.shrink %[[A]] {{\[}}[0, 2], [0, 3], [0, 2]] : tensor<3x3x2xf32> -> tensor<2x3x2xf32>
// CHECK-NEXT: %[[R:.*]] = tg.reshape %[[E]] : tensor<2x3x2xf32> -> tensor<6x2xf32>
// CHECK-NEXT: %{{.*}} = tg.shrink %[[R]] {{\[}}[0, 5], [0, 2]] : tensor<6x2xf32> -> tensor<5x2xf32>
// CHECK:      %{{.*}} = devidx.lookup %[[D]] in [0, 1, 1] : index
// CHECK-NOT:  devidx.fetch
// CHECK-NOT:  devidx.allgather

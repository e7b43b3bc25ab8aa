// RUN: multi-opt %s -p 'multi-to-devidx{collectives=ops}' | filecheck %s
// Rule: CopyBetweenShardingsAlltoallOp
// collectives=ops: a reshard from axis 0 to axis 1 (7 x 5 over 3 devices, uneven on both axes)
// is one all-to-all: each device splits its 3-row local buffer into 3 blocks of 2 columns,
// exchanges them, and puts the 3 blocks it gets back on axis 0 (cut back to 7 rows).

module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2"]} {
  func.func @main(%x: tensor<7x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>) -> tensor<7x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>> {
    %c = multi.copy %x : tensor<7x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<7x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>
    func.return %c : tensor<7x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>
  }
}

// CHECK:      func.func @main(%{{.*}}: tensor<3x5xf32>) -> tensor<7x2xf32>
// CHECK-NOT:  devidx.fetch
// CHECK:      %[[P:.*]] = tg.pad %{{.*}} {{\[}}[0, 0], [0, 1]] invalid : tensor<3x5xf32> -> tensor<3x6xf32>
// CHECK-NEXT: %[[R:.*]] = tg.reshape %[[P]] : tensor<3x6xf32> -> tensor<3x3x2xf32>
// CHECK-NEXT: %[[M:.*]] = tg.permute %[[R]] [1, 0, 2] : tensor<3x3x2xf32>
// CHECK-NEXT: %[[B:.*]] = tg.contiguous %[[M]] : tensor<3x3x2xf32>
// CHECK-NEXT: %[[A:.*]] = devidx.alltoall %[[B]] at %d : tensor<3x3x2xf32>
// CHECK-NEXT: %[[J:.*]] = tg.reshape %[[A]] : tensor<3x3x2xf32> -> tensor<9x2xf32>
// CHECK-NEXT: %{{.*}} = tg.shrink %[[J]] {{\[}}[0, 7], [0, 2]] : tensor<9x2xf32> -> tensor<7x2xf32>
// CHECK-NOT:  devidx.fetch

// RUN: multi-opt %s -p multi-to-devidx | filecheck %s
// Rule: ShardedReduceCleansResult
// A reduce over an axis other than the shard axis: the same reduce on the logical-shape value,
// then `clean` (pad to N * s rows, shrink to the device's s rows, and back): nothing moves.

module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<3x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<3x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
    %r = tg.reduce add %x [1] : tensor<3x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<3x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
    func.return %r : tensor<3x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  }
}

// CHECK:      %[[G:.*]] = tg.shrink %{{.*}} {{\[}}[0, 3], [0, 4]] : tensor<4x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT: %[[R:.*]] = tg.reduce add %[[G]] [1] : tensor<3x4xf32> -> tensor<3x1xf32>
// CHECK-NEXT: %[[P:.*]] = tg.pad %[[R]] {{\[}}[0, 1], [0, 0]] invalid : tensor<3x1xf32> -> tensor<4x1xf32>
// CHECK-NEXT: %[[HI:.*]] = arith.addi
// CHECK-NEXT: %[[L:.*]] = tg.shrink %[[P]] {{\[}}[%[[LO:.*]], %[[HI]]], [0, 1]] : tensor<4x1xf32> -> tensor<2x1xf32>
// CHECK-NEXT: %[[C:.*]] = tg.pad %[[L]] {{\[}}[%[[LO]], %{{.*}}], [0, 0]] invalid : tensor<2x1xf32> -> tensor<4x1xf32>
// CHECK-NEXT: %{{.*}} = tg.shrink %[[C]] {{\[}}[0, 3], [0, 1]] : tensor<4x1xf32> -> tensor<3x1xf32>
// CHECK-NOT:  devidx.fetch
// CHECK:      func.return %{{.*}} : tensor<2x1xf32>

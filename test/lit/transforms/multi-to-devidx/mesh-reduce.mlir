// RUN: multi-opt %s -p 'multi-to-devidx' | filecheck %s
// Rule: ReduceOverShardAxisToAllreduce
// A reduce over axis 0 of a 2x2 mesh value (rows over mesh dim 0, columns over mesh dim 1):
// the local reduce of the device's block and an allreduce within its group, the two devices
// that differ only in mesh coordinate 0 (positions c1 and 2 + c1, c1 = d mod 2); the result
// keeps its columns split over mesh dim 1 (axes [none, 1]).

module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2", "CPU:3"]} {
  func.func @main(%x: tensor<5x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>) -> tensor<1x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [none, 1]>> {
    %r = tg.reduce add %x [0] : tensor<5x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<1x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [none, 1]>>
    func.return %r : tensor<1x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [none, 1]>>
  }
}

// CHECK:      %d = devidx.device_num : index
// CHECK:      %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[C0:.*]] = arith.divsi %d, %[[TWO]] : index
// CHECK-NEXT: %[[C1:.*]] = arith.remsi %d, %[[TWO]] : index
// CHECK:      %[[L:.*]] = tg.reduce add %{{.*}} [0] : tensor<5x6xf32> -> tensor<1x6xf32>
// CHECK-NEXT: %[[OTHER:.*]] = arith.addi %[[TWO]], %[[C1]] : index
// CHECK-NEXT: %[[A:.*]] = devidx.fetch %[[L]] from %[[C1]] : tensor<1x6xf32>
// CHECK-NEXT: %[[B:.*]] = devidx.fetch %[[L]] from %[[OTHER]] : tensor<1x6xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[B]] : tensor<1x6xf32>
// CHECK-NEXT: %{{.*}} = tg.shrink %[[S]] [[0, 1], [%{{.*}}, %{{.*}}]] : tensor<1x6xf32> -> tensor<1x3xf32>

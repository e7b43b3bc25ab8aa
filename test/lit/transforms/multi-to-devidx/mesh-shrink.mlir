// RUN: multi-opt %s -p 'multi-to-devidx' | filecheck %s
// Rule: ShrinkOfOneMeshBlockFetchesFromOwner
// A shrink selecting the second row block of a 2x2 mesh value (rows over mesh dim 0): every
// device fetches the shrink from the device of its group holding that block (mesh coordinate
// 1 on dim 0, its own on dim 1: position 2 + d mod 2); columns stay split over mesh dim 1.

module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2", "CPU:3"]} {
  func.func @main(%x: tensor<5x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>) -> tensor<2x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [none, 1]>> {
    %s = tg.shrink %x [[3, 5], [0, 6]] : tensor<5x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<2x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [none, 1]>>
    func.return %s : tensor<2x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [none, 1]>>
  }
}

// CHECK:      %d = devidx.device_num : index
// CHECK:      %[[TWO:.*]] = arith.constant 2 : index
// CHECK:      %[[C1:.*]] = arith.remsi %d, %[[TWO]] : index
// CHECK:      %[[OWNER:.*]] = arith.addi %[[TWO]], %[[C1]] : index
// CHECK-NEXT: %[[S:.*]] = tg.shrink %{{.*}} [[3, 5], [0, 6]] : tensor<5x6xf32> -> tensor<2x6xf32>
// CHECK-NEXT: %{{.*}} = devidx.fetch %[[S]] from %[[OWNER]] : tensor<2x6xf32>
// CHECK:      func.return %{{.*}} : tensor<2x3xf32>

// RUN: multi-opt %s -p 'multi-to-devidx' | filecheck %s
// Rule: CopyOnToMeshKeepsSlices
// A copy of a #multi.on value to a 2x2 mesh replicated along mesh dim 1: every device keeps
// its block of the buffer of its first replica (mesh coordinate 0 on dim 1: position
// 2 * (d / 2)), fetched; the block is then cleaned (rows of mesh dim 0's part only).

module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2", "CPU:3"]} {
  func.func @main(%x: tensor<5x6xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>) -> tensor<5x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, none]>> {
    %c = multi.copy %x : tensor<5x6xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>> -> tensor<5x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, none]>>
    func.return %c : tensor<5x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, none]>>
  }
}

// CHECK:      %d = devidx.device_num : index
// CHECK:      %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[C0:.*]] = arith.divsi %d, %[[TWO]] : index
// CHECK:      %[[FIRST:.*]] = arith.muli %[[C0]], %[[TWO]] : index
// CHECK-NEXT: %[[F:.*]] = devidx.fetch %x from %[[FIRST]] : tensor<5x6xf32>
// CHECK:      tg.pad %[[F]] [[0, 1], [0, 0]] invalid : tensor<5x6xf32> -> tensor<6x6xf32>
// CHECK-NOT:  devidx.fetch
// CHECK:      func.return %{{.*}} : tensor<3x6xf32>

// RUN: multi-opt %s -p 'multi-to-devidx' | filecheck %s
// Rule: CopyRefiningMeshKeepsBlocks
// A copy from rows over mesh dim 0 (replicated along dim 1) to rows over dim 0 and columns
// over dim 1 of the same 2x2 mesh: every device's new block lies in the one it holds, so
// nothing is fetched; the value is cleaned to the new block (columns of mesh dim 1's part).

module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2", "CPU:3"]} {
  func.func @main(%x: tensor<5x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, none]>>) -> tensor<5x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> {
    %c = multi.copy %x : tensor<5x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, none]>> -> tensor<5x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
    func.return %c : tensor<5x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
  }
}

// CHECK:      func.func @main(%x: tensor<3x6xf32>) -> tensor<3x3xf32>
// CHECK-NOT:  devidx.fetch
// CHECK:      func.return %{{.*}} : tensor<3x3xf32>

// RUN: multi-opt %s -p multi-to-devidx | filecheck %s
// Rule: ShrinkOfOneShardFetchesFromOwner
// A shrink that selects exactly one shard: computed on its owner and fetched by every device.

module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<4x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<2x3xf32, #multi.on<["CPU:0", "CPU:1"]>> {
    %s = tg.shrink %x [[2, 4], [0, 3]] : tensor<4x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<2x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
    func.return %s : tensor<2x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
  }
}

// CHECK:      %[[ONE:.*]] = arith.constant 1 : index
// CHECK:      %[[S:.*]] = tg.shrink %{{.*}} {{\[}}[2, 4], [0, 3]] : tensor<4x3xf32> -> tensor<2x3xf32>
// CHECK-NEXT: %[[F:.*]] = devidx.fetch %[[S]] from %[[ONE]] : tensor<2x3xf32>
// CHECK-NEXT: func.return %[[F]] : tensor<2x3xf32>

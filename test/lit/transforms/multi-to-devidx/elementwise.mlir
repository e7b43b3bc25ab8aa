// RUN: multi-opt %s -p multi-to-devidx | filecheck %s
// Rule: PlacedOpDropsEncodings
// Elementwise ops and constants on sharded values become the same ops on plain tensors of the
// logical shape; nothing moves.

module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<4x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<4x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
    %one = arith.constant dense<1.0> : tensor<4x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
    %y = arith.addf %x, %one : tensor<4x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
    %z = math.tanh %y : tensor<4x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
    func.return %z : tensor<4x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  }
}

// CHECK:      %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<4x3xf32>
// CHECK-NEXT: %[[Y:.*]] = arith.addf %{{.*}}, %[[ONE]] : tensor<4x3xf32>
// CHECK-NEXT: %[[Z:.*]] = math.tanh %[[Y]] : tensor<4x3xf32>
// CHECK-NOT:  devidx.fetch
// CHECK:      func.return

// RUN: multi-opt %s -p multi-to-devidx | filecheck %s
// Rule: UnplacedOpIsCopied
// Rule: ReturnToLocalBuffers
// Ops on unplaced values are copied unchanged; func.return returns each device's local buffer
// (`local(x)` of a shard value: padded to N * s rows, the device's s rows shrunk out).

module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<3x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, %y: tensor<2xf32>) -> (tensor<3x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, tensor<2xf32>) {
    %two = arith.constant dense<2.0> : tensor<2xf32>
    %z = arith.mulf %y, %two : tensor<2xf32>
    func.return %x, %z : tensor<3x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, tensor<2xf32>
  }
}

// CHECK:      func.func @main(%{{.*}}: tensor<2x2xf32>, %[[Y:.*]]: tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>)
// CHECK:      %[[G:.*]] = tg.shrink %{{.*}} {{\[}}[0, 3], [0, 2]] : tensor<4x2xf32> -> tensor<3x2xf32>
// CHECK-NEXT: %[[TWO:.*]] = arith.constant dense<2.000000e+00> : tensor<2xf32>
// CHECK-NEXT: %[[Z:.*]] = arith.mulf %[[Y]], %[[TWO]] : tensor<2xf32>
// CHECK-NEXT: %[[P:.*]] = tg.pad %[[G]] {{\[}}[0, 1], [0, 0]] invalid : tensor<3x2xf32> -> tensor<4x2xf32>
// CHECK-NEXT: %[[HI:.*]] = arith.addi
// CHECK-NEXT: %[[L:.*]] = tg.shrink %[[P]] {{\[}}[%{{.*}}, %[[HI]]], [0, 2]] : tensor<4x2xf32> -> tensor<2x2xf32>
// CHECK-NEXT: func.return %[[L]], %[[Z]] : tensor<2x2xf32>, tensor<2xf32>

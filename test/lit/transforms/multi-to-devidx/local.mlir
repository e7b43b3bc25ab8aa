// RUN: multi-opt %s -p multi-to-devidx | filecheck %s
// Rule: LocalToLocalBuffer
// LOCAL (tinygrad's UNSHARD.src[0]) is `local(x)`: the shard value padded with Invalid to
// N * s rows and shrunk to the device's s rows (7 rows over 2 devices: 4-row buffers, the last
// row of device 1 Invalid). The source is an argument, so `global` comes first.

module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<7x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1"]>> {
    %l = multi.local %x : tensor<7x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
    func.return %l : tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
  }
}

// CHECK:      func.func @main(%[[X:.*]]: tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:   %[[D:.*]] = devidx.device_num : index
// CHECK-NEXT:   %[[S:.*]] = arith.constant 4 : index
// CHECK-NEXT:   %[[LO:.*]] = arith.muli %[[D]], %[[S]] : index
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:   %[[REST:.*]] = arith.subi %[[ONE]], %[[D]] : index
// CHECK-NEXT:   %[[HI:.*]] = arith.muli %[[REST]], %[[S]] : index
// CHECK-NEXT:   %[[P:.*]] = tg.pad %[[X]] {{\[}}[%[[LO]], %[[HI]]], [0, 0]] invalid : tensor<4x3xf32> -> tensor<8x3xf32>
// CHECK-NEXT:   %[[G:.*]] = tg.shrink %[[P]] {{\[}}[0, 7], [0, 3]] : tensor<8x3xf32> -> tensor<7x3xf32>
// CHECK-NEXT:   %[[Q:.*]] = tg.pad %[[G]] {{\[}}[0, 1], [0, 0]] invalid : tensor<7x3xf32> -> tensor<8x3xf32>
// CHECK-NEXT:   %[[HI2:.*]] = arith.addi %[[LO]], %[[S]] : index
// CHECK-NEXT:   %[[L:.*]] = tg.shrink %[[Q]] {{\[}}[%[[LO]], %[[HI2]]], [0, 3]] : tensor<8x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT:   func.return %[[L]] : tensor<4x3xf32>

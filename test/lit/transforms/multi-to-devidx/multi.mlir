// RUN: multi-opt %s -p multi-to-devidx | filecheck %s
// Rule: MultiToInvalidPad
// MULTI becomes an Invalid pad with d-dependent bounds, cut back to the logical length
// (7 rows over 3 devices: 3-row buffers, padded to 9 rows, shrunk to 7).

module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2"]} {
  func.func @main(%x: tensor<3x5xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>) -> tensor<7x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> {
    %m = multi.multi %x axis 0 : tensor<3x5xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<7x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
    func.return %m : tensor<7x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  }
}

// CHECK:      builtin.module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2"], multi.signature = (tensor<3x5xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>) -> tensor<7x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>}
// CHECK:      func.func @main(%[[X:.*]]: tensor<3x5xf32>) -> tensor<3x5xf32>
// CHECK-NEXT:   %[[D:.*]] = devidx.device_num : index
// CHECK-NEXT:   %[[S:.*]] = arith.constant 3 : index
// CHECK-NEXT:   %[[LO:.*]] = arith.muli %[[D]], %[[S]] : index
// CHECK-NEXT:   %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:   %[[REST:.*]] = arith.subi %[[TWO]], %[[D]] : index
// CHECK-NEXT:   %[[HI:.*]] = arith.muli %[[REST]], %[[S]] : index
// CHECK-NEXT:   %[[P:.*]] = tg.pad %[[X]] {{\[}}[%[[LO]], %[[HI]]], [0, 0]] invalid : tensor<3x5xf32> -> tensor<9x5xf32>
// CHECK-NEXT:   %[[M:.*]] = tg.shrink %[[P]] {{\[}}[0, 7], [0, 5]] : tensor<9x5xf32> -> tensor<7x5xf32>
// CHECK-NOT:  multi.
// CHECK:        func.return

// RUN: multi-opt %s -p 'multi-to-devidx{collectives=ops}' | filecheck %s
// Rule: CopyFromOneDeviceToSomeScattersOp
// collectives=ops: a copy from CPU:1 to an uneven shard over CPU:2 and CPU:0 (5 rows, 3 per
// device) is one scatter over every device from CPU:1 of its value padded to 3 blocks of 3
// rows (the third, for the non-member CPU:1, all padding); each device places its block at
// its clamped position and the result is masked to the shard's devices.

module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2"]} {
  func.func @main(%x: tensor<5x2xf32, #multi.on<["CPU:1"]>>) -> tensor<5x2xf32, #multi.shard<["CPU:2", "CPU:0"], axis = 0>> {
    %c = multi.copy %x : tensor<5x2xf32, #multi.on<["CPU:1"]>> -> tensor<5x2xf32, #multi.shard<["CPU:2", "CPU:0"], axis = 0>>
    func.return %c : tensor<5x2xf32, #multi.shard<["CPU:2", "CPU:0"], axis = 0>>
  }
}

// CHECK:      func.func @main(%{{.*}}: tensor<5x2xf32>) -> tensor<3x2xf32>
// CHECK:      %[[D:.*]] = devidx.device_num : index
// CHECK-NOT:  devidx.fetch
// CHECK:      %[[K:.*]] = devidx.lookup %[[D]] in [1, 2, 0] : index
// CHECK:      %[[P:.*]] = tg.pad %{{.*}} {{\[}}[0, 4], [0, 0]] invalid : tensor<5x2xf32> -> tensor<9x2xf32>
// CHECK-NEXT: %[[R:.*]] = tg.reshape %[[P]] : tensor<9x2xf32> -> tensor<3x3x2xf32>
// CHECK-NEXT: %[[C:.*]] = tg.contiguous %[[R]] : tensor<3x3x2xf32>
// CHECK-NEXT: %[[B:.*]] = devidx.scatter %[[C]] at %[[K]] root 1 : tensor<3x3x2xf32> -> tensor<3x2xf32>
// CHECK-NOT:  devidx.fetch

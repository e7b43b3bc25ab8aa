// RUN: multi-opt %s -p 'multi-to-devidx{collectives=ops}' | filecheck %s
// Rule: CopyFromOneDeviceScattersOp
// collectives=ops: a copy from device 1 to an uneven shard (7 rows over 3 devices, listed in
// another order than the module's) is one scatter from device 1 of its value split into 3
// blocks of 3 rows (the 2 padding rows are 0): each device gets the block at its position.

module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2"]} {
  func.func @main(%x: tensor<7x2xf32, #multi.on<["CPU:1"]>>) -> tensor<7x2xf32, #multi.shard<["CPU:2", "CPU:0", "CPU:1"], axis = 0>> {
    %c = multi.copy %x : tensor<7x2xf32, #multi.on<["CPU:1"]>> -> tensor<7x2xf32, #multi.shard<["CPU:2", "CPU:0", "CPU:1"], axis = 0>>
    func.return %c : tensor<7x2xf32, #multi.shard<["CPU:2", "CPU:0", "CPU:1"], axis = 0>>
  }
}

// CHECK:      func.func @main(%{{.*}}: tensor<7x2xf32>) -> tensor<3x2xf32>
// CHECK-NOT:  devidx.fetch
// CHECK:      %[[P:.*]] = tg.pad %{{.*}} {{\[}}[0, 2], [0, 0]] invalid : tensor<7x2xf32> -> tensor<9x2xf32>
// CHECK-NEXT: %[[R:.*]] = tg.reshape %[[P]] : tensor<9x2xf32> -> tensor<3x3x2xf32>
// CHECK-NEXT: %[[B:.*]] = tg.contiguous %[[R]] : tensor<3x3x2xf32>
// CHECK-NEXT: %{{.*}} = devidx.scatter %[[B]] at %{{.*}} root 1 : tensor<3x3x2xf32> -> tensor<3x2xf32>
// CHECK-NOT:  devidx.fetch

// RUN: multi-opt %s -p multi-to-devidx | filecheck %s
// Rule: MselectToSelect
// MSELECT becomes select(d == i, x, invalid).

module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4xf32, #multi.on<["CPU:1"]>> {
    %s = multi.mselect %x[1] : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4xf32, #multi.on<["CPU:1"]>>
    func.return %s : tensor<4xf32, #multi.on<["CPU:1"]>>
  }
}

// CHECK:      func.func @main(%[[X:.*]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:   %[[D:.*]] = devidx.device_num : index
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:   %[[C:.*]] = arith.cmpi eq, %[[D]], %[[ONE]] : index
// CHECK-NEXT:   %[[INV:.*]] = devidx.invalid : tensor<4xf32>
// CHECK-NEXT:   %[[S:.*]] = arith.select %[[C]], %[[X]], %[[INV]] : tensor<4xf32>
// CHECK-NEXT:   func.return %[[S]] : tensor<4xf32>

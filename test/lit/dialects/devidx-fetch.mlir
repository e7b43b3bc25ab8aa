// RUN: multi-opt %s | multi-opt | filecheck %s

// devidx.fetch: every device receives device %src's instance of the value.

// CHECK-LABEL: func.func @from_zero(
// CHECK-SAME:      %[[X:.*]]: tensor<4x4xf32>) -> tensor<4x4xf32> {
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[FT:.*]] = devidx.fetch %[[X]] from %[[C0]] : tensor<4x4xf32>
// CHECK-NEXT:    func.return %[[FT]] : tensor<4x4xf32>
func.func @from_zero(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %c0 = arith.constant 0 : index
  %ft = devidx.fetch %x from %c0 : tensor<4x4xf32>
  func.return %ft : tensor<4x4xf32>
}

// A ring shift: device d fetches from (d + 1) mod N.
// CHECK-LABEL: func.func @ring(
// CHECK-SAME:      %[[X:.*]]: tensor<8xi32>) -> tensor<8xi32> {
// CHECK-NEXT:    %[[DN:.*]] = devidx.device_num : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:    %[[S:.*]] = arith.addi %[[DN]], %[[C1]] : index
// CHECK-NEXT:    %[[SRC:.*]] = arith.remui %[[S]], %[[C3]] : index
// CHECK-NEXT:    %[[FT:.*]] = devidx.fetch %[[X]] from %[[SRC]] : tensor<8xi32>
// CHECK-NEXT:    func.return %[[FT]] : tensor<8xi32>
func.func @ring(%x: tensor<8xi32>) -> tensor<8xi32> {
  %dn = devidx.device_num : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %s = arith.addi %dn, %c1 : index
  %src = arith.remui %s, %c3 : index
  %ft = devidx.fetch %x from %src : tensor<8xi32>
  func.return %ft : tensor<8xi32>
}

// CHECK-LABEL: func.func @bool_scalar(
// CHECK-SAME:      %[[X:.*]]: tensor<i1>, %[[SRC:.*]]: index) -> tensor<i1> {
// CHECK-NEXT:    %[[FT:.*]] = devidx.fetch %[[X]] from %[[SRC]] : tensor<i1>
// CHECK-NEXT:    func.return %[[FT]] : tensor<i1>
func.func @bool_scalar(%x: tensor<i1>, %src: index) -> tensor<i1> {
  %ft = devidx.fetch %x from %src : tensor<i1>
  func.return %ft : tensor<i1>
}

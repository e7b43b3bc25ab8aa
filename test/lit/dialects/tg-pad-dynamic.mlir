// RUN: multi-opt %s | multi-opt | filecheck %s

// tg.pad with SSA `index` bounds, alone or mixed with static ones; the result shape is static.

// CHECK-LABEL: func.func @both_dynamic(
// CHECK-SAME:      %[[X:.*]]: tensor<4x4xf32>, %[[LO:.*]]: index, %[[HI:.*]]: index) -> tensor<8x4xf32> {
// CHECK-NEXT:    %[[E:.*]] = tg.pad %[[X]] {{\[\[}}%[[LO]], %[[HI]]], [0, 0]] value 0.0 : tensor<4x4xf32> -> tensor<8x4xf32>
// CHECK-NEXT:    func.return %[[E]] : tensor<8x4xf32>
func.func @both_dynamic(%x: tensor<4x4xf32>, %lo: index, %hi: index) -> tensor<8x4xf32> {
  %e = tg.pad %x [[%lo, %hi], [0, 0]] value 0.0 : tensor<4x4xf32> -> tensor<8x4xf32>
  func.return %e : tensor<8x4xf32>
}

// CHECK-LABEL: func.func @mixed(
// CHECK-SAME:      %[[X:.*]]: tensor<4x4xi32>, %[[N:.*]]: index) -> tensor<6x7xi32> {
// CHECK-NEXT:    %[[E:.*]] = tg.pad %[[X]] {{\[\[}}2, %[[N]]], [%[[N]], 1]] value 0 : tensor<4x4xi32> -> tensor<6x7xi32>
// CHECK-NEXT:    func.return %[[E]] : tensor<6x7xi32>
func.func @mixed(%x: tensor<4x4xi32>, %n: index) -> tensor<6x7xi32> {
  %e = tg.pad %x [[2, %n], [%n, 1]] value 0 : tensor<4x4xi32> -> tensor<6x7xi32>
  func.return %e : tensor<6x7xi32>
}

// Bounds computed with arith on index, e.g. from the device number.
// CHECK-LABEL: func.func @computed(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3xf32>) -> tensor<6x3xf32> {
// CHECK-NEXT:    %[[DN:.*]] = devidx.device_num : index
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[LO:.*]] = arith.muli %[[DN]], %[[C2]] : index
// CHECK-NEXT:    %[[HI:.*]] = arith.subi %[[C4]], %[[LO]] : index
// CHECK-NEXT:    %[[E:.*]] = tg.pad %[[X]] {{\[\[}}%[[LO]], %[[HI]]], [0, 0]] invalid : tensor<2x3xf32> -> tensor<6x3xf32>
// CHECK-NEXT:    func.return %[[E]] : tensor<6x3xf32>
func.func @computed(%x: tensor<2x3xf32>) -> tensor<6x3xf32> {
  %dn = devidx.device_num : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %lo = arith.muli %dn, %c2 : index
  %hi = arith.subi %c4, %lo : index
  %e = tg.pad %x [[%lo, %hi], [0, 0]] invalid : tensor<2x3xf32> -> tensor<6x3xf32>
  func.return %e : tensor<6x3xf32>
}

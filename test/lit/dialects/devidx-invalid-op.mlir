// RUN: multi-opt %s | multi-opt | filecheck %s

// devidx.invalid: a tensor whose every lane is Invalid (no data; stored as 0).

// CHECK-LABEL: func.func @types(
// CHECK-SAME:  ) {
// CHECK-NEXT:    %[[A:.*]] = devidx.invalid : tensor<8x4xf32>
// CHECK-NEXT:    %[[B:.*]] = devidx.invalid : tensor<3xi32>
// CHECK-NEXT:    %[[C:.*]] = devidx.invalid : tensor<2x2xi1>
// CHECK-NEXT:    %[[D:.*]] = devidx.invalid : tensor<f64>
// CHECK-NEXT:    func.return
func.func @types() {
  %a = devidx.invalid : tensor<8x4xf32>
  %b = devidx.invalid : tensor<3xi32>
  %c = devidx.invalid : tensor<2x2xi1>
  %d = devidx.invalid : tensor<f64>
  func.return
}

// MSELECT after lowering: where(d == i, x, Invalid).
// CHECK-LABEL: func.func @select_or_invalid(
// CHECK-SAME:      %[[X:.*]]: tensor<4x4xf32>) -> tensor<4x4xf32> {
// CHECK-NEXT:    %[[DN:.*]] = devidx.device_num : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[IS1:.*]] = arith.cmpi eq, %[[DN]], %[[C1]] : index
// CHECK-NEXT:    %[[INV:.*]] = devidx.invalid : tensor<4x4xf32>
// CHECK-NEXT:    %[[R:.*]] = arith.select %[[IS1]], %[[X]], %[[INV]] : tensor<4x4xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<4x4xf32>
func.func @select_or_invalid(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %dn = devidx.device_num : index
  %c1 = arith.constant 1 : index
  %is1 = arith.cmpi eq, %dn, %c1 : index
  %inv = devidx.invalid : tensor<4x4xf32>
  %r = arith.select %is1, %x, %inv : tensor<4x4xf32>
  func.return %r : tensor<4x4xf32>
}

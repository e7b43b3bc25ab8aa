// RUN: multi-opt %s | multi-opt | filecheck %s

// devidx.index: entry `index` of the leading axis (past the end: Invalid).
// MSTACK after lowering is STACK(s0..sn)[d].

// CHECK-LABEL: func.func @by_device(
// CHECK-SAME:      %[[A:.*]]: tensor<4x4xf32>, %[[B:.*]]: tensor<4x4xf32>) -> tensor<4x4xf32> {
// CHECK-NEXT:    %[[ST:.*]] = devidx.stack %[[A]], %[[B]] : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<2x4x4xf32>
// CHECK-NEXT:    %[[DN:.*]] = devidx.device_num : index
// CHECK-NEXT:    %[[IX:.*]] = devidx.index %[[ST]][%[[DN]]] : tensor<2x4x4xf32> -> tensor<4x4xf32>
// CHECK-NEXT:    func.return %[[IX]] : tensor<4x4xf32>
func.func @by_device(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %st = devidx.stack %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<2x4x4xf32>
  %dn = devidx.device_num : index
  %ix = devidx.index %st[%dn] : tensor<2x4x4xf32> -> tensor<4x4xf32>
  func.return %ix : tensor<4x4xf32>
}

// CHECK-LABEL: func.func @by_constant(
// CHECK-SAME:      %[[ST:.*]]: tensor<3x2xi32>) -> tensor<2xi32> {
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[IX:.*]] = devidx.index %[[ST]][%[[C2]]] : tensor<3x2xi32> -> tensor<2xi32>
// CHECK-NEXT:    func.return %[[IX]] : tensor<2xi32>
func.func @by_constant(%st: tensor<3x2xi32>) -> tensor<2xi32> {
  %c2 = arith.constant 2 : index
  %ix = devidx.index %st[%c2] : tensor<3x2xi32> -> tensor<2xi32>
  func.return %ix : tensor<2xi32>
}

// Rank 1 source: a rank-0 result.
// CHECK-LABEL: func.func @to_scalar(
// CHECK-SAME:      %[[ST:.*]]: tensor<4xf32>, %[[I:.*]]: index) -> tensor<f32> {
// CHECK-NEXT:    %[[IX:.*]] = devidx.index %[[ST]][%[[I]]] : tensor<4xf32> -> tensor<f32>
// CHECK-NEXT:    func.return %[[IX]] : tensor<f32>
func.func @to_scalar(%st: tensor<4xf32>, %i: index) -> tensor<f32> {
  %ix = devidx.index %st[%i] : tensor<4xf32> -> tensor<f32>
  func.return %ix : tensor<f32>
}

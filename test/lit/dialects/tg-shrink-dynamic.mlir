// RUN: multi-opt %s | multi-opt | filecheck %s
// RUN: multi-opt %s --print-op-generic | multi-opt | filecheck %s

// tg.shrink with SSA `index` bounds mixed with static ones.

// CHECK-LABEL: func.func @lo_dynamic(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32>, %[[LO:.*]]: index, %[[HI:.*]]: index) -> tensor<4x4xf32> {
// CHECK-NEXT:    %[[F:.*]] = tg.shrink %[[X]] {{\[\[}}%[[LO]], %[[HI]]], [0, 4]] : tensor<8x4xf32> -> tensor<4x4xf32>
// CHECK-NEXT:    func.return %[[F]] : tensor<4x4xf32>
func.func @lo_dynamic(%x: tensor<8x4xf32>, %lo: index, %hi: index) -> tensor<4x4xf32> {
  %f = tg.shrink %x [[%lo, %hi], [0, 4]] : tensor<8x4xf32> -> tensor<4x4xf32>
  func.return %f : tensor<4x4xf32>
}

// CHECK-LABEL: func.func @mixed(
// CHECK-SAME:      %[[X:.*]]: tensor<8x8xi32>, %[[A:.*]]: index, %[[B:.*]]: index) -> tensor<3x2xi32> {
// CHECK-NEXT:    %[[F:.*]] = tg.shrink %[[X]] {{\[\[}}%[[A]], 5], [2, %[[B]]]] : tensor<8x8xi32> -> tensor<3x2xi32>
// CHECK-NEXT:    func.return %[[F]] : tensor<3x2xi32>
func.func @mixed(%x: tensor<8x8xi32>, %a: index, %b: index) -> tensor<3x2xi32> {
  %f = tg.shrink %x [[%a, 5], [2, %b]] : tensor<8x8xi32> -> tensor<3x2xi32>
  func.return %f : tensor<3x2xi32>
}

// The same SSA value used for several bounds.
// CHECK-LABEL: func.func @shared_bound(
// CHECK-SAME:      %[[X:.*]]: tensor<6x6xf32>, %[[N:.*]]: index) -> tensor<2x2xf32> {
// CHECK-NEXT:    %[[F:.*]] = tg.shrink %[[X]] {{\[\[}}%[[N]], %[[N]]], [%[[N]], %[[N]]]] : tensor<6x6xf32> -> tensor<2x2xf32>
// CHECK-NEXT:    func.return %[[F]] : tensor<2x2xf32>
func.func @shared_bound(%x: tensor<6x6xf32>, %n: index) -> tensor<2x2xf32> {
  %f = tg.shrink %x [[%n, %n], [%n, %n]] : tensor<6x6xf32> -> tensor<2x2xf32>
  func.return %f : tensor<2x2xf32>
}

// Bounds from the device number (what shrinking a shard becomes after lowering).
// CHECK-LABEL: func.func @device_window(
// CHECK-SAME:      %[[X:.*]]: tensor<8xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[DN:.*]] = devidx.device_num : index
// CHECK-NEXT:    %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT:    %[[LO:.*]] = arith.muli %[[DN]], %[[C4]] : index
// CHECK-NEXT:    %[[HI:.*]] = arith.addi %[[LO]], %[[C4]] : index
// CHECK-NEXT:    %[[F:.*]] = tg.shrink %[[X]] {{\[\[}}%[[LO]], %[[HI]]]] : tensor<8xf32> -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[F]] : tensor<4xf32>
func.func @device_window(%x: tensor<8xf32>) -> tensor<4xf32> {
  %dn = devidx.device_num : index
  %c4 = arith.constant 4 : index
  %lo = arith.muli %dn, %c4 : index
  %hi = arith.addi %lo, %c4 : index
  %f = tg.shrink %x [[%lo, %hi]] : tensor<8xf32> -> tensor<4xf32>
  func.return %f : tensor<4xf32>
}

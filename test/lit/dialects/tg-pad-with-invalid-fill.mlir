// RUN: multi-opt %s | multi-opt | filecheck %s

// tg.pad ... invalid: the padding is Invalid (no data), what MULTI becomes after lowering.

// CHECK-LABEL: func.func @f32(
// CHECK-SAME:      %[[X:.*]]: tensor<4x4xf32>) -> tensor<8x4xf32> {
// CHECK-NEXT:    %[[E:.*]] = tg.pad %[[X]] {{\[\[}}0, 4], [0, 0]] invalid : tensor<4x4xf32> -> tensor<8x4xf32>
// CHECK-NEXT:    func.return %[[E]] : tensor<8x4xf32>
func.func @f32(%x: tensor<4x4xf32>) -> tensor<8x4xf32> {
  %e = tg.pad %x [[0, 4], [0, 0]] invalid : tensor<4x4xf32> -> tensor<8x4xf32>
  func.return %e : tensor<8x4xf32>
}

// CHECK-LABEL: func.func @i32(
// CHECK-SAME:      %[[X:.*]]: tensor<3xi32>) -> tensor<7xi32> {
// CHECK-NEXT:    %[[E:.*]] = tg.pad %[[X]] {{\[\[}}2, 2]] invalid : tensor<3xi32> -> tensor<7xi32>
// CHECK-NEXT:    func.return %[[E]] : tensor<7xi32>
func.func @i32(%x: tensor<3xi32>) -> tensor<7xi32> {
  %e = tg.pad %x [[2, 2]] invalid : tensor<3xi32> -> tensor<7xi32>
  func.return %e : tensor<7xi32>
}

// CHECK-LABEL: func.func @i1(
// CHECK-SAME:      %[[X:.*]]: tensor<1x2xi1>) -> tensor<3x2xi1> {
// CHECK-NEXT:    %[[E:.*]] = tg.pad %[[X]] {{\[\[}}1, 1], [0, 0]] invalid : tensor<1x2xi1> -> tensor<3x2xi1>
// CHECK-NEXT:    func.return %[[E]] : tensor<3x2xi1>
func.func @i1(%x: tensor<1x2xi1>) -> tensor<3x2xi1> {
  %e = tg.pad %x [[1, 1], [0, 0]] invalid : tensor<1x2xi1> -> tensor<3x2xi1>
  func.return %e : tensor<3x2xi1>
}

// Invalid padding with SSA bounds on both sides (the device-dependent MULTI lowering).
// CHECK-LABEL: func.func @ssa_bounds(
// CHECK-SAME:      %[[X:.*]]: tensor<4x4xf32>, %[[LO:.*]]: index, %[[HI:.*]]: index) -> tensor<8x4xf32> {
// CHECK-NEXT:    %[[E:.*]] = tg.pad %[[X]] {{\[\[}}%[[LO]], %[[HI]]], [0, 0]] invalid : tensor<4x4xf32> -> tensor<8x4xf32>
// CHECK-NEXT:    func.return %[[E]] : tensor<8x4xf32>
func.func @ssa_bounds(%x: tensor<4x4xf32>, %lo: index, %hi: index) -> tensor<8x4xf32> {
  %e = tg.pad %x [[%lo, %hi], [0, 0]] invalid : tensor<4x4xf32> -> tensor<8x4xf32>
  func.return %e : tensor<8x4xf32>
}

// RUN: multi-opt %s | multi-opt | filecheck %s

// tg.reduce add|mul|max: reduced axes are kept as size 1.

// CHECK-LABEL: func.func @add(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32>) -> tensor<8x1xf32> {
// CHECK-NEXT:    %[[H:.*]] = tg.reduce add %[[X]] [1] : tensor<8x4xf32> -> tensor<8x1xf32>
// CHECK-NEXT:    func.return %[[H]] : tensor<8x1xf32>
func.func @add(%x: tensor<8x4xf32>) -> tensor<8x1xf32> {
  %h = tg.reduce add %x [1] : tensor<8x4xf32> -> tensor<8x1xf32>
  func.return %h : tensor<8x1xf32>
}

// CHECK-LABEL: func.func @mul(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xi32>) -> tensor<1x4xi32> {
// CHECK-NEXT:    %[[H:.*]] = tg.reduce mul %[[X]] [0] : tensor<8x4xi32> -> tensor<1x4xi32>
// CHECK-NEXT:    func.return %[[H]] : tensor<1x4xi32>
func.func @mul(%x: tensor<8x4xi32>) -> tensor<1x4xi32> {
  %h = tg.reduce mul %x [0] : tensor<8x4xi32> -> tensor<1x4xi32>
  func.return %h : tensor<1x4xi32>
}

// CHECK-LABEL: func.func @max(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3x4xf64>) -> tensor<2x1x1xf64> {
// CHECK-NEXT:    %[[H:.*]] = tg.reduce max %[[X]] [1, 2] : tensor<2x3x4xf64> -> tensor<2x1x1xf64>
// CHECK-NEXT:    func.return %[[H]] : tensor<2x1x1xf64>
func.func @max(%x: tensor<2x3x4xf64>) -> tensor<2x1x1xf64> {
  %h = tg.reduce max %x [1, 2] : tensor<2x3x4xf64> -> tensor<2x1x1xf64>
  func.return %h : tensor<2x1x1xf64>
}

// All axes, and axes listed out of order.
// CHECK-LABEL: func.func @all_axes(
// CHECK-SAME:      %[[X:.*]]: tensor<3x5xf32>) -> tensor<1x1xf32> {
// CHECK-NEXT:    %[[H:.*]] = tg.reduce add %[[X]] [1, 0] : tensor<3x5xf32> -> tensor<1x1xf32>
// CHECK-NEXT:    func.return %[[H]] : tensor<1x1xf32>
func.func @all_axes(%x: tensor<3x5xf32>) -> tensor<1x1xf32> {
  %h = tg.reduce add %x [1, 0] : tensor<3x5xf32> -> tensor<1x1xf32>
  func.return %h : tensor<1x1xf32>
}

// No axes, and a reduction over a size-1 axis: the type is unchanged (short form).
// CHECK-LABEL: func.func @trivial(
// CHECK-SAME:      %[[X:.*]]: tensor<1x5xf32>) -> (tensor<1x5xf32>, tensor<1x5xf32>) {
// CHECK-NEXT:    %[[H:.*]] = tg.reduce add %[[X]] [] : tensor<1x5xf32>
// CHECK-NEXT:    %[[I:.*]] = tg.reduce max %[[X]] [0] : tensor<1x5xf32>
// CHECK-NEXT:    func.return %[[H]], %[[I]] : tensor<1x5xf32>, tensor<1x5xf32>
func.func @trivial(%x: tensor<1x5xf32>) -> (tensor<1x5xf32>, tensor<1x5xf32>) {
  %h = tg.reduce add %x [] : tensor<1x5xf32>
  %i = tg.reduce max %x [0] : tensor<1x5xf32>
  func.return %h, %i : tensor<1x5xf32>, tensor<1x5xf32>
}

// On devices: each device reduces its own buffer.
// CHECK-LABEL: func.func @on_devices(
// CHECK-SAME:      %[[X:.*]]: tensor<4x4xi8, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4x1xi8, #multi.on<["CPU:0", "CPU:1"]>> {
// CHECK-NEXT:    %[[H:.*]] = tg.reduce max %[[X]] [1] : tensor<4x4xi8, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x1xi8, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    func.return %[[H]] : tensor<4x1xi8, #multi.on<["CPU:0", "CPU:1"]>>
func.func @on_devices(%x: tensor<4x4xi8, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4x1xi8, #multi.on<["CPU:0", "CPU:1"]>> {
  %h = tg.reduce max %x [1] : tensor<4x4xi8, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x1xi8, #multi.on<["CPU:0", "CPU:1"]>>
  func.return %h : tensor<4x1xi8, #multi.on<["CPU:0", "CPU:1"]>>
}

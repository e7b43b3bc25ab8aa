// RUN: multi-opt %s | multi-opt | filecheck %s

// tg.flip: reverse the listed axes; the type is unchanged.

// CHECK-LABEL: func.func @one_axis(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32>) -> tensor<8x4xf32> {
// CHECK-NEXT:    %[[G:.*]] = tg.flip %[[X]] [0] : tensor<8x4xf32>
// CHECK-NEXT:    func.return %[[G]] : tensor<8x4xf32>
func.func @one_axis(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %g = tg.flip %x [0] : tensor<8x4xf32>
  func.return %g : tensor<8x4xf32>
}

// CHECK-LABEL: func.func @two_axes(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3x4xi32>) -> tensor<2x3x4xi32> {
// CHECK-NEXT:    %[[G:.*]] = tg.flip %[[X]] [2, 0] : tensor<2x3x4xi32>
// CHECK-NEXT:    func.return %[[G]] : tensor<2x3x4xi32>
func.func @two_axes(%x: tensor<2x3x4xi32>) -> tensor<2x3x4xi32> {
  %g = tg.flip %x [2, 0] : tensor<2x3x4xi32>
  func.return %g : tensor<2x3x4xi32>
}

// No axes: the identity.
// CHECK-LABEL: func.func @no_axes(
// CHECK-SAME:      %[[X:.*]]: tensor<3xi1>) -> tensor<3xi1> {
// CHECK-NEXT:    %[[G:.*]] = tg.flip %[[X]] [] : tensor<3xi1>
// CHECK-NEXT:    func.return %[[G]] : tensor<3xi1>
func.func @no_axes(%x: tensor<3xi1>) -> tensor<3xi1> {
  %g = tg.flip %x [] : tensor<3xi1>
  func.return %g : tensor<3xi1>
}

// The long form `: T -> T` is accepted and printed short.
// CHECK-LABEL: func.func @long_form(
// CHECK-SAME:      %[[X:.*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[G:.*]] = tg.flip %[[X]] [0] : tensor<4xf32>
// CHECK-NEXT:    func.return %[[G]] : tensor<4xf32>
func.func @long_form(%x: tensor<4xf32>) -> tensor<4xf32> {
  %g = tg.flip %x [0] : tensor<4xf32> -> tensor<4xf32>
  func.return %g : tensor<4xf32>
}

// On devices, and a sharded value flipped off its shard axis.
// CHECK-LABEL: func.func @placed(
// CHECK-SAME:      %[[X:.*]]: tensor<2x4xf32, #multi.on<["CPU:0", "CPU:1"]>>, %[[Y:.*]]: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> (tensor<2x4xf32, #multi.on<["CPU:0", "CPU:1"]>>, tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) {
// CHECK-NEXT:    %[[G:.*]] = tg.flip %[[X]] [0, 1] : tensor<2x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    %[[H:.*]] = tg.flip %[[Y]] [1] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    func.return %[[G]], %[[H]] : tensor<2x4xf32, #multi.on<["CPU:0", "CPU:1"]>>, tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
func.func @placed(%x: tensor<2x4xf32, #multi.on<["CPU:0", "CPU:1"]>>, %y: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> (tensor<2x4xf32, #multi.on<["CPU:0", "CPU:1"]>>, tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) {
  %g = tg.flip %x [0, 1] : tensor<2x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
  %h = tg.flip %y [1] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  func.return %g, %h : tensor<2x4xf32, #multi.on<["CPU:0", "CPU:1"]>>, tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
}

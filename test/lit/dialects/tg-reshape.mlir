// RUN: multi-opt %s | multi-opt | filecheck %s

// tg.reshape: the same elements with a new shape. Unplaced and #multi.on values keep their
// encoding (each device reshapes its own buffer).

// CHECK-LABEL: func.func @flatten(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32>) -> tensor<32xf32> {
// CHECK-NEXT:    %[[A:.*]] = tg.reshape %[[X]] : tensor<8x4xf32> -> tensor<32xf32>
// CHECK-NEXT:    func.return %[[A]] : tensor<32xf32>
func.func @flatten(%x: tensor<8x4xf32>) -> tensor<32xf32> {
  %a = tg.reshape %x : tensor<8x4xf32> -> tensor<32xf32>
  func.return %a : tensor<32xf32>
}

// CHECK-LABEL: func.func @unflatten(
// CHECK-SAME:      %[[X:.*]]: tensor<32xi32>) -> tensor<2x4x4xi32> {
// CHECK-NEXT:    %[[A:.*]] = tg.reshape %[[X]] : tensor<32xi32> -> tensor<2x4x4xi32>
// CHECK-NEXT:    func.return %[[A]] : tensor<2x4x4xi32>
func.func @unflatten(%x: tensor<32xi32>) -> tensor<2x4x4xi32> {
  %a = tg.reshape %x : tensor<32xi32> -> tensor<2x4x4xi32>
  func.return %a : tensor<2x4x4xi32>
}

// Rank 0 and size-1 axes.
// CHECK-LABEL: func.func @to_scalar(
// CHECK-SAME:      %[[X:.*]]: tensor<1x1xf32>) -> tensor<f32> {
// CHECK-NEXT:    %[[A:.*]] = tg.reshape %[[X]] : tensor<1x1xf32> -> tensor<f32>
// CHECK-NEXT:    %[[B:.*]] = tg.reshape %[[A]] : tensor<f32> -> tensor<1xf32>
// CHECK-NEXT:    %[[C:.*]] = tg.reshape %[[B]] : tensor<1xf32> -> tensor<f32>
// CHECK-NEXT:    func.return %[[C]] : tensor<f32>
func.func @to_scalar(%x: tensor<1x1xf32>) -> tensor<f32> {
  %a = tg.reshape %x : tensor<1x1xf32> -> tensor<f32>
  %b = tg.reshape %a : tensor<f32> -> tensor<1xf32>
  %c = tg.reshape %b : tensor<1xf32> -> tensor<f32>
  func.return %c : tensor<f32>
}

// Same shape: the short form `: T` prints when both types are equal.
// CHECK-LABEL: func.func @same(
// CHECK-SAME:      %[[X:.*]]: tensor<4x4xf32>) -> tensor<4x4xf32> {
// CHECK-NEXT:    %[[A:.*]] = tg.reshape %[[X]] : tensor<4x4xf32>
// CHECK-NEXT:    func.return %[[A]] : tensor<4x4xf32>
func.func @same(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %a = tg.reshape %x : tensor<4x4xf32> -> tensor<4x4xf32>
  func.return %a : tensor<4x4xf32>
}

// Placed on devices: the encoding is kept.
// CHECK-LABEL: func.func @on_devices(
// CHECK-SAME:      %[[X:.*]]: tensor<4x6xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<24xf32, #multi.on<["CPU:0", "CPU:1"]>> {
// CHECK-NEXT:    %[[A:.*]] = tg.reshape %[[X]] : tensor<4x6xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<24xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    func.return %[[A]] : tensor<24xf32, #multi.on<["CPU:0", "CPU:1"]>>
func.func @on_devices(%x: tensor<4x6xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<24xf32, #multi.on<["CPU:0", "CPU:1"]>> {
  %a = tg.reshape %x : tensor<4x6xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<24xf32, #multi.on<["CPU:0", "CPU:1"]>>
  func.return %a : tensor<24xf32, #multi.on<["CPU:0", "CPU:1"]>>
}

// RUN: multi-opt %s | multi-opt | filecheck %s

// tg.permute: result axis i is operand axis order[i].

// CHECK-LABEL: func.func @transpose(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT:    %[[B:.*]] = tg.permute %[[X]] [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    func.return %[[B]] : tensor<4x8xf32>
func.func @transpose(%x: tensor<8x4xf32>) -> tensor<4x8xf32> {
  %b = tg.permute %x [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  func.return %b : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @rank3(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3x4xi32>) -> tensor<4x2x3xi32> {
// CHECK-NEXT:    %[[B:.*]] = tg.permute %[[X]] [2, 0, 1] : tensor<2x3x4xi32> -> tensor<4x2x3xi32>
// CHECK-NEXT:    func.return %[[B]] : tensor<4x2x3xi32>
func.func @rank3(%x: tensor<2x3x4xi32>) -> tensor<4x2x3xi32> {
  %b = tg.permute %x [2, 0, 1] : tensor<2x3x4xi32> -> tensor<4x2x3xi32>
  func.return %b : tensor<4x2x3xi32>
}

// The identity order prints in the short form.
// CHECK-LABEL: func.func @identity(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    %[[B:.*]] = tg.permute %[[X]] [0, 1] : tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[B]] : tensor<2x3xf32>
func.func @identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %b = tg.permute %x [0, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  func.return %b : tensor<2x3xf32>
}

// Rank 0: the empty permutation.
// CHECK-LABEL: func.func @rank0(
// CHECK-SAME:      %[[X:.*]]: tensor<f32>) -> tensor<f32> {
// CHECK-NEXT:    %[[B:.*]] = tg.permute %[[X]] [] : tensor<f32>
// CHECK-NEXT:    func.return %[[B]] : tensor<f32>
func.func @rank0(%x: tensor<f32>) -> tensor<f32> {
  %b = tg.permute %x [] : tensor<f32>
  func.return %b : tensor<f32>
}

// On devices: each device permutes its own buffer.
// CHECK-LABEL: func.func @on_devices(
// CHECK-SAME:      %[[X:.*]]: tensor<2x5xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<5x2xf32, #multi.on<["CPU:0", "CPU:1"]>> {
// CHECK-NEXT:    %[[B:.*]] = tg.permute %[[X]] [1, 0] : tensor<2x5xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<5x2xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    func.return %[[B]] : tensor<5x2xf32, #multi.on<["CPU:0", "CPU:1"]>>
func.func @on_devices(%x: tensor<2x5xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<5x2xf32, #multi.on<["CPU:0", "CPU:1"]>> {
  %b = tg.permute %x [1, 0] : tensor<2x5xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<5x2xf32, #multi.on<["CPU:0", "CPU:1"]>>
  func.return %b : tensor<5x2xf32, #multi.on<["CPU:0", "CPU:1"]>>
}

// RUN: multi-opt %s | multi-opt | filecheck %s

// tg.shrink: keep rows [lo, hi) of each axis.

// CHECK-LABEL: func.func @static(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32>) -> tensor<4x2xf32> {
// CHECK-NEXT:    %[[F:.*]] = tg.shrink %[[X]] {{\[\[}}0, 4], [1, 3]] : tensor<8x4xf32> -> tensor<4x2xf32>
// CHECK-NEXT:    func.return %[[F]] : tensor<4x2xf32>
func.func @static(%x: tensor<8x4xf32>) -> tensor<4x2xf32> {
  %f = tg.shrink %x [[0, 4], [1, 3]] : tensor<8x4xf32> -> tensor<4x2xf32>
  func.return %f : tensor<4x2xf32>
}

// Keeping everything prints in the short form; an empty range gives a size-0 axis.
// CHECK-LABEL: func.func @whole_and_empty(
// CHECK-SAME:      %[[X:.*]]: tensor<3x3xi32>) -> (tensor<3x3xi32>, tensor<0x3xi32>) {
// CHECK-NEXT:    %[[F:.*]] = tg.shrink %[[X]] {{\[\[}}0, 3], [0, 3]] : tensor<3x3xi32>
// CHECK-NEXT:    %[[G:.*]] = tg.shrink %[[X]] {{\[\[}}2, 2], [0, 3]] : tensor<3x3xi32> -> tensor<0x3xi32>
// CHECK-NEXT:    func.return %[[F]], %[[G]] : tensor<3x3xi32>, tensor<0x3xi32>
func.func @whole_and_empty(%x: tensor<3x3xi32>) -> (tensor<3x3xi32>, tensor<0x3xi32>) {
  %f = tg.shrink %x [[0, 3], [0, 3]] : tensor<3x3xi32>
  %g = tg.shrink %x [[2, 2], [0, 3]] : tensor<3x3xi32> -> tensor<0x3xi32>
  func.return %f, %g : tensor<3x3xi32>, tensor<0x3xi32>
}

// CHECK-LABEL: func.func @one_element(
// CHECK-SAME:      %[[X:.*]]: tensor<5xf64>) -> tensor<1xf64> {
// CHECK-NEXT:    %[[F:.*]] = tg.shrink %[[X]] {{\[\[}}4, 5]] : tensor<5xf64> -> tensor<1xf64>
// CHECK-NEXT:    func.return %[[F]] : tensor<1xf64>
func.func @one_element(%x: tensor<5xf64>) -> tensor<1xf64> {
  %f = tg.shrink %x [[4, 5]] : tensor<5xf64> -> tensor<1xf64>
  func.return %f : tensor<1xf64>
}

// On devices: each device shrinks its own buffer.
// CHECK-LABEL: func.func @on_devices(
// CHECK-SAME:      %[[X:.*]]: tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<2x4xf32, #multi.on<["CPU:0", "CPU:1"]>> {
// CHECK-NEXT:    %[[F:.*]] = tg.shrink %[[X]] {{\[\[}}1, 3], [0, 4]] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<2x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    func.return %[[F]] : tensor<2x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
func.func @on_devices(%x: tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<2x4xf32, #multi.on<["CPU:0", "CPU:1"]>> {
  %f = tg.shrink %x [[1, 3], [0, 4]] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<2x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
  func.return %f : tensor<2x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
}

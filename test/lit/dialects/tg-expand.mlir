// RUN: multi-opt %s | multi-opt | filecheck %s

// tg.expand: broadcast size-1 axes (same rank).

// CHECK-LABEL: func.func @rows(
// CHECK-SAME:      %[[Y:.*]]: tensor<1x4xf32>) -> tensor<8x4xf32> {
// CHECK-NEXT:    %[[C:.*]] = tg.expand %[[Y]] : tensor<1x4xf32> -> tensor<8x4xf32>
// CHECK-NEXT:    func.return %[[C]] : tensor<8x4xf32>
func.func @rows(%y: tensor<1x4xf32>) -> tensor<8x4xf32> {
  %c = tg.expand %y : tensor<1x4xf32> -> tensor<8x4xf32>
  func.return %c : tensor<8x4xf32>
}

// CHECK-LABEL: func.func @both(
// CHECK-SAME:      %[[Y:.*]]: tensor<1x1xi32>) -> tensor<3x5xi32> {
// CHECK-NEXT:    %[[C:.*]] = tg.expand %[[Y]] : tensor<1x1xi32> -> tensor<3x5xi32>
// CHECK-NEXT:    func.return %[[C]] : tensor<3x5xi32>
func.func @both(%y: tensor<1x1xi32>) -> tensor<3x5xi32> {
  %c = tg.expand %y : tensor<1x1xi32> -> tensor<3x5xi32>
  func.return %c : tensor<3x5xi32>
}

// Expanding nothing is allowed and prints in the short form.
// CHECK-LABEL: func.func @nothing(
// CHECK-SAME:      %[[Y:.*]]: tensor<2x2xf32>) -> tensor<2x2xf32> {
// CHECK-NEXT:    %[[C:.*]] = tg.expand %[[Y]] : tensor<2x2xf32>
// CHECK-NEXT:    func.return %[[C]] : tensor<2x2xf32>
func.func @nothing(%y: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %c = tg.expand %y : tensor<2x2xf32>
  func.return %c : tensor<2x2xf32>
}

// On devices: each device expands its own buffer.
// CHECK-LABEL: func.func @on_devices(
// CHECK-SAME:      %[[Y:.*]]: tensor<4x1xi1, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4x6xi1, #multi.on<["CPU:0", "CPU:1"]>> {
// CHECK-NEXT:    %[[C:.*]] = tg.expand %[[Y]] : tensor<4x1xi1, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x6xi1, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    func.return %[[C]] : tensor<4x6xi1, #multi.on<["CPU:0", "CPU:1"]>>
func.func @on_devices(%y: tensor<4x1xi1, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4x6xi1, #multi.on<["CPU:0", "CPU:1"]>> {
  %c = tg.expand %y : tensor<4x1xi1, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x6xi1, #multi.on<["CPU:0", "CPU:1"]>>
  func.return %c : tensor<4x6xi1, #multi.on<["CPU:0", "CPU:1"]>>
}

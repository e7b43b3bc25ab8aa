// RUN: multi-opt %s | multi-opt | filecheck %s

// multi.copy between many-device #multi.on values with the same number of devices: buffer i
// moves to device i of the result (a permutation of buffers, no broadcast).

// Swap two devices.
// CHECK-LABEL: func.func @swap(
// CHECK-SAME:      %[[X:.*]]: tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4x4xf32, #multi.on<["CPU:1", "CPU:0"]>> {
// CHECK-NEXT:    %[[C:.*]] = multi.copy %[[X]] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x4xf32, #multi.on<["CPU:1", "CPU:0"]>>
// CHECK-NEXT:    func.return %[[C]] : tensor<4x4xf32, #multi.on<["CPU:1", "CPU:0"]>>
func.func @swap(%x: tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4x4xf32, #multi.on<["CPU:1", "CPU:0"]>> {
  %c = multi.copy %x : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x4xf32, #multi.on<["CPU:1", "CPU:0"]>>
  func.return %c : tensor<4x4xf32, #multi.on<["CPU:1", "CPU:0"]>>
}

// Rotate three devices.
// CHECK-LABEL: func.func @rotate(
// CHECK-SAME:      %[[X:.*]]: tensor<6xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>) -> tensor<6xi32, #multi.on<["CPU:1", "CPU:2", "CPU:0"]>> {
// CHECK-NEXT:    %[[C:.*]] = multi.copy %[[X]] : tensor<6xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<6xi32, #multi.on<["CPU:1", "CPU:2", "CPU:0"]>>
// CHECK-NEXT:    func.return %[[C]] : tensor<6xi32, #multi.on<["CPU:1", "CPU:2", "CPU:0"]>>
func.func @rotate(%x: tensor<6xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>) -> tensor<6xi32, #multi.on<["CPU:1", "CPU:2", "CPU:0"]>> {
  %c = multi.copy %x : tensor<6xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<6xi32, #multi.on<["CPU:1", "CPU:2", "CPU:0"]>>
  func.return %c : tensor<6xi32, #multi.on<["CPU:1", "CPU:2", "CPU:0"]>>
}

// To a disjoint set of devices of the same size.
// CHECK-LABEL: func.func @disjoint(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3xf16, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<2x3xf16, #multi.on<["GPU:0", "GPU:1"]>> {
// CHECK-NEXT:    %[[C:.*]] = multi.copy %[[X]] : tensor<2x3xf16, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<2x3xf16, #multi.on<["GPU:0", "GPU:1"]>>
// CHECK-NEXT:    func.return %[[C]] : tensor<2x3xf16, #multi.on<["GPU:0", "GPU:1"]>>
func.func @disjoint(%x: tensor<2x3xf16, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<2x3xf16, #multi.on<["GPU:0", "GPU:1"]>> {
  %c = multi.copy %x : tensor<2x3xf16, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<2x3xf16, #multi.on<["GPU:0", "GPU:1"]>>
  func.return %c : tensor<2x3xf16, #multi.on<["GPU:0", "GPU:1"]>>
}

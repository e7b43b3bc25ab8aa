// RUN: multi-opt %s | multi-opt | filecheck %s

// multi.copy from a many-device #multi.on value to #multi.shard on the SAME device list (same
// names, same order): every device keeps the slice of its own buffer, no traffic.

// CHECK-LABEL: func.func @keep_slice(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
// CHECK-NEXT:    %[[C:.*]] = multi.copy %[[X]] : tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    func.return %[[C]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
func.func @keep_slice(%x: tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
  %c = multi.copy %x : tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  func.return %c : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
}

// On axis 1, uneven (5 columns over 3 devices: 2, 2, 1).
// CHECK-LABEL: func.func @keep_slice_axis1_uneven(
// CHECK-SAME:      %[[X:.*]]: tensor<3x5xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>) -> tensor<3x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>> {
// CHECK-NEXT:    %[[C:.*]] = multi.copy %[[X]] : tensor<3x5xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<3x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>
// CHECK-NEXT:    func.return %[[C]] : tensor<3x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>
func.func @keep_slice_axis1_uneven(%x: tensor<3x5xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>) -> tensor<3x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>> {
  %c = multi.copy %x : tensor<3x5xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<3x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>
  func.return %c : tensor<3x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>
}

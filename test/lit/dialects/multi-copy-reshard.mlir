// RUN: multi-opt %s | multi-opt | filecheck %s

// multi.copy from #multi.shard to #multi.shard: a reshard (each device gets its slice of the
// logical value under the new split).

// Shard axis 0 -> shard axis 1 on the same devices.
// CHECK-LABEL: func.func @axis0_to_axis1(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> {
// CHECK-NEXT:    %[[C:.*]] = multi.copy %[[X]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// CHECK-NEXT:    func.return %[[C]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
func.func @axis0_to_axis1(%x: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> {
  %c = multi.copy %x : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
  func.return %c : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
}

// Two devices -> three devices on the same axis (8 rows: 4, 4 -> 3, 3, 2).
// CHECK-LABEL: func.func @two_to_three(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> {
// CHECK-NEXT:    %[[C:.*]] = multi.copy %[[X]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK-NEXT:    func.return %[[C]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
func.func @two_to_three(%x: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> {
  %c = multi.copy %x : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  func.return %c : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
}

// Same split, devices reordered.
// CHECK-LABEL: func.func @reorder(
// CHECK-SAME:      %[[X:.*]]: tensor<6xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<6xi32, #multi.shard<["CPU:1", "CPU:0"], axis = 0>> {
// CHECK-NEXT:    %[[C:.*]] = multi.copy %[[X]] : tensor<6xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<6xi32, #multi.shard<["CPU:1", "CPU:0"], axis = 0>>
// CHECK-NEXT:    func.return %[[C]] : tensor<6xi32, #multi.shard<["CPU:1", "CPU:0"], axis = 0>>
func.func @reorder(%x: tensor<6xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<6xi32, #multi.shard<["CPU:1", "CPU:0"], axis = 0>> {
  %c = multi.copy %x : tensor<6xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<6xi32, #multi.shard<["CPU:1", "CPU:0"], axis = 0>>
  func.return %c : tensor<6xi32, #multi.shard<["CPU:1", "CPU:0"], axis = 0>>
}

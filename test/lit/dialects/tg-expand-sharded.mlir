// RUN: multi-opt %s | multi-opt | filecheck %s

// tg.expand of a sharded value: rank and shard axis are kept; only other axes expand.

// CHECK-LABEL: func.func @off_axis(
// CHECK-SAME:      %[[Y:.*]]: tensor<8x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
// CHECK-NEXT:    %[[C:.*]] = tg.expand %[[Y]] : tensor<8x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    func.return %[[C]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
func.func @off_axis(%y: tensor<8x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
  %c = tg.expand %y : tensor<8x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  func.return %c : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
}

// Uneven split, shard axis 1, expanding axes 0 and 2.
// CHECK-LABEL: func.func @uneven(
// CHECK-SAME:      %[[Y:.*]]: tensor<1x7x1xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>) -> tensor<2x7x3xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>> {
// CHECK-NEXT:    %[[C:.*]] = tg.expand %[[Y]] : tensor<1x7x1xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>> -> tensor<2x7x3xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>
// CHECK-NEXT:    func.return %[[C]] : tensor<2x7x3xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>
func.func @uneven(%y: tensor<1x7x1xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>) -> tensor<2x7x3xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>> {
  %c = tg.expand %y : tensor<1x7x1xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>> -> tensor<2x7x3xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>
  func.return %c : tensor<2x7x3xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>
}

// A size-1 shard axis that stays size 1.
// CHECK-LABEL: func.func @unit_shard_axis(
// CHECK-SAME:      %[[Y:.*]]: tensor<1x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<1x5xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
// CHECK-NEXT:    %[[C:.*]] = tg.expand %[[Y]] : tensor<1x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<1x5xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    func.return %[[C]] : tensor<1x5xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
func.func @unit_shard_axis(%y: tensor<1x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<1x5xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
  %c = tg.expand %y : tensor<1x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<1x5xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  func.return %c : tensor<1x5xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
}

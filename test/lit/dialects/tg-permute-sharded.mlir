// RUN: multi-opt %s | multi-opt | filecheck %s

// tg.permute of a sharded value: the shard axis moves with its data (new axis =
// position of the old axis in `order`).

// CHECK-LABEL: func.func @axis0_to_1(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<4x8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> {
// CHECK-NEXT:    %[[B:.*]] = tg.permute %[[X]] [1, 0] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<4x8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// CHECK-NEXT:    func.return %[[B]] : tensor<4x8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
func.func @axis0_to_1(%x: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<4x8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> {
  %b = tg.permute %x [1, 0] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<4x8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
  func.return %b : tensor<4x8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
}

// Axis 1 of a rank-3 value under [2, 0, 1] ends up at position 2.
// CHECK-LABEL: func.func @rank3(
// CHECK-SAME:      %[[X:.*]]: tensor<2x7x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>) -> tensor<4x2x7xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 2>> {
// CHECK-NEXT:    %[[B:.*]] = tg.permute %[[X]] [2, 0, 1] : tensor<2x7x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>> -> tensor<4x2x7xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 2>>
// CHECK-NEXT:    func.return %[[B]] : tensor<4x2x7xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 2>>
func.func @rank3(%x: tensor<2x7x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>) -> tensor<4x2x7xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 2>> {
  %b = tg.permute %x [2, 0, 1] : tensor<2x7x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>> -> tensor<4x2x7xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 2>>
  func.return %b : tensor<4x2x7xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 2>>
}

// Axes other than the shard axis move; the shard axis stays put.
// CHECK-LABEL: func.func @axis_stays(
// CHECK-SAME:      %[[X:.*]]: tensor<2x6x3xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>) -> tensor<3x6x2xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> {
// CHECK-NEXT:    %[[B:.*]] = tg.permute %[[X]] [2, 1, 0] : tensor<2x6x3xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> -> tensor<3x6x2xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// CHECK-NEXT:    func.return %[[B]] : tensor<3x6x2xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
func.func @axis_stays(%x: tensor<2x6x3xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>) -> tensor<3x6x2xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> {
  %b = tg.permute %x [2, 1, 0] : tensor<2x6x3xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> -> tensor<3x6x2xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
  func.return %b : tensor<3x6x2xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
}

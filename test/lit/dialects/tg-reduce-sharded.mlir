// RUN: multi-opt %s | multi-opt | filecheck %s

// tg.reduce of a sharded value: over the shard axis it is a local reduce plus an allreduce,
// so the result is #multi.on on the operand's devices; otherwise the shard is kept.

// CHECK-LABEL: func.func @over_shard_axis(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<1x4xf32, #multi.on<["CPU:0", "CPU:1"]>> {
// CHECK-NEXT:    %[[H:.*]] = tg.reduce add %[[X]] [0] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<1x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    func.return %[[H]] : tensor<1x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
func.func @over_shard_axis(%x: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<1x4xf32, #multi.on<["CPU:0", "CPU:1"]>> {
  %h = tg.reduce add %x [0] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<1x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
  func.return %h : tensor<1x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
}

// CHECK-LABEL: func.func @off_shard_axis(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<8x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
// CHECK-NEXT:    %[[H:.*]] = tg.reduce max %[[X]] [1] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    func.return %[[H]] : tensor<8x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
func.func @off_shard_axis(%x: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<8x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
  %h = tg.reduce max %x [1] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  func.return %h : tensor<8x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
}

// All axes, uneven split (7 over 3): includes the shard axis, so #multi.on.
// CHECK-LABEL: func.func @all_axes_uneven(
// CHECK-SAME:      %[[X:.*]]: tensor<7x3xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>) -> tensor<1x1xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> {
// CHECK-NEXT:    %[[H:.*]] = tg.reduce mul %[[X]] [0, 1] : tensor<7x3xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<1x1xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
// CHECK-NEXT:    func.return %[[H]] : tensor<1x1xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
func.func @all_axes_uneven(%x: tensor<7x3xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>) -> tensor<1x1xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> {
  %h = tg.reduce mul %x [0, 1] : tensor<7x3xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<1x1xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
  func.return %h : tensor<1x1xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
}

// Shard axis 1, reduced: the device order of the result is the operand's.
// CHECK-LABEL: func.func @axis1(
// CHECK-SAME:      %[[X:.*]]: tensor<2x6xf32, #multi.shard<["CPU:1", "CPU:0"], axis = 1>>) -> tensor<2x1xf32, #multi.on<["CPU:1", "CPU:0"]>> {
// CHECK-NEXT:    %[[H:.*]] = tg.reduce max %[[X]] [1] : tensor<2x6xf32, #multi.shard<["CPU:1", "CPU:0"], axis = 1>> -> tensor<2x1xf32, #multi.on<["CPU:1", "CPU:0"]>>
// CHECK-NEXT:    func.return %[[H]] : tensor<2x1xf32, #multi.on<["CPU:1", "CPU:0"]>>
func.func @axis1(%x: tensor<2x6xf32, #multi.shard<["CPU:1", "CPU:0"], axis = 1>>) -> tensor<2x1xf32, #multi.on<["CPU:1", "CPU:0"]>> {
  %h = tg.reduce max %x [1] : tensor<2x6xf32, #multi.shard<["CPU:1", "CPU:0"], axis = 1>> -> tensor<2x1xf32, #multi.on<["CPU:1", "CPU:0"]>>
  func.return %h : tensor<2x1xf32, #multi.on<["CPU:1", "CPU:0"]>>
}

// RUN: multi-opt %s | multi-opt | filecheck %s

// tg.pad of a sharded value: padding off the shard axis keeps the encoding; the shard axis
// takes only static [0, 0].

// CHECK-LABEL: func.func @off_axis(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
// CHECK-NEXT:    %[[D:.*]] = tg.pad %[[X]] {{\[\[}}0, 0], [1, 1]] value 0.0 : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    func.return %[[D]] : tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
func.func @off_axis(%x: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
  %d = tg.pad %x [[0, 0], [1, 1]] value 0.0 : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  func.return %d : tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
}

// SSA bounds are fine off the shard axis.
// CHECK-LABEL: func.func @off_axis_ssa(
// CHECK-SAME:      %[[X:.*]]: tensor<7x4xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>, %[[N:.*]]: index) -> tensor<7x8xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> {
// CHECK-NEXT:    %[[D:.*]] = tg.pad %[[X]] {{\[\[}}0, 0], [%[[N]], %[[N]]]] invalid : tensor<7x4xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<7x8xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK-NEXT:    func.return %[[D]] : tensor<7x8xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
func.func @off_axis_ssa(%x: tensor<7x4xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>, %n: index) -> tensor<7x8xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> {
  %d = tg.pad %x [[0, 0], [%n, %n]] invalid : tensor<7x4xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<7x8xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  func.return %d : tensor<7x8xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
}

// Shard axis 1, padding axis 0 with a bool fill.
// CHECK-LABEL: func.func @axis1_bool(
// CHECK-SAME:      %[[X:.*]]: tensor<2x6xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>) -> tensor<3x6xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> {
// CHECK-NEXT:    %[[D:.*]] = tg.pad %[[X]] {{\[\[}}1, 0], [0, 0]] value false : tensor<2x6xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> -> tensor<3x6xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// CHECK-NEXT:    func.return %[[D]] : tensor<3x6xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
func.func @axis1_bool(%x: tensor<2x6xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>) -> tensor<3x6xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> {
  %d = tg.pad %x [[1, 0], [0, 0]] value false : tensor<2x6xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> -> tensor<3x6xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
  func.return %d : tensor<3x6xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
}

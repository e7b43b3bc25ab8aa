// RUN: multi-opt %s | multi-opt | filecheck %s

// tg.shrink of a sharded value: off the shard axis anything goes (the encoding is kept); on
// the shard axis the bounds are static and either keep the whole axis (the encoding is kept)
// or select exactly one non-empty shard (the result is that shard on every device, #multi.on).

// Shrinking another axis keeps the shard.
// CHECK-LABEL: func.func @off_axis(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<8x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
// CHECK-NEXT:    %[[F:.*]] = tg.shrink %[[X]] {{\[\[}}0, 8], [1, 3]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    func.return %[[F]] : tensor<8x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
func.func @off_axis(%x: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<8x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
  %f = tg.shrink %x [[0, 8], [1, 3]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  func.return %f : tensor<8x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
}

// SSA bounds off the shard axis.
// CHECK-LABEL: func.func @off_axis_ssa(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, %[[LO:.*]]: index, %[[HI:.*]]: index) -> tensor<8x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
// CHECK-NEXT:    %[[F:.*]] = tg.shrink %[[X]] {{\[\[}}0, 8], [%[[LO]], %[[HI]]]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    func.return %[[F]] : tensor<8x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
func.func @off_axis_ssa(%x: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, %lo: index, %hi: index) -> tensor<8x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
  %f = tg.shrink %x [[0, 8], [%lo, %hi]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  func.return %f : tensor<8x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
}

// Selecting device 1's shard [4, 8) of an even split.
// CHECK-LABEL: func.func @select_shard(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> {
// CHECK-NEXT:    %[[F:.*]] = tg.shrink %[[X]] {{\[\[}}4, 8], [0, 4]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    func.return %[[F]] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
func.func @select_shard(%x: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> {
  %f = tg.shrink %x [[4, 8], [0, 4]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
  func.return %f : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
}

// 7 rows over 3 devices: shards [0, 3), [3, 6), [6, 7); selecting the middle and the short one.
// CHECK-LABEL: func.func @select_uneven(
// CHECK-SAME:      %[[X:.*]]: tensor<7x2xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>) -> (tensor<3x2xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>, tensor<1x2xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>) {
// CHECK-NEXT:    %[[F:.*]] = tg.shrink %[[X]] {{\[\[}}3, 6], [0, 2]] : tensor<7x2xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<3x2xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
// CHECK-NEXT:    %[[G:.*]] = tg.shrink %[[X]] {{\[\[}}6, 7], [0, 2]] : tensor<7x2xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<1x2xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
// CHECK-NEXT:    func.return %[[F]], %[[G]] : tensor<3x2xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>, tensor<1x2xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
func.func @select_uneven(%x: tensor<7x2xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>) -> (tensor<3x2xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>, tensor<1x2xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>) {
  %f = tg.shrink %x [[3, 6], [0, 2]] : tensor<7x2xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<3x2xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
  %g = tg.shrink %x [[6, 7], [0, 2]] : tensor<7x2xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<1x2xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
  func.return %f, %g : tensor<3x2xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>, tensor<1x2xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
}

// 4 rows over 3 devices: shards [0, 2), [2, 4), [4, 4) (empty); select the second.
// CHECK-LABEL: func.func @select_4_over_3(
// CHECK-SAME:      %[[X:.*]]: tensor<4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>) -> tensor<2xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> {
// CHECK-NEXT:    %[[F:.*]] = tg.shrink %[[X]] {{\[\[}}2, 4]] : tensor<4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<2xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
// CHECK-NEXT:    func.return %[[F]] : tensor<2xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
func.func @select_4_over_3(%x: tensor<4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>) -> tensor<2xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> {
  %f = tg.shrink %x [[2, 4]] : tensor<4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<2xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
  func.return %f : tensor<2xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
}

// Shard axis 1, selecting device 0's columns and shrinking axis 0 too.
// CHECK-LABEL: func.func @select_axis1(
// CHECK-SAME:      %[[X:.*]]: tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>) -> tensor<2x3xf32, #multi.on<["CPU:0", "CPU:1"]>> {
// CHECK-NEXT:    %[[F:.*]] = tg.shrink %[[X]] {{\[\[}}1, 3], [0, 3]] : tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> -> tensor<2x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    func.return %[[F]] : tensor<2x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
func.func @select_axis1(%x: tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>) -> tensor<2x3xf32, #multi.on<["CPU:0", "CPU:1"]>> {
  %f = tg.shrink %x [[1, 3], [0, 3]] : tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> -> tensor<2x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
  func.return %f : tensor<2x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
}

// One device: [0, L) is both the whole axis and the one shard; the whole axis wins.
// CHECK-LABEL: func.func @whole_wins(
// CHECK-SAME:      %[[X:.*]]: tensor<4x2xf32, #multi.shard<["CPU:0"], axis = 0>>) -> tensor<4x1xf32, #multi.shard<["CPU:0"], axis = 0>> {
// CHECK-NEXT:    %[[F:.*]] = tg.shrink %[[X]] {{\[\[}}0, 4], [0, 1]] : tensor<4x2xf32, #multi.shard<["CPU:0"], axis = 0>> -> tensor<4x1xf32, #multi.shard<["CPU:0"], axis = 0>>
// CHECK-NEXT:    func.return %[[F]] : tensor<4x1xf32, #multi.shard<["CPU:0"], axis = 0>>
func.func @whole_wins(%x: tensor<4x2xf32, #multi.shard<["CPU:0"], axis = 0>>) -> tensor<4x1xf32, #multi.shard<["CPU:0"], axis = 0>> {
  %f = tg.shrink %x [[0, 4], [0, 1]] : tensor<4x2xf32, #multi.shard<["CPU:0"], axis = 0>> -> tensor<4x1xf32, #multi.shard<["CPU:0"], axis = 0>>
  func.return %f : tensor<4x1xf32, #multi.shard<["CPU:0"], axis = 0>>
}

// RUN: multi-opt %s | multi-opt | filecheck %s

// tg.contiguous: a materialization point; the type is unchanged, whatever the encoding.

// CHECK-LABEL: func.func @unplaced(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32>) -> tensor<8x4xf32> {
// CHECK-NEXT:    %[[I:.*]] = tg.contiguous %[[X]] : tensor<8x4xf32>
// CHECK-NEXT:    func.return %[[I]] : tensor<8x4xf32>
func.func @unplaced(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %i = tg.contiguous %x : tensor<8x4xf32>
  func.return %i : tensor<8x4xf32>
}

// CHECK-LABEL: func.func @on_devices(
// CHECK-SAME:      %[[X:.*]]: tensor<3xi32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<3xi32, #multi.on<["CPU:0", "CPU:1"]>> {
// CHECK-NEXT:    %[[I:.*]] = tg.contiguous %[[X]] : tensor<3xi32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    func.return %[[I]] : tensor<3xi32, #multi.on<["CPU:0", "CPU:1"]>>
func.func @on_devices(%x: tensor<3xi32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<3xi32, #multi.on<["CPU:0", "CPU:1"]>> {
  %i = tg.contiguous %x : tensor<3xi32, #multi.on<["CPU:0", "CPU:1"]>>
  func.return %i : tensor<3xi32, #multi.on<["CPU:0", "CPU:1"]>>
}

// CHECK-LABEL: func.func @sharded(
// CHECK-SAME:      %[[X:.*]]: tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>) -> tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> {
// CHECK-NEXT:    %[[I:.*]] = tg.contiguous %[[X]] : tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK-NEXT:    func.return %[[I]] : tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
func.func @sharded(%x: tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>) -> tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> {
  %i = tg.contiguous %x : tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  func.return %i : tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
}

// Rank 0 and bool.
// CHECK-LABEL: func.func @scalar_bool(
// CHECK-SAME:      %[[X:.*]]: tensor<i1>) -> tensor<i1> {
// CHECK-NEXT:    %[[I:.*]] = tg.contiguous %[[X]] : tensor<i1>
// CHECK-NEXT:    func.return %[[I]] : tensor<i1>
func.func @scalar_bool(%x: tensor<i1>) -> tensor<i1> {
  %i = tg.contiguous %x : tensor<i1>
  func.return %i : tensor<i1>
}

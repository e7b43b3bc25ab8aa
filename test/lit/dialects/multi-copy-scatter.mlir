// RUN: multi-opt %s | multi-opt | filecheck %s

// multi.copy to #multi.shard: each device gets its slice of the source's logical value.

// Scatter from one device, even split.
// CHECK-LABEL: func.func @scatter(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32, #multi.on<["CPU:0"]>>) -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
// CHECK-NEXT:    %[[C:.*]] = multi.copy %[[X]] : tensor<8x4xf32, #multi.on<["CPU:0"]>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    func.return %[[C]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
func.func @scatter(%x: tensor<8x4xf32, #multi.on<["CPU:0"]>>) -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
  %c = multi.copy %x : tensor<8x4xf32, #multi.on<["CPU:0"]>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  func.return %c : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
}

// Scatter 7 rows over 3 devices (3, 3, 1 rows).
// CHECK-LABEL: func.func @scatter_uneven(
// CHECK-SAME:      %[[X:.*]]: tensor<7x2xi32, #multi.on<["CPU:0"]>>) -> tensor<7x2xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> {
// CHECK-NEXT:    %[[C:.*]] = multi.copy %[[X]] : tensor<7x2xi32, #multi.on<["CPU:0"]>> -> tensor<7x2xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK-NEXT:    func.return %[[C]] : tensor<7x2xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
func.func @scatter_uneven(%x: tensor<7x2xi32, #multi.on<["CPU:0"]>>) -> tensor<7x2xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> {
  %c = multi.copy %x : tensor<7x2xi32, #multi.on<["CPU:0"]>> -> tensor<7x2xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  func.return %c : tensor<7x2xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
}

// Scatter 4 rows over 3 devices (2, 2, 0 rows).
// CHECK-LABEL: func.func @scatter_empty_shard(
// CHECK-SAME:      %[[X:.*]]: tensor<4xf32, #multi.on<["CPU:0"]>>) -> tensor<4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> {
// CHECK-NEXT:    %[[C:.*]] = multi.copy %[[X]] : tensor<4xf32, #multi.on<["CPU:0"]>> -> tensor<4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK-NEXT:    func.return %[[C]] : tensor<4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
func.func @scatter_empty_shard(%x: tensor<4xf32, #multi.on<["CPU:0"]>>) -> tensor<4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> {
  %c = multi.copy %x : tensor<4xf32, #multi.on<["CPU:0"]>> -> tensor<4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  func.return %c : tensor<4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
}

// A many-device source on a DIFFERENT device list scatters its first buffer.
// CHECK-LABEL: func.func @scatter_first_buffer(
// CHECK-SAME:      %[[X:.*]]: tensor<8xf32, #multi.on<["CPU:1", "CPU:0"]>>) -> tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
// CHECK-NEXT:    %[[C:.*]] = multi.copy %[[X]] : tensor<8xf32, #multi.on<["CPU:1", "CPU:0"]>> -> tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    func.return %[[C]] : tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
func.func @scatter_first_buffer(%x: tensor<8xf32, #multi.on<["CPU:1", "CPU:0"]>>) -> tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
  %c = multi.copy %x : tensor<8xf32, #multi.on<["CPU:1", "CPU:0"]>> -> tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  func.return %c : tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
}

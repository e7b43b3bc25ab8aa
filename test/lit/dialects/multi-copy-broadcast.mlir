// RUN: multi-opt %s | multi-opt | filecheck %s

// multi.copy to #multi.on on many devices: the source's logical value on each of them
// (broadcast, all-gather).

// Broadcast from one device.
// CHECK-LABEL: func.func @broadcast(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32, #multi.on<["CPU:0"]>>) -> tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> {
// CHECK-NEXT:    %[[C:.*]] = multi.copy %[[X]] : tensor<8x4xf32, #multi.on<["CPU:0"]>> -> tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
// CHECK-NEXT:    func.return %[[C]] : tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
func.func @broadcast(%x: tensor<8x4xf32, #multi.on<["CPU:0"]>>) -> tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> {
  %c = multi.copy %x : tensor<8x4xf32, #multi.on<["CPU:0"]>> -> tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
  func.return %c : tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
}

// All-gather: every device gets the full logical tensor of a sharded value.
// CHECK-LABEL: func.func @all_gather(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>) -> tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>> {
// CHECK-NEXT:    %[[C:.*]] = multi.copy %[[X]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> -> tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    func.return %[[C]] : tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
func.func @all_gather(%x: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>) -> tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>> {
  %c = multi.copy %x : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> -> tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
  func.return %c : tensor<8x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
}

// Many devices to a different number of devices: the first buffer, broadcast.
// CHECK-LABEL: func.func @first_buffer_to_three(
// CHECK-SAME:      %[[X:.*]]: tensor<4xi1, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4xi1, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> {
// CHECK-NEXT:    %[[C:.*]] = multi.copy %[[X]] : tensor<4xi1, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4xi1, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
// CHECK-NEXT:    func.return %[[C]] : tensor<4xi1, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
func.func @first_buffer_to_three(%x: tensor<4xi1, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4xi1, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> {
  %c = multi.copy %x : tensor<4xi1, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4xi1, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
  func.return %c : tensor<4xi1, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
}

// RUN: multi-opt %s | multi-opt | filecheck %s

// multi.copy to ONE device: the source's logical value placed there (transfer or gather).

// Transfer between two single devices.
// CHECK-LABEL: func.func @transfer(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32, #multi.on<["CPU:0"]>>) -> tensor<8x4xf32, #multi.on<["CPU:1"]>> {
// CHECK-NEXT:    %[[C:.*]] = multi.copy %[[X]] : tensor<8x4xf32, #multi.on<["CPU:0"]>> -> tensor<8x4xf32, #multi.on<["CPU:1"]>>
// CHECK-NEXT:    func.return %[[C]] : tensor<8x4xf32, #multi.on<["CPU:1"]>>
func.func @transfer(%x: tensor<8x4xf32, #multi.on<["CPU:0"]>>) -> tensor<8x4xf32, #multi.on<["CPU:1"]>> {
  %c = multi.copy %x : tensor<8x4xf32, #multi.on<["CPU:0"]>> -> tensor<8x4xf32, #multi.on<["CPU:1"]>>
  func.return %c : tensor<8x4xf32, #multi.on<["CPU:1"]>>
}

// Gather: a sharded value's full tensor onto one device (the shard type holds the logical shape).
// CHECK-LABEL: func.func @gather(
// CHECK-SAME:      %[[X:.*]]: tensor<7x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>) -> tensor<7x4xf32, #multi.on<["CPU:0"]>> {
// CHECK-NEXT:    %[[C:.*]] = multi.copy %[[X]] : tensor<7x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<7x4xf32, #multi.on<["CPU:0"]>>
// CHECK-NEXT:    func.return %[[C]] : tensor<7x4xf32, #multi.on<["CPU:0"]>>
func.func @gather(%x: tensor<7x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>) -> tensor<7x4xf32, #multi.on<["CPU:0"]>> {
  %c = multi.copy %x : tensor<7x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<7x4xf32, #multi.on<["CPU:0"]>>
  func.return %c : tensor<7x4xf32, #multi.on<["CPU:0"]>>
}

// A many-device #multi.on source copies its FIRST device's buffer (tinygrad's copy-to-one).
// CHECK-LABEL: func.func @first_buffer(
// CHECK-SAME:      %[[X:.*]]: tensor<4xi32, #multi.on<["CPU:1", "CPU:2"]>>) -> tensor<4xi32, #multi.on<["CPU:0"]>> {
// CHECK-NEXT:    %[[C:.*]] = multi.copy %[[X]] : tensor<4xi32, #multi.on<["CPU:1", "CPU:2"]>> -> tensor<4xi32, #multi.on<["CPU:0"]>>
// CHECK-NEXT:    func.return %[[C]] : tensor<4xi32, #multi.on<["CPU:0"]>>
func.func @first_buffer(%x: tensor<4xi32, #multi.on<["CPU:1", "CPU:2"]>>) -> tensor<4xi32, #multi.on<["CPU:0"]>> {
  %c = multi.copy %x : tensor<4xi32, #multi.on<["CPU:1", "CPU:2"]>> -> tensor<4xi32, #multi.on<["CPU:0"]>>
  func.return %c : tensor<4xi32, #multi.on<["CPU:0"]>>
}

// Copy to the same device is allowed (a materialized copy).
// CHECK-LABEL: func.func @same_device(
// CHECK-SAME:      %[[X:.*]]: tensor<2x2xf64, #multi.on<["CPU:0"]>>) -> tensor<2x2xf64, #multi.on<["CPU:0"]>> {
// CHECK-NEXT:    %[[C:.*]] = multi.copy %[[X]] : tensor<2x2xf64, #multi.on<["CPU:0"]>> -> tensor<2x2xf64, #multi.on<["CPU:0"]>>
// CHECK-NEXT:    func.return %[[C]] : tensor<2x2xf64, #multi.on<["CPU:0"]>>
func.func @same_device(%x: tensor<2x2xf64, #multi.on<["CPU:0"]>>) -> tensor<2x2xf64, #multi.on<["CPU:0"]>> {
  %c = multi.copy %x : tensor<2x2xf64, #multi.on<["CPU:0"]>> -> tensor<2x2xf64, #multi.on<["CPU:0"]>>
  func.return %c : tensor<2x2xf64, #multi.on<["CPU:0"]>>
}

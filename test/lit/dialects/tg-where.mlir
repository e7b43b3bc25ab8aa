// RUN: multi-opt %s | multi-opt | filecheck %s

// tg.where: elementwise select by an i1 condition; condition, values and result share shape
// and encoding.

// CHECK-LABEL: func.func @f32(
// CHECK-SAME:      %[[C:.*]]: tensor<8x4xi1>, %[[X:.*]]: tensor<8x4xf32>, %[[Y:.*]]: tensor<8x4xf32>) -> tensor<8x4xf32> {
// CHECK-NEXT:    %[[K:.*]] = tg.where %[[C]], %[[X]], %[[Y]] : tensor<8x4xi1>, tensor<8x4xf32>
// CHECK-NEXT:    func.return %[[K]] : tensor<8x4xf32>
func.func @f32(%c: tensor<8x4xi1>, %x: tensor<8x4xf32>, %y: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %k = tg.where %c, %x, %y : tensor<8x4xi1>, tensor<8x4xf32>
  func.return %k : tensor<8x4xf32>
}

// CHECK-LABEL: func.func @i32(
// CHECK-SAME:      %[[C:.*]]: tensor<3xi1>, %[[X:.*]]: tensor<3xi32>) -> tensor<3xi32> {
// CHECK-NEXT:    %[[K:.*]] = tg.where %[[C]], %[[X]], %[[X]] : tensor<3xi1>, tensor<3xi32>
// CHECK-NEXT:    func.return %[[K]] : tensor<3xi32>
func.func @i32(%c: tensor<3xi1>, %x: tensor<3xi32>) -> tensor<3xi32> {
  %k = tg.where %c, %x, %x : tensor<3xi1>, tensor<3xi32>
  func.return %k : tensor<3xi32>
}

// cmp then where: a relu.
// CHECK-LABEL: func.func @relu(
// CHECK-SAME:      %[[X:.*]]: tensor<4xf32>, %[[ZERO:.*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[C:.*]] = tg.cmp gt %[[X]], %[[ZERO]] : tensor<4xf32> -> tensor<4xi1>
// CHECK-NEXT:    %[[K:.*]] = tg.where %[[C]], %[[X]], %[[ZERO]] : tensor<4xi1>, tensor<4xf32>
// CHECK-NEXT:    func.return %[[K]] : tensor<4xf32>
func.func @relu(%x: tensor<4xf32>, %zero: tensor<4xf32>) -> tensor<4xf32> {
  %c = tg.cmp gt %x, %zero : tensor<4xf32> -> tensor<4xi1>
  %k = tg.where %c, %x, %zero : tensor<4xi1>, tensor<4xf32>
  func.return %k : tensor<4xf32>
}

// CHECK-LABEL: func.func @sharded(
// CHECK-SAME:      %[[C:.*]]: tensor<7x2xi1, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>, %[[X:.*]]: tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>) -> tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> {
// CHECK-NEXT:    %[[K:.*]] = tg.where %[[C]], %[[X]], %[[X]] : tensor<7x2xi1, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>, tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK-NEXT:    func.return %[[K]] : tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
func.func @sharded(%c: tensor<7x2xi1, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>, %x: tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>) -> tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> {
  %k = tg.where %c, %x, %x : tensor<7x2xi1, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>, tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  func.return %k : tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
}

// CHECK-LABEL: func.func @on_devices(
// CHECK-SAME:      %[[C:.*]]: tensor<2xi1, #multi.on<["CPU:0", "CPU:1"]>>, %[[X:.*]]: tensor<2xi1, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<2xi1, #multi.on<["CPU:0", "CPU:1"]>> {
// CHECK-NEXT:    %[[K:.*]] = tg.where %[[C]], %[[X]], %[[C]] : tensor<2xi1, #multi.on<["CPU:0", "CPU:1"]>>, tensor<2xi1, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    func.return %[[K]] : tensor<2xi1, #multi.on<["CPU:0", "CPU:1"]>>
func.func @on_devices(%c: tensor<2xi1, #multi.on<["CPU:0", "CPU:1"]>>, %x: tensor<2xi1, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<2xi1, #multi.on<["CPU:0", "CPU:1"]>> {
  %k = tg.where %c, %x, %c : tensor<2xi1, #multi.on<["CPU:0", "CPU:1"]>>, tensor<2xi1, #multi.on<["CPU:0", "CPU:1"]>>
  func.return %k : tensor<2xi1, #multi.on<["CPU:0", "CPU:1"]>>
}

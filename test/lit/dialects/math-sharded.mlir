// RUN: multi-opt %s | multi-opt | filecheck %s

// math ops on sharded and device-placed tensors keep the type, encoding included.

// CHECK-LABEL: func.func @sharded(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
// CHECK-NEXT:    %[[A:.*]] = math.exp %[[X]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    %[[B:.*]] = math.log %[[A]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    %[[C:.*]] = math.sqrt %[[B]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    %[[D:.*]] = math.sin %[[C]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    %[[E:.*]] = math.exp2 %[[D]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    %[[F:.*]] = math.log2 %[[E]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    func.return %[[F]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
func.func @sharded(%x: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
  %a = math.exp %x : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  %b = math.log %a : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  %c = math.sqrt %b : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  %d = math.sin %c : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  %e = math.exp2 %d : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  %f = math.log2 %e : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  func.return %f : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
}

// CHECK-LABEL: func.func @on_devices(
// CHECK-SAME:      %[[X:.*]]: tensor<3xf64, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<3xf64, #multi.on<["CPU:0", "CPU:1"]>> {
// CHECK-NEXT:    %[[A:.*]] = math.rsqrt %[[X]] : tensor<3xf64, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    %[[B:.*]] = math.tanh %[[A]] : tensor<3xf64, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    %[[C:.*]] = math.absf %[[B]] : tensor<3xf64, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    func.return %[[C]] : tensor<3xf64, #multi.on<["CPU:0", "CPU:1"]>>
func.func @on_devices(%x: tensor<3xf64, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<3xf64, #multi.on<["CPU:0", "CPU:1"]>> {
  %a = math.rsqrt %x : tensor<3xf64, #multi.on<["CPU:0", "CPU:1"]>>
  %b = math.tanh %a : tensor<3xf64, #multi.on<["CPU:0", "CPU:1"]>>
  %c = math.absf %b : tensor<3xf64, #multi.on<["CPU:0", "CPU:1"]>>
  func.return %c : tensor<3xf64, #multi.on<["CPU:0", "CPU:1"]>>
}

// A sharded softmax-like chain: math, tg.reduce over a non-shard axis, tg.expand, arith.
// CHECK-LABEL: func.func @row_softmax(
// CHECK-SAME:      %[[X:.*]]: tensor<6x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>) -> tensor<6x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> {
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[X]] : tensor<6x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK-NEXT:    %[[S:.*]] = tg.reduce add %[[E]] [1] : tensor<6x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<6x1xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK-NEXT:    %[[B:.*]] = tg.expand %[[S]] : tensor<6x1xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<6x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK-NEXT:    %[[R:.*]] = arith.divf %[[E]], %[[B]] : tensor<6x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK-NEXT:    func.return %[[R]] : tensor<6x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
func.func @row_softmax(%x: tensor<6x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>) -> tensor<6x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> {
  %e = math.exp %x : tensor<6x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  %s = tg.reduce add %e [1] : tensor<6x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<6x1xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  %b = tg.expand %s : tensor<6x1xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<6x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  %r = arith.divf %e, %b : tensor<6x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  func.return %r : tensor<6x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
}

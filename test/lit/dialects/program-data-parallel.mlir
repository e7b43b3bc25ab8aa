// RUN: multi-opt %s | multi-opt | filecheck %s

// A whole tinygrad-style data-parallel step at the multi level: shard the batch, compute
// x @ w per shard (reshape/expand/mul/reduce), reduce over the sharded batch axis (an
// allreduce: #multi.on result) and gather a result onto one device.

// A type alias in the input prints as the full type.
!xs = tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>

// CHECK: builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"]} {

builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  // CHECK-LABEL: func.func @main(
  // CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32, #multi.on<["CPU:0"]>>, %[[W:.*]]: tensor<4x3xf32, #multi.on<["CPU:0"]>>) -> (tensor<8x3xf32, #multi.on<["CPU:0"]>>, tensor<1x3xf32, #multi.on<["CPU:0", "CPU:1"]>>) {
  // CHECK-NEXT:    %[[XS:.*]] = multi.copy %[[X]] : tensor<8x4xf32, #multi.on<["CPU:0"]>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  // CHECK-NEXT:    %[[WR:.*]] = multi.copy %[[W]] : tensor<4x3xf32, #multi.on<["CPU:0"]>> -> tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
  // CHECK-NEXT:    %[[X3:.*]] = tg.reshape %[[XS]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x4x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  // CHECK-NEXT:    %[[XE:.*]] = tg.expand %[[X3]] : tensor<8x4x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x4x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  // CHECK-NEXT:    %[[W0:.*]] = multi.mselect %[[WR]][0] : tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x3xf32, #multi.on<["CPU:0"]>>
  // CHECK-NEXT:    %[[W1:.*]] = multi.mselect %[[WR]][1] : tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x3xf32, #multi.on<["CPU:1"]>>
  // CHECK-NEXT:    %[[WS:.*]] = multi.mstack %[[W0]], %[[W1]] : tensor<4x3xf32, #multi.on<["CPU:0"]>>, tensor<4x3xf32, #multi.on<["CPU:1"]>> -> tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
  // CHECK-NEXT:    %[[W3:.*]] = tg.reshape %[[WS]] : tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<1x4x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
  // CHECK-NEXT:    %[[WL:.*]] = multi.multi %[[W3]] axis 0 : tensor<1x4x3xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<2x4x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  // CHECK-NEXT:    %[[WA:.*]] = multi.copy %[[WL]] : tensor<2x4x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<2x4x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
  // CHECK-NEXT:    %[[WK:.*]] = tg.shrink %[[WA]] {{\[\[}}0, 1], [0, 4], [0, 3]] : tensor<2x4x3xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<1x4x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
  // CHECK-NEXT:    %[[WE:.*]] = tg.expand %[[WK]] : tensor<1x4x3xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8x4x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
  // CHECK-NEXT:    %[[WSH:.*]] = multi.copy %[[WE]] : tensor<8x4x3xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8x4x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  // CHECK-NEXT:    %[[P:.*]] = arith.mulf %[[XE]], %[[WSH]] : tensor<8x4x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  // CHECK-NEXT:    %[[Y3:.*]] = tg.reduce add %[[P]] [1] : tensor<8x4x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x1x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  // CHECK-NEXT:    %[[Y:.*]] = tg.reshape %[[Y3]] : tensor<8x1x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  // CHECK-NEXT:    %[[COL:.*]] = tg.reduce max %[[Y]] [0] : tensor<8x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<1x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
  // CHECK-NEXT:    %[[OUT:.*]] = multi.copy %[[Y]] : tensor<8x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x3xf32, #multi.on<["CPU:0"]>>
  // CHECK-NEXT:    func.return %[[OUT]], %[[COL]] : tensor<8x3xf32, #multi.on<["CPU:0"]>>, tensor<1x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
  func.func @main(%x: tensor<8x4xf32, #multi.on<["CPU:0"]>>, %w: tensor<4x3xf32, #multi.on<["CPU:0"]>>) -> (tensor<8x3xf32, #multi.on<["CPU:0"]>>, tensor<1x3xf32, #multi.on<["CPU:0", "CPU:1"]>>) {
    %xs = multi.copy %x : tensor<8x4xf32, #multi.on<["CPU:0"]>> -> !xs
    %wr = multi.copy %w : tensor<4x3xf32, #multi.on<["CPU:0"]>> -> tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
    %x3 = tg.reshape %xs : !xs -> tensor<8x4x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
    %xe = tg.expand %x3 : tensor<8x4x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x4x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
    %w0 = multi.mselect %wr[0] : tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x3xf32, #multi.on<["CPU:0"]>>
    %w1 = multi.mselect %wr[1] : tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x3xf32, #multi.on<["CPU:1"]>>
    %ws = multi.mstack %w0, %w1 : tensor<4x3xf32, #multi.on<["CPU:0"]>>, tensor<4x3xf32, #multi.on<["CPU:1"]>> -> tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
    %w3 = tg.reshape %ws : tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<1x4x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
    %wl = multi.multi %w3 axis 0 : tensor<1x4x3xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<2x4x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
    %wa = multi.copy %wl : tensor<2x4x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<2x4x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
    %wk = tg.shrink %wa [[0, 1], [0, 4], [0, 3]] : tensor<2x4x3xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<1x4x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
    %we = tg.expand %wk : tensor<1x4x3xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8x4x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
    %wsh = multi.copy %we : tensor<8x4x3xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8x4x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
    %p = arith.mulf %xe, %wsh : tensor<8x4x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
    %y3 = tg.reduce add %p [1] : tensor<8x4x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x1x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
    %y = tg.reshape %y3 : tensor<8x1x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
    %col = tg.reduce max %y [0] : tensor<8x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<1x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
    %out = multi.copy %y : tensor<8x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x3xf32, #multi.on<["CPU:0"]>>
    func.return %out, %col : tensor<8x3xf32, #multi.on<["CPU:0"]>>, tensor<1x3xf32, #multi.on<["CPU:0", "CPU:1"]>>
  }
}

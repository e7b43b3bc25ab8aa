// RUN: multi-opt %s | multi-opt | filecheck %s

// arith on #multi.on values: each device computes on its own buffer.

// CHECK-LABEL: func.func @scale(
// CHECK-SAME:      %[[X:.*]]: tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> {
// CHECK-NEXT:    %[[HALF:.*]] = arith.constant dense<5.000000e-01> : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    %[[Y:.*]] = arith.mulf %[[X]], %[[HALF]] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    func.return %[[Y]] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
func.func @scale(%x: tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> {
  %half = arith.constant dense<0.5> : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
  %y = arith.mulf %x, %half : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
  func.return %y : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
}

// Allreduce of a locally computed partial sum (what a sharded reduce lowers to).
// CHECK-LABEL: func.func @partial_then_allreduce(
// CHECK-SAME:      %[[X:.*]]: tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<1x4xf32, #multi.on<["CPU:0", "CPU:1"]>> {
// CHECK-NEXT:    %[[P:.*]] = tg.reduce add %[[X]] [0] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<1x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    %[[R:.*]] = multi.allreduce add %[[P]] : tensor<1x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<1x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    func.return %[[R]] : tensor<1x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
func.func @partial_then_allreduce(%x: tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<1x4xf32, #multi.on<["CPU:0", "CPU:1"]>> {
  %p = tg.reduce add %x [0] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<1x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
  %r = multi.allreduce add %p : tensor<1x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<1x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
  func.return %r : tensor<1x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
}

// Integer ops on one device.
// CHECK-LABEL: func.func @one_device(
// CHECK-SAME:      %[[X:.*]]: tensor<3xi64, #multi.on<["CPU:0"]>>) -> tensor<3xi64, #multi.on<["CPU:0"]>> {
// CHECK-NEXT:    %[[C:.*]] = arith.constant dense<[1, 2, 3]> : tensor<3xi64, #multi.on<["CPU:0"]>>
// CHECK-NEXT:    %[[Y:.*]] = arith.subi %[[X]], %[[C]] : tensor<3xi64, #multi.on<["CPU:0"]>>
// CHECK-NEXT:    func.return %[[Y]] : tensor<3xi64, #multi.on<["CPU:0"]>>
func.func @one_device(%x: tensor<3xi64, #multi.on<["CPU:0"]>>) -> tensor<3xi64, #multi.on<["CPU:0"]>> {
  %c = arith.constant dense<[1, 2, 3]> : tensor<3xi64, #multi.on<["CPU:0"]>>
  %y = arith.subi %x, %c : tensor<3xi64, #multi.on<["CPU:0"]>>
  func.return %y : tensor<3xi64, #multi.on<["CPU:0"]>>
}

// RUN: multi-opt %s | multi-opt | filecheck %s
// RUN: multi-opt %s --print-op-generic | multi-opt | filecheck %s

// multi.allreduce add|mul|max: every result device gets the elementwise reduction of all
// source buffers.

// CHECK-LABEL: func.func @add(
// CHECK-SAME:      %[[X:.*]]: tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> {
// CHECK-NEXT:    %[[R:.*]] = multi.allreduce add %[[X]] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    func.return %[[R]] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
func.func @add(%x: tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> {
  %r = multi.allreduce add %x : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
  func.return %r : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
}

// CHECK-LABEL: func.func @mul(
// CHECK-SAME:      %[[X:.*]]: tensor<3xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>) -> tensor<3xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> {
// CHECK-NEXT:    %[[R:.*]] = multi.allreduce mul %[[X]] : tensor<3xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<3xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
// CHECK-NEXT:    func.return %[[R]] : tensor<3xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
func.func @mul(%x: tensor<3xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>) -> tensor<3xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> {
  %r = multi.allreduce mul %x : tensor<3xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<3xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
  func.return %r : tensor<3xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
}

// CHECK-LABEL: func.func @max(
// CHECK-SAME:      %[[X:.*]]: tensor<2x2xf64, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<2x2xf64, #multi.on<["CPU:0", "CPU:1"]>> {
// CHECK-NEXT:    %[[R:.*]] = multi.allreduce max %[[X]] : tensor<2x2xf64, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<2x2xf64, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    func.return %[[R]] : tensor<2x2xf64, #multi.on<["CPU:0", "CPU:1"]>>
func.func @max(%x: tensor<2x2xf64, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<2x2xf64, #multi.on<["CPU:0", "CPU:1"]>> {
  %r = multi.allreduce max %x : tensor<2x2xf64, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<2x2xf64, #multi.on<["CPU:0", "CPU:1"]>>
  func.return %r : tensor<2x2xf64, #multi.on<["CPU:0", "CPU:1"]>>
}

// The result devices need not be the sources: reduce onto one device.
// CHECK-LABEL: func.func @reduce_to_one(
// CHECK-SAME:      %[[X:.*]]: tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4xf32, #multi.on<["CPU:2"]>> {
// CHECK-NEXT:    %[[R:.*]] = multi.allreduce add %[[X]] : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4xf32, #multi.on<["CPU:2"]>>
// CHECK-NEXT:    func.return %[[R]] : tensor<4xf32, #multi.on<["CPU:2"]>>
func.func @reduce_to_one(%x: tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4xf32, #multi.on<["CPU:2"]>> {
  %r = multi.allreduce add %x : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4xf32, #multi.on<["CPU:2"]>>
  func.return %r : tensor<4xf32, #multi.on<["CPU:2"]>>
}

// One source device, many result devices.
// CHECK-LABEL: func.func @one_source(
// CHECK-SAME:      %[[X:.*]]: tensor<4xf32, #multi.on<["CPU:0"]>>) -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> {
// CHECK-NEXT:    %[[R:.*]] = multi.allreduce max %[[X]] : tensor<4xf32, #multi.on<["CPU:0"]>> -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    func.return %[[R]] : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
func.func @one_source(%x: tensor<4xf32, #multi.on<["CPU:0"]>>) -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> {
  %r = multi.allreduce max %x : tensor<4xf32, #multi.on<["CPU:0"]>> -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
  func.return %r : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
}

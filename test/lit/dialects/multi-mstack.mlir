// RUN: multi-opt %s | multi-opt | filecheck %s

// multi.mstack: single-device buffers gathered into one multi-device buffer, in source order.

// CHECK-LABEL: func.func @two(
// CHECK-SAME:      %[[A:.*]]: tensor<4x4xf32, #multi.on<["CPU:0"]>>, %[[B:.*]]: tensor<4x4xf32, #multi.on<["CPU:1"]>>)
// CHECK-NEXT:    %[[T:.*]] = multi.mstack %[[A]], %[[B]] : tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x4xf32, #multi.on<["CPU:1"]>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    func.return %[[T]]
func.func @two(%a: tensor<4x4xf32, #multi.on<["CPU:0"]>>, %b: tensor<4x4xf32, #multi.on<["CPU:1"]>>) -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> {
  %t = multi.mstack %a, %b : tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x4xf32, #multi.on<["CPU:1"]>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
  func.return %t : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
}

// The result's device order is the sources' order, whatever it is.
// CHECK-LABEL: func.func @three_reversed(
// CHECK-SAME:      %[[A:.*]]: tensor<2xi32, #multi.on<["CPU:2"]>>, %[[B:.*]]: tensor<2xi32, #multi.on<["CPU:1"]>>, %[[C:.*]]: tensor<2xi32, #multi.on<["CPU:0"]>>)
// CHECK-NEXT:    %{{.*}} = multi.mstack %[[A]], %[[B]], %[[C]] : tensor<2xi32, #multi.on<["CPU:2"]>>, tensor<2xi32, #multi.on<["CPU:1"]>>, tensor<2xi32, #multi.on<["CPU:0"]>> -> tensor<2xi32, #multi.on<["CPU:2", "CPU:1", "CPU:0"]>>
func.func @three_reversed(%a: tensor<2xi32, #multi.on<["CPU:2"]>>, %b: tensor<2xi32, #multi.on<["CPU:1"]>>, %c: tensor<2xi32, #multi.on<["CPU:0"]>>) -> tensor<2xi32, #multi.on<["CPU:2", "CPU:1", "CPU:0"]>> {
  %t = multi.mstack %a, %b, %c : tensor<2xi32, #multi.on<["CPU:2"]>>, tensor<2xi32, #multi.on<["CPU:1"]>>, tensor<2xi32, #multi.on<["CPU:0"]>> -> tensor<2xi32, #multi.on<["CPU:2", "CPU:1", "CPU:0"]>>
  func.return %t : tensor<2xi32, #multi.on<["CPU:2", "CPU:1", "CPU:0"]>>
}

// One source.
// CHECK-LABEL: func.func @one(
// CHECK-NEXT:    %{{.*}} = multi.mstack %{{.*}} : tensor<8xf16, #multi.on<["CPU:0"]>> -> tensor<8xf16, #multi.on<["CPU:0"]>>
func.func @one(%a: tensor<8xf16, #multi.on<["CPU:0"]>>) -> tensor<8xf16, #multi.on<["CPU:0"]>> {
  %t = multi.mstack %a : tensor<8xf16, #multi.on<["CPU:0"]>> -> tensor<8xf16, #multi.on<["CPU:0"]>>
  func.return %t : tensor<8xf16, #multi.on<["CPU:0"]>>
}

// mselect then mstack rebuilds the buffer.
// CHECK-LABEL: func.func @select_then_stack(
// CHECK-SAME:      %[[X:.*]]: tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>)
// CHECK-NEXT:    %[[S0:.*]] = multi.mselect %[[X]][0]
// CHECK-NEXT:    %[[S1:.*]] = multi.mselect %[[X]][1]
// CHECK-NEXT:    %[[T:.*]] = multi.mstack %[[S0]], %[[S1]] : tensor<4xf32, #multi.on<["CPU:0"]>>, tensor<4xf32, #multi.on<["CPU:1"]>> -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    func.return %[[T]]
func.func @select_then_stack(%x: tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> {
  %s0 = multi.mselect %x[0] : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4xf32, #multi.on<["CPU:0"]>>
  %s1 = multi.mselect %x[1] : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4xf32, #multi.on<["CPU:1"]>>
  %t = multi.mstack %s0, %s1 : tensor<4xf32, #multi.on<["CPU:0"]>>, tensor<4xf32, #multi.on<["CPU:1"]>> -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
  func.return %t : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
}

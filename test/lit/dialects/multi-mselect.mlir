// RUN: multi-opt %s | multi-opt | filecheck %s
// RUN: multi-opt %s --print-op-generic | multi-opt | filecheck %s

// multi.mselect: device `index`'s buffer out of a multi-device buffer, placed on that device.

// CHECK-LABEL: func.func @select_each(
// CHECK-SAME:      %[[X:.*]]: tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>)
// CHECK-NEXT:    %[[S0:.*]] = multi.mselect %[[X]][0] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<4x4xf32, #multi.on<["CPU:0"]>>
// CHECK-NEXT:    %[[S1:.*]] = multi.mselect %[[X]][1] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<4x4xf32, #multi.on<["CPU:1"]>>
// CHECK-NEXT:    %[[S2:.*]] = multi.mselect %[[X]][2] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<4x4xf32, #multi.on<["CPU:2"]>>
// CHECK-NEXT:    func.return %[[S0]], %[[S1]], %[[S2]] : tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x4xf32, #multi.on<["CPU:1"]>>, tensor<4x4xf32, #multi.on<["CPU:2"]>>
func.func @select_each(%x: tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>) -> (tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x4xf32, #multi.on<["CPU:1"]>>, tensor<4x4xf32, #multi.on<["CPU:2"]>>) {
  %s0 = multi.mselect %x[0] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<4x4xf32, #multi.on<["CPU:0"]>>
  %s1 = multi.mselect %x[1] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<4x4xf32, #multi.on<["CPU:1"]>>
  %s2 = multi.mselect %x[2] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<4x4xf32, #multi.on<["CPU:2"]>>
  func.return %s0, %s1, %s2 : tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x4xf32, #multi.on<["CPU:1"]>>, tensor<4x4xf32, #multi.on<["CPU:2"]>>
}

// The index is a position in the encoding's list, not a device number.
// CHECK-LABEL: func.func @position_not_name(
// CHECK-NEXT:    %{{.*}} = multi.mselect %{{.*}}[0] : tensor<2xi1, #multi.on<["CPU:3", "CPU:1"]>> -> tensor<2xi1, #multi.on<["CPU:3"]>>
func.func @position_not_name(%x: tensor<2xi1, #multi.on<["CPU:3", "CPU:1"]>>) -> tensor<2xi1, #multi.on<["CPU:3"]>> {
  %s = multi.mselect %x[0] : tensor<2xi1, #multi.on<["CPU:3", "CPU:1"]>> -> tensor<2xi1, #multi.on<["CPU:3"]>>
  func.return %s : tensor<2xi1, #multi.on<["CPU:3"]>>
}

// A one-device value: mselect [0] is the identity placement.
// CHECK-LABEL: func.func @one_device(
// CHECK-NEXT:    %{{.*}} = multi.mselect %{{.*}}[0] : tensor<3xi64, #multi.on<["CPU:0"]>>{{$}}
func.func @one_device(%x: tensor<3xi64, #multi.on<["CPU:0"]>>) -> tensor<3xi64, #multi.on<["CPU:0"]>> {
  %s = multi.mselect %x[0] : tensor<3xi64, #multi.on<["CPU:0"]>> -> tensor<3xi64, #multi.on<["CPU:0"]>>
  func.return %s : tensor<3xi64, #multi.on<["CPU:0"]>>
}

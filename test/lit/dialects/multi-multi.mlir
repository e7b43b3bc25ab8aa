// RUN: multi-opt %s | multi-opt | filecheck %s
// RUN: multi-opt %s --print-op-generic | multi-opt | filecheck %s

// multi.multi: per-device buffers (#multi.on) viewed as one tensor split along `axis`
// (#multi.shard). The local length along the axis is ceil(L / N).

// CHECK-LABEL: func.func @even_axis0(
// CHECK-SAME:      %[[X:.*]]: tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>)
// CHECK-NEXT:    %[[M:.*]] = multi.multi %[[X]] axis 0 : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    func.return %[[M]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
func.func @even_axis0(%x: tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
  %m = multi.multi %x axis 0 : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  func.return %m : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
}

// CHECK-LABEL: func.func @even_axis1(
// CHECK-SAME:      %[[X:.*]]: tensor<4x2xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>)
// CHECK-NEXT:    %[[M:.*]] = multi.multi %[[X]] axis 1 : tensor<4x2xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>
// CHECK-NEXT:    func.return %[[M]]
func.func @even_axis1(%x: tensor<4x2xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>) -> tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>> {
  %m = multi.multi %x axis 1 : tensor<4x2xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>
  func.return %m : tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>
}

// 7 rows over 3 devices: local buffers of ceil(7/3) = 3 rows (owned: 3, 3, 1).
// CHECK-LABEL: func.func @uneven_7_over_3(
// CHECK-SAME:      %[[X:.*]]: tensor<3x5xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>)
// CHECK-NEXT:    %[[M:.*]] = multi.multi %[[X]] axis 0 : tensor<3x5xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<7x5xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
func.func @uneven_7_over_3(%x: tensor<3x5xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>) -> tensor<7x5xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> {
  %m = multi.multi %x axis 0 : tensor<3x5xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<7x5xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  func.return %m : tensor<7x5xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
}

// 4 rows over 3 devices: local buffers of ceil(4/3) = 2 rows (owned: 2, 2, 0).
// CHECK-LABEL: func.func @uneven_4_over_3(
// CHECK-NEXT:    %[[M:.*]] = multi.multi %{{.*}} axis 0 : tensor<2x8xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<4x8xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
func.func @uneven_4_over_3(%x: tensor<2x8xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>) -> tensor<4x8xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> {
  %m = multi.multi %x axis 0 : tensor<2x8xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<4x8xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  func.return %m : tensor<4x8xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
}

// One device: the shard is the whole tensor.
// CHECK-LABEL: func.func @one_device(
// CHECK-NEXT:    %{{.*}} = multi.multi %{{.*}} axis 0 : tensor<5xf64, #multi.on<["GPU:0"]>> -> tensor<5xf64, #multi.shard<["GPU:0"], axis = 0>>
func.func @one_device(%x: tensor<5xf64, #multi.on<["GPU:0"]>>) -> tensor<5xf64, #multi.shard<["GPU:0"], axis = 0>> {
  %m = multi.multi %x axis 0 : tensor<5xf64, #multi.on<["GPU:0"]>> -> tensor<5xf64, #multi.shard<["GPU:0"], axis = 0>>
  func.return %m : tensor<5xf64, #multi.shard<["GPU:0"], axis = 0>>
}

// Devices in any order; the shard type keeps the order.
// CHECK-LABEL: func.func @device_order(
// CHECK-NEXT:    multi.multi %{{.*}} axis 2 : tensor<2x3x2xf32, #multi.on<["CPU:1", "CPU:0"]>> -> tensor<2x3x3xf32, #multi.shard<["CPU:1", "CPU:0"], axis = 2>>
func.func @device_order(%x: tensor<2x3x2xf32, #multi.on<["CPU:1", "CPU:0"]>>) -> tensor<2x3x3xf32, #multi.shard<["CPU:1", "CPU:0"], axis = 2>> {
  %m = multi.multi %x axis 2 : tensor<2x3x2xf32, #multi.on<["CPU:1", "CPU:0"]>> -> tensor<2x3x3xf32, #multi.shard<["CPU:1", "CPU:0"], axis = 2>>
  func.return %m : tensor<2x3x3xf32, #multi.shard<["CPU:1", "CPU:0"], axis = 2>>
}

// RUN: multi-opt %s | multi-opt | filecheck %s
// RUN: multi-opt %s --print-op-generic | multi-opt | filecheck %s

// multi.local: each device's local buffer of a shard value, as a #multi.on value (the inverse
// of multi.multi; tinygrad's UNSHARD.src[0]).

// CHECK-LABEL: func.func @even(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>)
// CHECK-NEXT:    %[[L:.*]] = multi.local %[[X]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    func.return %[[L]] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
func.func @even(%x: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> {
  %l = multi.local %x : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
  func.return %l : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
}

// Uneven, on axis 1, devices in another order: 5 columns over 3 devices are 2-column buffers.
// CHECK-LABEL: func.func @uneven_axis1(
// CHECK-NEXT:    %{{.*}} = multi.local %{{.*}} : tensor<2x5xi32, #multi.shard<["CPU:2", "CPU:0", "CPU:1"], axis = 1>> -> tensor<2x2xi32, #multi.on<["CPU:2", "CPU:0", "CPU:1"]>>
func.func @uneven_axis1(%x: tensor<2x5xi32, #multi.shard<["CPU:2", "CPU:0", "CPU:1"], axis = 1>>) -> tensor<2x2xi32, #multi.on<["CPU:2", "CPU:0", "CPU:1"]>> {
  %l = multi.local %x : tensor<2x5xi32, #multi.shard<["CPU:2", "CPU:0", "CPU:1"], axis = 1>> -> tensor<2x2xi32, #multi.on<["CPU:2", "CPU:0", "CPU:1"]>>
  func.return %l : tensor<2x2xi32, #multi.on<["CPU:2", "CPU:0", "CPU:1"]>>
}

// multi.multi then multi.local round-trips the buffers.
// CHECK-LABEL: func.func @round_trip(
// CHECK-NEXT:    %[[M:.*]] = multi.multi %{{.*}} axis 0 : tensor<3xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<5xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    %{{.*}} = multi.local %[[M]] : tensor<5xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<3xf32, #multi.on<["CPU:0", "CPU:1"]>>
func.func @round_trip(%x: tensor<3xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<3xf32, #multi.on<["CPU:0", "CPU:1"]>> {
  %m = multi.multi %x axis 0 : tensor<3xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<5xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  %l = multi.local %m : tensor<5xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<3xf32, #multi.on<["CPU:0", "CPU:1"]>>
  func.return %l : tensor<3xf32, #multi.on<["CPU:0", "CPU:1"]>>
}

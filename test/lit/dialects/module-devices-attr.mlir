// RUN: multi-opt %s --split-input-file | filecheck %s
// RUN: multi-opt %s --split-input-file | multi-opt --split-input-file | filecheck %s

// The module attribute `multi.devices` fixes the program's device set and its order (device
// number d = position in the list). Encodings may use any subset in any order.

// CHECK:       builtin.module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2", "CPU:3"]} {
// CHECK-NEXT:    func.func @subset(%[[X:.*]]: tensor<4x4xf32, #multi.on<["CPU:3", "CPU:1"]>>) -> tensor<8x4xf32, #multi.shard<["CPU:3", "CPU:1"], axis = 0>> {
// CHECK-NEXT:      %[[M:.*]] = multi.multi %[[X]] axis 0 : tensor<4x4xf32, #multi.on<["CPU:3", "CPU:1"]>> -> tensor<8x4xf32, #multi.shard<["CPU:3", "CPU:1"], axis = 0>>
// CHECK-NEXT:      func.return %[[M]]
builtin.module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2", "CPU:3"]} {
  func.func @subset(%x: tensor<4x4xf32, #multi.on<["CPU:3", "CPU:1"]>>) -> tensor<8x4xf32, #multi.shard<["CPU:3", "CPU:1"], axis = 0>> {
    %m = multi.multi %x axis 0 : tensor<4x4xf32, #multi.on<["CPU:3", "CPU:1"]>> -> tensor<8x4xf32, #multi.shard<["CPU:3", "CPU:1"], axis = 0>>
    func.return %m : tensor<8x4xf32, #multi.shard<["CPU:3", "CPU:1"], axis = 0>>
  }
}

// -----

// Device names are labels: any string.
// CHECK:       builtin.module attributes {multi.devices = ["GPU:0", "gpu 1", "NV:2"]} {
// CHECK-NEXT:    func.func @main(%{{.*}}: tensor<6xf32, #multi.shard<["GPU:0", "gpu 1", "NV:2"], axis = 0>>)
builtin.module attributes {multi.devices = ["GPU:0", "gpu 1", "NV:2"]} {
  func.func @main(%x: tensor<6xf32, #multi.shard<["GPU:0", "gpu 1", "NV:2"], axis = 0>>) {
    func.return
  }
}

// -----

// An SPMD module after lowering: d in [0, N) with N the length of `multi.devices`, next to
// a module name.
// CHECK:       builtin.module @spmd attributes {multi.devices = ["CPU:0", "CPU:1"]} {
// CHECK-NEXT:    func.func @main() -> index {
// CHECK-NEXT:      %[[DN:.*]] = devidx.device_num : index
// CHECK-NEXT:      func.return %[[DN]] : index
builtin.module @spmd attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main() -> index {
    %dn = devidx.device_num : index
    func.return %dn : index
  }
}

// -----

// Without the attribute the device set is the names in order of first appearance.
// CHECK:       builtin.module {
// CHECK-NEXT:    func.func @implicit(%{{.*}}: tensor<2xf32, #multi.on<["B", "A"]>>)
builtin.module {
  func.func @implicit(%x: tensor<2xf32, #multi.on<["B", "A"]>>) {
    func.return
  }
}

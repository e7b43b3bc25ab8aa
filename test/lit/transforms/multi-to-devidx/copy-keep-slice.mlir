// RUN: multi-opt %s -p multi-to-devidx | filecheck %s
// Rule: CopyKeepingSliceCleans
// A many-device #multi.on value copied to a shard on the same devices: every device keeps the
// slice of its own buffer, and nothing moves.

module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<4x2xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
    %c = multi.copy %x : tensor<4x2xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
    func.return %c : tensor<4x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  }
}

// CHECK:     func.func @main(%{{.*}}: tensor<4x2xf32>) -> tensor<2x2xf32>
// CHECK-NOT: devidx.fetch
// CHECK:     func.return

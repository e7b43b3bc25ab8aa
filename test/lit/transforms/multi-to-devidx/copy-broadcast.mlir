// RUN: multi-opt %s -p 'multi-to-devidx{collectives=ops}' | filecheck %s
// Rule: CopyToEveryDeviceBroadcasts
// collectives=ops: a copy from one device to every device is one broadcast of its stored
// buffer (Invalid on the other devices, so stored: they send nothing that is read).

module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2"]} {
  func.func @main(%x: tensor<4xi32, #multi.on<["CPU:2"]>>) -> tensor<4xi32, #multi.on<["CPU:1", "CPU:0", "CPU:2"]>> {
    %c = multi.copy %x : tensor<4xi32, #multi.on<["CPU:2"]>> -> tensor<4xi32, #multi.on<["CPU:1", "CPU:0", "CPU:2"]>>
    func.return %c : tensor<4xi32, #multi.on<["CPU:1", "CPU:0", "CPU:2"]>>
  }
}

// CHECK:      func.func @main(%{{.*}}: tensor<4xi32>) -> tensor<4xi32>
// CHECK-NOT:  devidx.fetch
// CHECK:      %[[ST:.*]] = tg.contiguous %{{.*}} : tensor<4xi32>
// CHECK-NEXT: %[[B:.*]] = devidx.broadcast %[[ST]] root 2 : tensor<4xi32>
// CHECK-NEXT: func.return %[[B]] : tensor<4xi32>

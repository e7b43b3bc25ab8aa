// RUN: multi-opt %s -p multi-to-devidx | filecheck %s
// Rule: CopyFromOneDeviceScatters
// A copy from one device to a shard over every device: the owner computes each device's share
// and device d fetches, for each shift t, the share from (d - t) mod N.

module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<4x3xf32, #multi.on<["CPU:1"]>>) -> tensor<4x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
    %c = multi.copy %x : tensor<4x3xf32, #multi.on<["CPU:1"]>> -> tensor<4x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
    func.return %c : tensor<4x3xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  }
}

// CHECK:      func.func @main(%[[X:.*]]: tensor<4x3xf32>) -> tensor<2x3xf32>
// CHECK:      %[[OWN:.*]] = arith.select %{{.*}}, %[[X]], %{{.*}} : tensor<4x3xf32>
// CHECK:      %[[S0:.*]] = tg.shrink %{{.*}} {{\[}}[%[[LO0:.*]], %{{.*}}], [0, 3]] : tensor<4x3xf32> -> tensor<2x3xf32>
// CHECK-NEXT: %{{.*}} = arith.subi
// CHECK-NEXT: %{{.*}} = arith.muli
// CHECK-NEXT: %[[P0:.*]] = tg.pad %[[S0]] {{.*}} invalid : tensor<2x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT: %[[F0:.*]] = devidx.fetch %[[P0]] from %[[D:.*]] : tensor<4x3xf32>
// CHECK:      %[[P1:.*]] = tg.pad %{{.*}} invalid : tensor<2x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT: %[[F1:.*]] = devidx.fetch %[[P1]] from %{{.*}} : tensor<4x3xf32>
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[F0]], %[[F1]] : tensor<4x3xf32>
// CHECK-NEXT: %{{.*}} = tg.shrink %[[SUM]]
// CHECK-NOT:  devidx.fetch
// CHECK:      func.return %{{.*}} : tensor<2x3xf32>

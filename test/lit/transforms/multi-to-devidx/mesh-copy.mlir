// RUN: multi-opt %s -p 'multi-to-devidx' | filecheck %s
// Rule: CopyWithMeshFetchesMissingBlocks
// A copy from a 2x2 mesh (rows over mesh dim 0, columns over mesh dim 1) to rows over mesh
// dim 0 only: one shifted fetch per shift t, device j sending device (j + t) mod 4 the part
// of its block that device needs, when j is its block's first replica (every device is,
// here) and the receiver holds no copy of it; t = 0 is the device's own part.

module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2", "CPU:3"]} {
  func.func @main(%x: tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>) -> tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, none]>> {
    %c = multi.copy %x : tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, none]>>
    func.return %c : tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, none]>>
  }
}

// CHECK:      %d = devidx.device_num : index
// CHECK:      %[[OWN:.*]] = devidx.fetch %{{.*}} from %d : tensor<4x6xf32>
// CHECK:      %[[P3:.*]] = devidx.fetch %{{.*}} from %{{.*}} : tensor<4x6xf32>
// CHECK-NEXT: %[[S3:.*]] = arith.addf %[[OWN]], %[[P3]] : tensor<4x6xf32>
// CHECK:      %[[P2:.*]] = devidx.fetch %{{.*}} from %{{.*}} : tensor<4x6xf32>
// CHECK-NEXT: %[[S2:.*]] = arith.addf %[[S3]], %[[P2]] : tensor<4x6xf32>
// CHECK:      %[[P1:.*]] = devidx.fetch %{{.*}} from %{{.*}} : tensor<4x6xf32>
// CHECK-NEXT: %[[S1:.*]] = arith.addf %[[S2]], %[[P1]] : tensor<4x6xf32>
// CHECK-NOT:  devidx.fetch
// CHECK:      func.return %{{.*}} : tensor<2x6xf32>

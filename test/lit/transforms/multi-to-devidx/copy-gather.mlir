// RUN: multi-opt %s -p multi-to-devidx | filecheck %s
// Rule: CopyFetchesLogicalValue
// A gather to one device: each owner's share is fetched once and the pieces are summed (a fetch
// stores Invalid as 0); the result is Invalid on every other device.

module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<4x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<4x2xf32, #multi.on<["CPU:1"]>> {
    %c = multi.copy %x : tensor<4x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<4x2xf32, #multi.on<["CPU:1"]>>
    func.return %c : tensor<4x2xf32, #multi.on<["CPU:1"]>>
  }
}

// CHECK:      %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[F0:.*]] = devidx.fetch %[[CLEAN:.*]] from %[[ZERO]] : tensor<4x2xf32>
// CHECK-NEXT: %[[F1:.*]] = devidx.fetch %[[CLEAN]] from %{{.*}} : tensor<4x2xf32>
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[F0]], %[[F1]] : tensor<4x2xf32>
// CHECK:      %[[R:.*]] = arith.select %{{.*}}, %[[SUM]], %{{.*}} : tensor<4x2xf32>
// CHECK-NEXT: func.return %[[R]] : tensor<4x2xf32>

// RUN: multi-opt %s -p 'multi-to-devidx{allreduce=naive}' | filecheck %s
// Rule: AllreduceToFetchSchedule
// Naive allreduce: every device fetches every buffer and reduces.

module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2"]} {
  func.func @main(%x: tensor<4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>) -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> {
    %r = multi.allreduce max %x : tensor<4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
    func.return %r : tensor<4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
  }
}

// CHECK:      %[[F0:.*]] = devidx.fetch %[[X:.*]] from %{{.*}} : tensor<4xf32>
// CHECK:      %[[F1:.*]] = devidx.fetch %[[X]] from %{{.*}} : tensor<4xf32>
// CHECK-NEXT: %[[M1:.*]] = arith.maximumf %[[F0]], %[[F1]] : tensor<4xf32>
// CHECK:      %[[F2:.*]] = devidx.fetch %[[X]] from %{{.*}} : tensor<4xf32>
// CHECK-NEXT: %[[M2:.*]] = arith.maximumf %[[M1]], %[[F2]] : tensor<4xf32>
// CHECK-NEXT: func.return %[[M2]] : tensor<4xf32>

// RUN: multi-opt %s -p multi-to-devidx | filecheck %s
// Rule: CopyPermutingBuffersFetches
// A copy between two #multi.on placements of as many devices: buffer i of the source goes to
// device i of the destination, so device d fetches from the source's device at d's position.

module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2"]} {
  func.func @main(%x: tensor<2x3xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<2x3xf32, #multi.on<["CPU:2", "CPU:0"]>> {
    %c = multi.copy %x : tensor<2x3xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<2x3xf32, #multi.on<["CPU:2", "CPU:0"]>>
    func.return %c : tensor<2x3xf32, #multi.on<["CPU:2", "CPU:0"]>>
  }
}

// CHECK:      func.func @main(%[[X:.*]]: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:      %[[MINE:.*]] = arith.select %{{.*}}, %[[X]], %{{.*}} : tensor<2x3xf32>
// CHECK:      %[[MOVED:.*]] = devidx.fetch %[[MINE]] from %{{.*}} : tensor<2x3xf32>
// CHECK:      %[[R:.*]] = arith.select %{{.*}}, %[[MOVED]], %{{.*}} : tensor<2x3xf32>
// CHECK-NEXT: func.return %[[R]] : tensor<2x3xf32>

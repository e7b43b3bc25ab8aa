// RUN: multi-opt %s -p 'multi-to-devidx{allreduce=ring}' | filecheck %s
// Rule: AllreduceToFetchSchedule
// Ring allreduce over 3 devices: 2 reduce-scatter steps and 2 all-gather steps, each fetching one
// chunk of ceil(7/3) = 3 elements from device (d - 1) mod 3.

module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2"]} {
  func.func @main(%x: tensor<7xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>) -> tensor<7xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> {
    %r = multi.allreduce add %x : tensor<7xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<7xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
    func.return %r : tensor<7xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
  }
}

// CHECK:      tg.pad %{{.*}} {{\[}}[0, 2]] value 0.0 : tensor<7xf32> -> tensor<9xf32>
// CHECK:      %[[PREV:.*]] = arith.remsi
// CHECK:      devidx.fetch %{{.*}} from %[[PREV]] : tensor<3xf32>
// CHECK:      devidx.fetch %{{.*}} from %[[PREV]] : tensor<3xf32>
// CHECK:      devidx.fetch %{{.*}} from %[[PREV]] : tensor<3xf32>
// CHECK:      devidx.fetch %{{.*}} from %[[PREV]] : tensor<3xf32>
// CHECK-NOT:  devidx.fetch
// CHECK:      tg.shrink %{{.*}} {{\[}}[0, 7]] : tensor<9xf32> -> tensor<7xf32>

// RUN: multi-opt %s -p 'multi-to-devidx{ring-threshold=8}' | filecheck %s --check-prefix=RING
// RUN: multi-opt %s -p 'multi-to-devidx' | filecheck %s --check-prefix=NAIVE
// Rule: AllreduceToFetchSchedule
// auto: ring when N > 2 and numel > ring-threshold, naive otherwise.

module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2"]} {
  func.func @main(%x: tensor<9xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>) -> tensor<9xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> {
    %r = multi.allreduce add %x : tensor<9xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<9xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
    func.return %r : tensor<9xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
  }
}

// RING:      devidx.fetch %{{.*}} : tensor<3xf32>
// NAIVE-NOT: tensor<3xf32>
// NAIVE:     devidx.fetch %{{.*}} : tensor<9xf32>

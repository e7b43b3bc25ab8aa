// RUN: multi-opt %s -p 'multi-to-devidx{allreduce=all2all}' | filecheck %s
// Rule: AllreduceToFetchSchedule
// All-to-all allreduce over 2 devices: one chunk fetched for the reduce-scatter, one for the
// gather.

module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<4xi32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4xi32, #multi.on<["CPU:0", "CPU:1"]>> {
    %r = multi.allreduce add %x : tensor<4xi32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4xi32, #multi.on<["CPU:0", "CPU:1"]>>
    func.return %r : tensor<4xi32, #multi.on<["CPU:0", "CPU:1"]>>
  }
}

// CHECK:     devidx.fetch %{{.*}} : tensor<2xi32>
// CHECK:     arith.addi
// CHECK:     devidx.fetch %{{.*}} : tensor<2xi32>
// CHECK-NOT: devidx.fetch

// RUN: not multi-opt %s -p 'multi-to-devidx{allreduce=bogus}' 2>&1 | filecheck %s
// CHECK: allreduce=bogus is not one of auto, naive, ring, all2all, hierarchical
// CHECK-NOT: Traceback

module attributes {multi.devices = ["CPU:0"]} {
  func.func @main(%x: tensor<4xf32, #multi.on<["CPU:0"]>>) -> tensor<4xf32, #multi.on<["CPU:0"]>> {
    func.return %x : tensor<4xf32, #multi.on<["CPU:0"]>>
  }
}

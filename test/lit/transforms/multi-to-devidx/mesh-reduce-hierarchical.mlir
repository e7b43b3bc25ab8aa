// RUN: multi-opt %s -p 'multi-to-devidx{allreduce=hierarchical collectives=ops}' | filecheck %s
// RUN: multi-opt %s -p 'multi-to-devidx{allreduce=hierarchical},devidx-simplify,specialize-devices' | filecheck %s --check-prefix=DEV
// allreduce=hierarchical on a 2x2 mesh: the reduce over both mesh dims is one grouped
// allreduce with algorithm hierarchical (collectives=ops); the reduce over mesh dim 0 only
// has no minor group and stays naive. With fetches, after specialize-devices, device 1
// (a non-leader: coordinate 1 on mesh dim 1) sends its partial to its leader, device 0, and
// receives the total back from it; it exchanges no 1x1 value with devices 2 and 3.

module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2", "CPU:3"]} {
  func.func @main(%x: tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>) -> (tensor<1x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [none, 1]>>, tensor<1x1xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>) {
    %r = tg.reduce add %x [0] : tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<1x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [none, 1]>>
    %t = tg.reduce add %x [0, 1] : tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<1x1xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>
    func.return %r, %t : tensor<1x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [none, 1]>>, tensor<1x1xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>
  }
}

// CHECK:      devidx.allreduce add %{{.*}} algorithm naive groups [2, 2] over [0] : tensor<1x6xf32>
// CHECK:      devidx.allreduce add %{{.*}} algorithm hierarchical groups [2, 2] over [0, 1] : tensor<1x1xf32>
// CHECK-NOT:  devidx.fetch

// DEV-LABEL:  builtin.module @device_1
// DEV-NOT:    {{(to|from) [23] channel [0-9]+ : tensor<1x1xf32>}}
// DEV:        devidx.send %{{.*}} to 0 channel {{[0-9]+}} : tensor<1x1xf32>
// DEV-NOT:    {{(to|from) [23] channel [0-9]+ : tensor<1x1xf32>}}
// DEV-NEXT:   devidx.recv from 0 channel {{[0-9]+}} : tensor<1x1xf32>
// DEV-NOT:    {{(to|from) [0-3] channel [0-9]+ : tensor<1x1xf32>}}
// DEV-LABEL:  builtin.module @device_2

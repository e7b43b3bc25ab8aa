// RUN: multi-opt %s -p multi-to-devidx | filecheck %s
// Rule: LocalToLocalBuffer
// On a subset of the devices, in another order: the position is looked up from d, and the
// devices the value is not on hold Invalid.

module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2"]} {
  func.func @main(%y: tensor<3xi32, #multi.shard<["CPU:2", "CPU:0"], axis = 0>>) -> tensor<2xi32, #multi.on<["CPU:2", "CPU:0"]>> {
    %l = multi.local %y : tensor<3xi32, #multi.shard<["CPU:2", "CPU:0"], axis = 0>> -> tensor<2xi32, #multi.on<["CPU:2", "CPU:0"]>>
    func.return %l : tensor<2xi32, #multi.on<["CPU:2", "CPU:0"]>>
  }
}

// CHECK:      func.func @main(%{{.*}}: tensor<2xi32>) -> tensor<2xi32>
// CHECK:        %[[P:.*]] = tg.pad %{{.*}} {{\[}}[0, 1]] invalid : tensor<3xi32> -> tensor<4xi32>
// CHECK:        %[[L:.*]] = tg.shrink %[[P]] {{\[}}[%{{.*}}, %{{.*}}]] : tensor<4xi32> -> tensor<2xi32>
// CHECK:        %[[IN:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK-NEXT:   %[[INV:.*]] = devidx.invalid : tensor<2xi32>
// CHECK-NEXT:   %[[R:.*]] = arith.select %[[IN]], %[[L]], %[[INV]] : tensor<2xi32>
// CHECK-NEXT:   func.return %[[R]] : tensor<2xi32>

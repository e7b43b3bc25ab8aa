// RUN: multi-opt %s -p multi-to-devidx | filecheck %s
// Rule: MstackToStackIndex
// MSTACK becomes index(stack(s0..sn), d).

module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%a: tensor<2xf32, #multi.on<["CPU:0"]>>, %b: tensor<2xf32, #multi.on<["CPU:1"]>>) -> tensor<2xf32, #multi.on<["CPU:0", "CPU:1"]>> {
    %t = multi.mstack %a, %b : tensor<2xf32, #multi.on<["CPU:0"]>>, tensor<2xf32, #multi.on<["CPU:1"]>> -> tensor<2xf32, #multi.on<["CPU:0", "CPU:1"]>>
    func.return %t : tensor<2xf32, #multi.on<["CPU:0", "CPU:1"]>>
  }
}

// CHECK:      func.func @main(%[[A:.*]]: tensor<2xf32>, %[[B:.*]]: tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:   %[[D:.*]] = devidx.device_num : index
// The arguments placed on one device are Invalid elsewhere.
// CHECK:        %[[AV:.*]] = arith.select %{{.*}}, %[[A]], %{{.*}} : tensor<2xf32>
// CHECK:        %[[BV:.*]] = arith.select %{{.*}}, %[[B]], %{{.*}} : tensor<2xf32>
// CHECK-NEXT:   %[[ST:.*]] = devidx.stack %[[AV]], %[[BV]] : tensor<2xf32>, tensor<2xf32> -> tensor<2x2xf32>
// CHECK-NEXT:   %[[IX:.*]] = devidx.index %[[ST]][%[[D]]] : tensor<2x2xf32> -> tensor<2xf32>
// CHECK-NEXT:   func.return %[[IX]] : tensor<2xf32>

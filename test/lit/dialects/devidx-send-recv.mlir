// RUN: multi-opt %s | multi-opt | filecheck %s
// RUN: multi-opt %s --print-op-generic | multi-opt | filecheck %s

// devidx.send / devidx.recv: a fetch once devices are specialized; a matched pair shares the
// channel number.

builtin.module {
  // CHECK-LABEL: builtin.module @device_0
  // CHECK-NEXT:    func.func @main(%[[Y:.*]]: tensor<4x4xf32>) {
  // CHECK-NEXT:      devidx.send %[[Y]] to 1 channel 7 : tensor<4x4xf32>
  // CHECK-NEXT:      func.return
  builtin.module @device_0 attributes {devidx.device = 0 : i64} {
    func.func @main(%y: tensor<4x4xf32>) {
      devidx.send %y to 1 channel 7 : tensor<4x4xf32>
      func.return
    }
  }
  // CHECK-LABEL: builtin.module @device_1
  // CHECK-NEXT:    func.func @main() -> tensor<4x4xf32> {
  // CHECK-NEXT:      %[[RV:.*]] = devidx.recv from 0 channel 7 : tensor<4x4xf32>
  // CHECK-NEXT:      func.return %[[RV]] : tensor<4x4xf32>
  builtin.module @device_1 attributes {devidx.device = 1 : i64} {
    func.func @main() -> tensor<4x4xf32> {
      %rv = devidx.recv from 0 channel 7 : tensor<4x4xf32>
      func.return %rv : tensor<4x4xf32>
    }
  }

// Channel 0, other element types, several pairs in one function.
// CHECK-LABEL: func.func @exchange(
// CHECK-SAME:      %[[A:.*]]: tensor<2xi32>, %[[B:.*]]: tensor<3xi1>) -> (tensor<2xi32>, tensor<3xi1>) {
// CHECK-NEXT:    devidx.send %[[A]] to 2 channel 0 : tensor<2xi32>
// CHECK-NEXT:    devidx.send %[[B]] to 0 channel 12 : tensor<3xi1>
// CHECK-NEXT:    %[[R0:.*]] = devidx.recv from 2 channel 1 : tensor<2xi32>
// CHECK-NEXT:    %[[R1:.*]] = devidx.recv from 0 channel 13 : tensor<3xi1>
// CHECK-NEXT:    func.return %[[R0]], %[[R1]] : tensor<2xi32>, tensor<3xi1>
func.func @exchange(%a: tensor<2xi32>, %b: tensor<3xi1>) -> (tensor<2xi32>, tensor<3xi1>) {
  devidx.send %a to 2 channel 0 : tensor<2xi32>
  devidx.send %b to 0 channel 12 : tensor<3xi1>
  %r0 = devidx.recv from 2 channel 1 : tensor<2xi32>
  %r1 = devidx.recv from 0 channel 13 : tensor<3xi1>
  func.return %r0, %r1 : tensor<2xi32>, tensor<3xi1>
}
}

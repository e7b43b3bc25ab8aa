// RUN: multi-opt %s | multi-opt | filecheck %s

// devidx.allreduce over some devices (`members`, the reduction order) and devidx.alltoall's
// rows form (`from %i rows S -> T of L`: a reshard between two device lists that moves only
// the rows whose owner changes), on tensors and, in a host schedule, on memrefs.

// CHECK-LABEL: func.func @tabled(
// CHECK-NEXT:    %[[D:.*]] = devidx.device_num : index
// CHECK-NEXT:    %[[R:.*]] = devidx.allreduce add %[[X:.*]] algorithm naive members [3, 1, 5] : tensor<4x5xf32>
// CHECK-NEXT:    %[[K:.*]] = devidx.lookup %[[D]] in [2, 0, 1] : index
// CHECK-NEXT:    %[[A:.*]] = devidx.alltoall %[[X]] at %[[K]] from %[[D]] rows 4 -> 3 of 10 {note = "reshard"} : tensor<4x5xf32> -> tensor<3x5xf32>
// CHECK-NEXT:    %[[F:.*]] = devidx.alltoall %[[S:.*]] at %[[K]] from %[[D]] : tensor<3x2x4xf32>
// CHECK-NEXT:    %[[B:.*]] = devidx.allreduce max %[[M:.*]] algorithm ring members [0] : memref<2xi32>
// CHECK-NEXT:    %[[C:.*]] = devidx.alltoall %[[M]] at %[[K]] from %[[K]] rows 2 -> 1 of 2 : memref<2xi32> -> memref<1xi32>
func.func @tabled(%x: tensor<4x5xf32>, %m: memref<2xi32>, %s: tensor<3x2x4xf32>) {
  %d = devidx.device_num : index
  %r = devidx.allreduce add %x algorithm naive members [3, 1, 5] : tensor<4x5xf32>
  %k = devidx.lookup %d in [2, 0, 1] : index
  %a = devidx.alltoall %x at %k from %d rows 4 -> 3 of 10 {note = "reshard"} : tensor<4x5xf32> -> tensor<3x5xf32>
  %f = devidx.alltoall %s at %k from %d : tensor<3x2x4xf32>
  %b = devidx.allreduce max %m algorithm ring members [0] : memref<2xi32>
  %c = devidx.alltoall %m at %k from %k rows 2 -> 1 of 2 : memref<2xi32> -> memref<1xi32>
  func.return
}

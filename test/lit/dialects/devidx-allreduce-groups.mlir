// RUN: multi-opt %s | multi-opt | filecheck %s
// RUN: multi-opt %s --print-op-generic | multi-opt | filecheck %s

// A grouped allreduce (SPEC §1.1): the devices arranged row-major on the mesh [2, 3], each
// reducing over the devices that differ from it only on mesh dim 1. Round-trips in the
// custom and the generic form.

func.func @grouped(%x: tensor<1x6xf32>, %b: memref<4xi32>) -> (tensor<1x6xf32>, memref<4xi32>) {
  %r = devidx.allreduce add %x algorithm naive groups [2, 3] over [1] : tensor<1x6xf32>
  %m = devidx.allreduce max %b algorithm naive groups [2, 2, 2] over [0, 2] : memref<4xi32>
  %h = devidx.allreduce add %x algorithm hierarchical groups [2, 3] over [0, 1] : tensor<1x6xf32>
  func.return %r, %m : tensor<1x6xf32>, memref<4xi32>
}

// CHECK:      %r = devidx.allreduce add %x algorithm naive groups [2, 3] over [1] : tensor<1x6xf32>
// CHECK-NEXT: %m = devidx.allreduce max %b algorithm naive groups [2, 2, 2] over [0, 2] : memref<4xi32>
// CHECK-NEXT: %h = devidx.allreduce add %x algorithm hierarchical groups [2, 3] over [0, 1] : tensor<1x6xf32>

// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s

// The verifier rules of a grouped devidx.allreduce.

func.func @dims_out_of_range(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{devidx.allreduce: the reduced mesh dims must be distinct dims of the 2-D mesh [2, 2], found [2]}}
  %r = devidx.allreduce add %x algorithm naive groups [2, 2] over [2] : tensor<4xf32>
  func.return %r : tensor<4xf32>
}
// CHECK: devidx-allreduce-groups-invalid.mlir:[[# @LINE - 3]]:3: error: devidx.allreduce: the reduced mesh dims must be distinct dims of the 2-D mesh [2, 2], found [2]

// -----

func.func @repeated_dims(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{devidx.allreduce: the reduced mesh dims must be distinct dims of the 2-D mesh [2, 2], found [0, 0]}}
  %r = devidx.allreduce add %x algorithm naive groups [2, 2] over [0, 0] : tensor<4xf32>
  func.return %r : tensor<4xf32>
}
// CHECK: devidx-allreduce-groups-invalid.mlir:[[# @LINE - 3]]:3: error: devidx.allreduce: the reduced mesh dims must be distinct dims of the 2-D mesh [2, 2], found [0, 0]

// -----

func.func @empty_mesh_dim(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{devidx.allreduce: the groups' mesh must have dims >= 1, found [2, 0]}}
  %r = devidx.allreduce add %x algorithm naive groups [2, 0] over [0] : tensor<4xf32>
  func.return %r : tensor<4xf32>
}
// CHECK: devidx-allreduce-groups-invalid.mlir:[[# @LINE - 3]]:3: error: devidx.allreduce: the groups' mesh must have dims >= 1, found [2, 0]

// -----

func.func @half_a_group(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{devidx.allreduce: groups need both the mesh and the reduced dims}}
  %r = "devidx.allreduce"(%x) <{kind = "add", algorithm = "naive", group_mesh = array<i64: 2, 2>}> : (tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
// CHECK: devidx-allreduce-groups-invalid.mlir:[[# @LINE - 3]]:3: error: devidx.allreduce: groups need both the mesh and the reduced dims

// -----

func.func @hierarchical_over_one_dim(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{devidx.allreduce: algorithm hierarchical needs groups over two or more mesh dims, found [1]}}
  %r = devidx.allreduce add %x algorithm hierarchical groups [2, 2] over [1] : tensor<4xf32>
  func.return %r : tensor<4xf32>
}
// CHECK: devidx-allreduce-groups-invalid.mlir:[[# @LINE - 3]]:3: error: devidx.allreduce: algorithm hierarchical needs groups over two or more mesh dims, found [1]

// -----

func.func @hierarchical_without_groups(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{devidx.allreduce: algorithm hierarchical needs groups over two or more mesh dims, found no groups}}
  %r = devidx.allreduce add %x algorithm hierarchical : tensor<4xf32>
  func.return %r : tensor<4xf32>
}
// CHECK: devidx-allreduce-groups-invalid.mlir:[[# @LINE - 3]]:3: error: devidx.allreduce: algorithm hierarchical needs groups over two or more mesh dims, found no groups

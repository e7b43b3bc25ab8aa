// Stock xdsl-opt, through our xdsl.universe entry point, has our LLVM target as `multi-llvm`
// (xDSL's own `llvm` keeps its name: two definitions of one target name would break every
// xdsl-opt start). multi-opt has it as `multi-llvm` and as `-t llvm` (SPEC §5).
// RUN: multi-opt %s -p multi-to-llvm -o %t.llvm.mlir
// RUN: xdsl-opt %t.llvm.mlir -t multi-llvm | filecheck %s
// RUN: multi-opt %t.llvm.mlir -t multi-llvm | filecheck %s
// RUN: multi-opt %t.llvm.mlir -t llvm | filecheck %s

// CHECK-DAG: define void @"device0_kernel0"
// CHECK-DAG: define void @"device1_kernel0"
// CHECK-NOT: Traceback

func.func @main(%x: tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
  %y = arith.addf %x, %x : tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  func.return %y : tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
}

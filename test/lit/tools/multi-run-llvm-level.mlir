// The reference interpreter runs the multi, SPMD, device and kernel levels. An llvm-level module
// (after convert-to-llvm its kernels are llvm.func) is refused by --backend interp and by
// --check with a message that says so and what to do, not "@kernel0 is only a declaration";
// the compiled backend runs it.
// RUN: multi-opt %s -p multi-to-llvm -o %t.llvm.mlir
// RUN: %expect-exit 1 multi-run %t.llvm.mlir --backend interp --random-inputs 2>&1 | filecheck %s --check-prefix=INTERP
// RUN: %expect-exit 1 multi-run %t.llvm.mlir --check --random-inputs 2>&1 | filecheck %s --check-prefix=CHECK-OPT
// RUN: multi-run %t.llvm.mlir --random-inputs | filecheck %s --check-prefix=THREADS

// INTERP: multi-run: error: --backend interp: the reference interpreter runs the multi, SPMD, device and kernel levels, not the llvm level: kernel @kernel0 is llvm.func @device0_kernel0 here (convert-to-llvm ran); run it with --backend threads or mpi, or interpret the module from before convert-to-llvm
// CHECK-OPT: multi-run: error: --check: the reference interpreter runs the multi, SPMD, device and kernel levels, not the llvm level
// THREADS: result0: tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>: shape (4,), dtype float32

func.func @main(%x: tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
  %y = arith.addf %x, %x : tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  func.return %y : tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
}

// Every float prints so that it parses back to the same bits (SPEC §6): -inf, +inf, NaN and
// -0.0 at every level. Each level is printed, parsed and printed again: the two texts are the
// same, and the reparsed text holds the bits (hex, as MLIR prints inf and NaN; -0.0 in decimal).
// RUN: multi-opt %s -o %t.multi.mlir
// RUN: multi-opt %t.multi.mlir | filecheck %s --check-prefix=MULTI
// RUN: multi-opt %t.multi.mlir -o %t.multi2.mlir
// RUN: diff %t.multi.mlir %t.multi2.mlir
// RUN: multi-opt %s -p multi-to-devidx,devidx-simplify -o %t.spmd.mlir
// RUN: multi-opt %t.spmd.mlir | filecheck %s --check-prefix=SPMD
// RUN: multi-opt %t.spmd.mlir -o %t.spmd2.mlir
// RUN: diff %t.spmd.mlir %t.spmd2.mlir
// RUN: multi-opt %s -p multi-to-devidx,devidx-simplify,specialize-devices -o %t.device.mlir
// RUN: multi-opt %t.device.mlir | filecheck %s --check-prefix=DEVICE
// RUN: multi-opt %t.device.mlir -o %t.device2.mlir
// RUN: diff %t.device.mlir %t.device2.mlir
// RUN: multi-opt %s -p multi-to-devidx,devidx-simplify,specialize-devices,form-kernels -o %t.kernel.mlir
// RUN: multi-opt %t.kernel.mlir | filecheck %s --check-prefix=KERNEL
// RUN: multi-opt %t.kernel.mlir -o %t.kernel2.mlir
// RUN: diff %t.kernel.mlir %t.kernel2.mlir
// RUN: multi-opt %s -p multi-to-devidx,devidx-simplify,specialize-devices,form-kernels,convert-to-llvm -o %t.llvm.mlir
// RUN: multi-opt %t.llvm.mlir | filecheck %s --check-prefix=LLVM
// RUN: multi-opt %t.llvm.mlir -o %t.llvm2.mlir
// RUN: diff %t.llvm.mlir %t.llvm2.mlir
// Run from the printed text, the values are the same: x + c is c where x is -0.0.
// RUN: %python -c "import sys, numpy as np; np.save(sys.argv[1], np.full(4, -0.0, np.float32))" %t.x.npy
// RUN: multi-run %t.device.mlir --backend interp --input x=%t.x.npy | filecheck %s --check-prefix=VALUES
// RUN: multi-run %t.device.mlir --input x=%t.x.npy | filecheck %s --check-prefix=VALUES
// RUN: multi-run %t.kernel.mlir --backend interp --input x=%t.x.npy | filecheck %s --check-prefix=VALUES

func.func @main(%x: tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
  %c = arith.constant dense<[0xFF800000, 0x7F800000, 0x7FC00000, 0x80000000]> : tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  %y = arith.addf %x, %c : tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  func.return %y : tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
}

// MULTI:  arith.constant dense<[0xff800000, 0x7f800000, 0x7fc00000, -0.000000e+00]> : tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// SPMD:   arith.constant dense<[0xff800000, 0x7f800000, 0x7fc00000, -0.000000e+00]> : tensor<4xf32>
// DEVICE: builtin.module @device_0
// DEVICE: arith.constant dense<[0xff800000, 0x7f800000, 0x7fc00000, -0.000000e+00]> : tensor<4xf32>
// DEVICE: builtin.module @device_1
// DEVICE: arith.constant dense<[0xff800000, 0x7f800000, 0x7fc00000, -0.000000e+00]> : tensor<4xf32>
// KERNEL-DAG: arith.constant 0xff800000 : f32
// KERNEL-DAG: arith.constant 0x7f800000 : f32
// KERNEL-DAG: arith.constant 0x7fc00000 : f32
// KERNEL-DAG: arith.constant -0.000000e+00 : f32
// LLVM-DAG: llvm.mlir.constant(0xff800000 : f32) : f32
// LLVM-DAG: llvm.mlir.constant(0x7f800000 : f32) : f32
// LLVM-DAG: llvm.mlir.constant(0x7fc00000 : f32) : f32
// LLVM-DAG: llvm.mlir.constant(-0.000000e+00 : f32) : f32
// VALUES: result0: {{.*}}: shape (4,), dtype float32
// VALUES-NEXT: [-inf  inf  nan  -0.]

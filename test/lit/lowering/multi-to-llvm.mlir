// RUN: multi-opt %s -p multi-to-llvm | filecheck %s
// RUN: multi-opt %s -p 'multi-to-llvm{allreduce=ring ring-threshold=0}' -t llvm | filecheck %s --check-prefix=LLVM
// The whole pipeline: each device keeps a host schedule in MLIR and its kernels in the llvm
// dialect; layernorm on row shards is one fused kernel per device and moves no data.

#s = #multi.shard<["CPU:0", "CPU:1"], axis = 0>
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<8x16xf32, #s>) -> tensor<8x16xf32, #s> {
    %inv_n = arith.constant dense<0.0625> : tensor<8x1xf32, #s>
    %eps = arith.constant dense<1.0e-05> : tensor<8x1xf32, #s>
    %sum = tg.reduce add %x [1] : tensor<8x16xf32, #s> -> tensor<8x1xf32, #s>
    %mu = arith.mulf %sum, %inv_n : tensor<8x1xf32, #s>
    %mue = tg.expand %mu : tensor<8x1xf32, #s> -> tensor<8x16xf32, #s>
    %d = arith.subf %x, %mue : tensor<8x16xf32, #s>
    %d2 = arith.mulf %d, %d : tensor<8x16xf32, #s>
    %ssq = tg.reduce add %d2 [1] : tensor<8x16xf32, #s> -> tensor<8x1xf32, #s>
    %var = arith.mulf %ssq, %inv_n : tensor<8x1xf32, #s>
    %ve = arith.addf %var, %eps : tensor<8x1xf32, #s>
    %rstd = math.rsqrt %ve : tensor<8x1xf32, #s>
    %rstde = tg.expand %rstd : tensor<8x1xf32, #s> -> tensor<8x16xf32, #s>
    %y = arith.mulf %d, %rstde : tensor<8x16xf32, #s>
    func.return %y : tensor<8x16xf32, #s>
  }
}

// CHECK:      builtin.module @device_0 attributes {devidx.device = 0 : i64}
// CHECK:        llvm.func @device0_kernel0(
// CHECK-NOT:    llvm.func @device0_kernel1(
// CHECK:        func.func @main(%{{.*}}: memref<4x16xf32>) -> memref<4x16xf32>
// CHECK-NEXT:     %[[OUT:.*]] = memref.alloc() : memref<4x16xf32>
// CHECK-NEXT:     func.call @kernel0(%{{.*}}, %[[OUT]])
// CHECK-NEXT:     func.return %[[OUT]]
// CHECK:      builtin.module @device_1 attributes {devidx.device = 1 : i64}
// CHECK:        llvm.func @device1_kernel0(
// CHECK-NOT:    devidx.send
// CHECK-NOT:    devidx.recv

// LLVM:     define void @"device0_kernel0"(ptr
// LLVM:     getelementptr inbounds float
// LLVM:     fadd contract reassoc float
// LLVM:     define void @"device1_kernel0"(ptr

// Unsigned integers through form-kernels and convert-to-llvm (SPEC §3): each tensor op becomes
// its unsigned scalar op in the kernel, then the LLVM instruction.
// RUN: multi-opt %s -p multi-to-devidx,devidx-simplify,specialize-devices,form-kernels | filecheck %s --check-prefix=KERNEL
// RUN: multi-opt %s -p multi-to-llvm -t llvm | filecheck %s --check-prefix=LLVM

module attributes {multi.devices = ["CPU:0"]} {
  func.func @main(%a: tensor<4xi32>, %b: tensor<4xi32>, %f: tensor<4xf32>, %h: tensor<4xf16>) -> (tensor<4xi1>, tensor<4xf32>, tensor<4xi8>, tensor<4xi64>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xi16>) {
    %c = tg.cmp ule %a, %b : tensor<4xi32> -> tensor<4xi1>
    %u = tg.cast %a unsigned : tensor<4xi32> -> tensor<4xf32>
    %t = tg.cast %f unsigned : tensor<4xf32> -> tensor<4xi8>
    %z = tg.cast %a unsigned : tensor<4xi32> -> tensor<4xi64>
    %q = arith.divui %a, %b : tensor<4xi32>
    %r = arith.remui %a, %b : tensor<4xi32>
    %s = arith.shrui %a, %b : tensor<4xi32>
    %g = arith.bitcast %a : tensor<4xi32> to tensor<4xf32>
    %i = arith.bitcast %h : tensor<4xf16> to tensor<4xi16>
    func.return %c, %u, %t, %z, %q, %r, %s, %g, %i : tensor<4xi1>, tensor<4xf32>, tensor<4xi8>, tensor<4xi64>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xi16>
  }
}

// KERNEL: arith.cmpi ule, %{{.*}}, %{{.*}} : i32
// KERNEL: arith.uitofp %{{.*}} : i32 to f32
// KERNEL: arith.fptoui %{{.*}} : f32 to i8
// KERNEL: arith.extui %{{.*}} : i32 to i64
// KERNEL: arith.divui %{{.*}}, %{{.*}} : i32
// KERNEL: arith.remui %{{.*}}, %{{.*}} : i32
// KERNEL: arith.shrui %{{.*}}, %{{.*}} : i32
// KERNEL: arith.bitcast %{{.*}} : i32 to f32
// KERNEL: arith.bitcast %{{.*}} : f16 to i16

// LLVM: icmp ule i32
// LLVM: zext i32 %{{.*}} to i64
// LLVM: sitofp i64 %{{.*}} to float
// LLVM: call i8 @"llvm.fptoui.sat.i8.f32"(float
// LLVM: zext i32 %{{.*}} to i64
// LLVM: udiv i32
// LLVM: urem i32
// LLVM: lshr i32
// LLVM: bitcast i32 %{{.*}} to float
// LLVM: bitcast half %{{.*}} to i16

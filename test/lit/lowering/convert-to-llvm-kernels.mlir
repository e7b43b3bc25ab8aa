// convert-to-llvm lowers the kernels of every device module to llvm.func @device{K}_{name}:
// memref accesses are getelementptr inbounds on the element type with the linearized index,
// float arithmetic carries reassoc+contract, math without an LLVM intrinsic calls libm.
// The host schedule is untouched; its call keeps a declaration of the kernel.
// Buffer arguments are noalias: a kernel writes a fresh buffer, never one it reads.
// RUN: multi-opt %s -p convert-to-llvm | filecheck %s

// CHECK-NOT: Traceback
// CHECK-LABEL: builtin.module @device_0
// CHECK-NEXT:  func.func private @k0(memref<4x8xf32>, memref<4x8xf32>, index) -> () attributes {multi.kernel, multi.llvm_kernel = "device0_k0"}
// CHECK-NEXT:  llvm.func @device0_k0(%x: !llvm.ptr {llvm.noalias}, %y: !llvm.ptr {llvm.noalias}, %n: i64) attributes {multi.kernel, multi.kernel_type = (memref<4x8xf32>, memref<4x8xf32>, index) -> (), multi.device = 0 : i64} {
// CHECK:         %[[C8:.*]] = llvm.mlir.constant(8) : i64
// CHECK-NEXT:    %[[ROW:.*]] = llvm.mul %[[I:.*]], %[[C8]] overflow<nsw> : i64
// CHECK-NEXT:    %[[LIN:.*]] = llvm.add %[[ROW]], %[[J:.*]] overflow<nsw> : i64
// CHECK-NEXT:    %[[P:.*]] = llvm.getelementptr inbounds %x[%[[LIN]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[V:.*]] = llvm.load %[[P]] : !llvm.ptr -> f32
// CHECK:         llvm.fmul %[[V]], %{{.*}} {fastmathFlags = #llvm.fastmath<reassoc,contract>} : f32
// CHECK:         llvm.fadd %{{.*}} {fastmathFlags = #llvm.fastmath<reassoc,contract>} : f32
// CHECK:         llvm.call_intrinsic "llvm.maximum.f32"
// CHECK:         llvm.call @tanhf(%{{.*}}) : (f32) -> f32
// CHECK:         llvm.getelementptr inbounds %y[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK:         llvm.store
// CHECK:       func.func @main(%[[X:.*]]: memref<4x8xf32>) -> memref<4x8xf32> {
// CHECK-NEXT:    %[[Y:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK-NEXT:    %[[N:.*]] = arith.constant 8 : index
// CHECK-NEXT:    func.call @k0(%[[X]], %[[Y]], %[[N]]) : (memref<4x8xf32>, memref<4x8xf32>, index) -> ()
// CHECK-NEXT:    func.return %[[Y]] : memref<4x8xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  llvm.func @tanhf(f32) -> f32
// CHECK-LABEL: builtin.module @device_1
// CHECK-NEXT:  func.func private @k0({{.*}} attributes {multi.kernel, multi.llvm_kernel = "device1_k0"}
// CHECK-NEXT:  llvm.func @device1_k0(
// CHECK-NOT: Traceback

builtin.module {
  builtin.module @device_0 attributes {devidx.device = 0 : i64} {
    func.func @k0(%x: memref<4x8xf32>, %y: memref<4x8xf32>, %n: index) attributes {multi.kernel} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %two = arith.constant 2.0 : f32
      %one = arith.constant 1.0 : f32
      %zero = arith.constant 0.0 : f32
      scf.for %i = %c0 to %c4 step %c1 {
        scf.for %j = %c0 to %n step %c1 {
          %v = memref.load %x[%i, %j] : memref<4x8xf32>
          %a = arith.mulf %v, %two : f32
          %b = arith.addf %a, %one : f32
          %m = arith.maximumf %b, %zero : f32
          %t = math.tanh %m : f32
          memref.store %t, %y[%i, %j] : memref<4x8xf32>
        }
      }
      func.return
    }
    func.func @main(%x: memref<4x8xf32>) -> memref<4x8xf32> {
      %y = memref.alloc() : memref<4x8xf32>
      %n = arith.constant 8 : index
      func.call @k0(%x, %y, %n) : (memref<4x8xf32>, memref<4x8xf32>, index) -> ()
      func.return %y : memref<4x8xf32>
    }
  }
  builtin.module @device_1 attributes {devidx.device = 1 : i64} {
    func.func @k0(%x: memref<4x8xf32>, %y: memref<4x8xf32>, %n: index) attributes {multi.kernel} {
      func.return
    }
    func.func @main(%x: memref<4x8xf32>) -> memref<4x8xf32> {
      %y = memref.alloc() : memref<4x8xf32>
      %n = arith.constant 8 : index
      func.call @k0(%x, %y, %n) : (memref<4x8xf32>, memref<4x8xf32>, index) -> ()
      func.return %y : memref<4x8xf32>
    }
  }
}

// form-kernels on BENCH W1 (y = maximum(x*2+1, 0) - x/3, rows sharded over 2 devices), at the
// device level: the elementwise chain is ONE kernel per device, one loop nest, one load of x per
// element, and the host schedule allocates, calls and returns.
// test/transforms/test_form_kernels.py runs the same program through the interpreter.
// RUN: multi-opt %s -p form-kernels | filecheck %s

// CHECK-LABEL: builtin.module @device_0 attributes {devidx.device = 0 : i64} {
// CHECK-NEXT:    func.func @kernel0(%x: memref<3x6xf32>, %out: memref<3x6xf32>) attributes {multi.kernel, multi.writes = array<i64: 1>} {
// CHECK:           scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:          %[[X:.*]] = memref.load %x[%[[I]], %[[J]]] : memref<3x6xf32>
// CHECK-NEXT:          %[[A:.*]] = arith.mulf %[[X]], %{{.*}} : f32
// CHECK-NEXT:          %[[B:.*]] = arith.addf %[[A]], %{{.*}} : f32
// CHECK-NEXT:          %[[C:.*]] = arith.maximumf %[[B]], %{{.*}} : f32
// CHECK-NEXT:          %[[D:.*]] = arith.divf %[[X]], %{{.*}} : f32
// CHECK-NEXT:          %[[E:.*]] = arith.subf %[[C]], %[[D]] : f32
// CHECK-NEXT:          memref.store %[[E]], %out[%[[I]], %[[J]]] : memref<3x6xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      func.return
// CHECK-NEXT:    }
// CHECK-NEXT:    func.func @main(%x: memref<3x6xf32>) -> memref<3x6xf32> {
// CHECK-NEXT:      %[[Y:.*]] = memref.alloc() : memref<3x6xf32>
// CHECK-NEXT:      func.call @kernel0(%x, %[[Y]]) : (memref<3x6xf32>, memref<3x6xf32>) -> ()
// CHECK-NEXT:      func.return %[[Y]] : memref<3x6xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  builtin.module @device_1 attributes {devidx.device = 1 : i64} {
// CHECK-NEXT:    func.func @kernel0(
// CHECK-NOT:     @kernel1
// CHECK:         func.func @main(

builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"], multi.signature = (tensor<6x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<6x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>} {
  builtin.module @device_0 attributes {devidx.device = 0 : i64} {
    func.func @main(%x: tensor<3x6xf32>) -> tensor<3x6xf32> {
      %0 = arith.constant dense<2.000000e+00> : tensor<3x6xf32>
      %1 = arith.mulf %x, %0 : tensor<3x6xf32>
      %2 = arith.constant dense<1.000000e+00> : tensor<3x6xf32>
      %3 = arith.addf %1, %2 : tensor<3x6xf32>
      %4 = arith.constant dense<0.000000e+00> : tensor<3x6xf32>
      %5 = arith.maximumf %3, %4 : tensor<3x6xf32>
      %6 = arith.constant dense<3.000000e+00> : tensor<3x6xf32>
      %7 = arith.divf %x, %6 : tensor<3x6xf32>
      %8 = arith.subf %5, %7 : tensor<3x6xf32>
      func.return %8 : tensor<3x6xf32>
    }
  }
  builtin.module @device_1 attributes {devidx.device = 1 : i64} {
    func.func @main(%x: tensor<3x6xf32>) -> tensor<3x6xf32> {
      %0 = arith.constant dense<2.000000e+00> : tensor<3x6xf32>
      %1 = arith.mulf %x, %0 : tensor<3x6xf32>
      %2 = arith.constant dense<1.000000e+00> : tensor<3x6xf32>
      %3 = arith.addf %1, %2 : tensor<3x6xf32>
      %4 = arith.constant dense<0.000000e+00> : tensor<3x6xf32>
      %5 = arith.maximumf %3, %4 : tensor<3x6xf32>
      %6 = arith.constant dense<3.000000e+00> : tensor<3x6xf32>
      %7 = arith.divf %x, %6 : tensor<3x6xf32>
      %8 = arith.subf %5, %7 : tensor<3x6xf32>
      func.return %8 : tensor<3x6xf32>
    }
  }
}


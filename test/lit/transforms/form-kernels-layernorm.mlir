// form-kernels on layernorm (examples/layernorm.mlir at the device level, rows sharded over 2
// devices): ONE multireduce kernel per device. Inside the row loop the mean's reduction runs
// first, then the variance's (which uses the mean, hoisted out of its loop), then the loop over
// the row that writes the output; x is read three times, nothing else is written.
// RUN: multi-opt %s -p form-kernels | filecheck %s

// CHECK-LABEL: builtin.module @device_0 attributes {devidx.device = 0 : i64} {
// CHECK-NEXT:    func.func @kernel0(%x: memref<4x16xf32>, %out: memref<4x16xf32>) attributes {multi.kernel, multi.writes = array<i64: 1>} {
// CHECK:           scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %[[SUM:.*]] = scf.for %[[J1:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A1:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:          %[[X1:.*]] = memref.load %x[%[[I]], %[[J1]]] : memref<4x16xf32>
// CHECK-NEXT:          %[[S1:.*]] = arith.addf %[[A1]], %[[X1]] fastmath<reassoc,contract> : f32
// CHECK-NEXT:          scf.yield %[[S1]] : f32
// CHECK-NEXT:        }
// CHECK-NEXT:        %[[MU:.*]] = arith.mulf %[[SUM]], %{{.*}} : f32
// CHECK-NEXT:        %[[SSQ:.*]] = scf.for %[[J2:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A2:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT:          %[[X2:.*]] = memref.load %x[%[[I]], %[[J2]]] : memref<4x16xf32>
// CHECK-NEXT:          %[[D2:.*]] = arith.subf %[[X2]], %[[MU]] : f32
// CHECK-NEXT:          %[[Q2:.*]] = arith.mulf %[[D2]], %[[D2]] fastmath<contract> : f32
// CHECK-NEXT:          %[[S2:.*]] = arith.addf %[[A2]], %[[Q2]] fastmath<reassoc,contract> : f32
// CHECK-NEXT:          scf.yield %[[S2]] : f32
// CHECK-NEXT:        }
// CHECK-NEXT:        %[[VAR:.*]] = arith.mulf %[[SSQ]], %{{.*}} : f32
// CHECK-NEXT:        %[[VE:.*]] = arith.addf %[[VAR]], %{{.*}} : f32
// CHECK-NEXT:        %[[RSTD:.*]] = math.rsqrt %[[VE]] : f32
// CHECK-NEXT:        scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:          %[[X:.*]] = memref.load %x[%[[I]], %[[J]]] : memref<4x16xf32>
// CHECK-NEXT:          %[[D:.*]] = arith.subf %[[X]], %[[MU]] : f32
// CHECK-NEXT:          %[[Y:.*]] = arith.mulf %[[D]], %[[RSTD]] : f32
// CHECK-NEXT:          memref.store %[[Y]], %out[%[[I]], %[[J]]] : memref<4x16xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      func.return
// CHECK-NEXT:    }
// CHECK-NEXT:    func.func @main(%x: memref<4x16xf32>) -> memref<4x16xf32> {
// CHECK-NEXT:      %[[OUT:.*]] = memref.alloc() : memref<4x16xf32>
// CHECK-NEXT:      func.call @kernel0(%x, %[[OUT]]) : (memref<4x16xf32>, memref<4x16xf32>) -> ()
// CHECK-NEXT:      func.return %[[OUT]] : memref<4x16xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  builtin.module @device_1 attributes {devidx.device = 1 : i64} {
// CHECK-NEXT:    func.func @kernel0(
// CHECK-NOT:     @kernel1
// CHECK:         func.func @main(

builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"], multi.signature = (tensor<8x16xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<8x16xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>} {
  builtin.module @device_0 attributes {devidx.device = 0 : i64} {
    func.func @main(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
      %0 = tg.reduce add %x [1] : tensor<4x16xf32> -> tensor<4x1xf32>
      %1 = arith.constant dense<6.250000e-02> : tensor<4x1xf32>
      %2 = arith.mulf %0, %1 : tensor<4x1xf32>
      %3 = tg.expand %2 : tensor<4x1xf32> -> tensor<4x16xf32>
      %4 = arith.subf %x, %3 : tensor<4x16xf32>
      %5 = arith.mulf %4, %4 : tensor<4x16xf32>
      %6 = tg.reduce add %5 [1] : tensor<4x16xf32> -> tensor<4x1xf32>
      %7 = arith.constant dense<6.250000e-02> : tensor<4x1xf32>
      %8 = arith.mulf %6, %7 : tensor<4x1xf32>
      %9 = arith.constant dense<1.000000e-05> : tensor<4x1xf32>
      %10 = arith.addf %8, %9 : tensor<4x1xf32>
      %11 = math.rsqrt %10 : tensor<4x1xf32>
      %12 = tg.expand %11 : tensor<4x1xf32> -> tensor<4x16xf32>
      %13 = arith.mulf %4, %12 : tensor<4x16xf32>
      func.return %13 : tensor<4x16xf32>
    }
  }
  builtin.module @device_1 attributes {devidx.device = 1 : i64} {
    func.func @main(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
      %0 = tg.reduce add %x [1] : tensor<4x16xf32> -> tensor<4x1xf32>
      %1 = arith.constant dense<6.250000e-02> : tensor<4x1xf32>
      %2 = arith.mulf %0, %1 : tensor<4x1xf32>
      %3 = tg.expand %2 : tensor<4x1xf32> -> tensor<4x16xf32>
      %4 = arith.subf %x, %3 : tensor<4x16xf32>
      %5 = arith.mulf %4, %4 : tensor<4x16xf32>
      %6 = tg.reduce add %5 [1] : tensor<4x16xf32> -> tensor<4x1xf32>
      %7 = arith.constant dense<6.250000e-02> : tensor<4x1xf32>
      %8 = arith.mulf %6, %7 : tensor<4x1xf32>
      %9 = arith.constant dense<1.000000e-05> : tensor<4x1xf32>
      %10 = arith.addf %8, %9 : tensor<4x1xf32>
      %11 = math.rsqrt %10 : tensor<4x1xf32>
      %12 = tg.expand %11 : tensor<4x1xf32> -> tensor<4x16xf32>
      %13 = arith.mulf %4, %12 : tensor<4x16xf32>
      func.return %13 : tensor<4x16xf32>
    }
  }
}


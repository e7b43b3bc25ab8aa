// form-kernels on a matmul in tinygrad's formulation (BENCH W4 at 8x8: expand, multiply, reduce
// add over the shared axis; the replicated B is a broadcast `tg.contiguous`, fused, never written
// out): ONE kernel per device. Loops j (tile columns), i (tile rows), k, with a rows x cols
// tile of accumulators carried by the k loop (here 2 x 4 = 8): A[i+r, k] is loaded once per
// row and B[k, j+c] once per column, and each accumulates with math.fma. B's K x 4 panel is
// packed per tile column (a loop nest before the row tiles, into a memref.alloca), and the
// tiles read B from the panel.
// RUN: multi-opt %s -p 'form-kernels{tile-rows=2 tile-cols=4}' | filecheck %s

// CHECK-LABEL: builtin.module @device_0 attributes {devidx.device = 0 : i64} {
// CHECK-NEXT:    func.func @kernel0(%a: memref<4x8xf32>, %b: memref<8x8xf32>, %out: memref<4x8xf32>) attributes {multi.kernel, multi.writes = array<i64: 2>} {
// CHECK:           %[[PANEL:.*]] = memref.alloca() : memref<8x4xf32>
// CHECK:           scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        scf.for %[[PK:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:          scf.for %[[PC:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:            %[[COL:.*]] = arith.addi %[[J]], %[[PC]] : index
// CHECK-NEXT:            %[[V:.*]] = memref.load %b[%[[PK]], %[[COL]]] : memref<8x8xf32>
// CHECK-NEXT:            memref.store %[[V]], %[[PANEL]][%[[PK]], %[[PC]]] : memref<8x4xf32>
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK:             scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:          %[[I1:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK-NEXT:          %[[R0:[0-9]+]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[R7:[0-9]+]] = scf.for %[[K:[0-9]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[C00:[0-9]+]] = %{{.*}}, %{{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK-NEXT:            %[[A0:.*]] = memref.load %a[%[[I]], %[[K]]] : memref<4x8xf32>
// CHECK-NEXT:            %[[B0:.*]] = memref.load %[[PANEL]][%[[K]], %{{.*}}] : memref<8x4xf32>
// CHECK-NEXT:            %{{.*}} = math.fma %[[A0]], %[[B0]], %[[C00]] : f32
// CHECK-NOT:             memref.load %b
// CHECK:                 %[[A1:.*]] = memref.load %a[%[[I1]], %[[K]]] : memref<4x8xf32>
// CHECK-NEXT:            %{{.*}} = math.fma %[[A1]], %[[B0]], %{{.*}} : f32
// CHECK:                 scf.yield
// CHECK-NEXT:          }
// CHECK-NEXT:          memref.store %[[R0]], %out[%[[I]], %[[J]]] : memref<4x8xf32>
// CHECK:               memref.store %[[R7]], %out[%[[I1]], %{{.*}}] : memref<4x8xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      func.return
// CHECK-NEXT:    }
// CHECK-NEXT:    func.func @main(%a: memref<4x8xf32>, %b: memref<8x8xf32>) -> memref<4x8xf32> {
// CHECK-NEXT:      %[[C:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK-NEXT:      func.call @kernel0(%a, %b, %[[C]]) : (memref<4x8xf32>, memref<8x8xf32>, memref<4x8xf32>) -> ()
// CHECK-NEXT:      func.return %[[C]] : memref<4x8xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  builtin.module @device_1 attributes {devidx.device = 1 : i64} {
// CHECK-NEXT:    func.func @kernel0(
// CHECK-NOT:     @kernel1
// CHECK:         func.func @main(

builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"], multi.signature = (tensor<8x8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, tensor<8x8xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<8x8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>} {
  builtin.module @device_0 attributes {devidx.device = 0 : i64} {
    func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>) -> tensor<4x8xf32> {
      %0 = tg.pad %a [[0, 4], [0, 0]] invalid : tensor<4x8xf32> -> tensor<8x8xf32>
      %1 = tg.reshape %0 : tensor<8x8xf32> -> tensor<8x1x8xf32>
      %2 = tg.permute %b [1, 0] : tensor<8x8xf32>
      %3 = tg.reshape %2 : tensor<8x8xf32> -> tensor<1x8x8xf32>
      %4 = tg.expand %3 : tensor<1x8x8xf32> -> tensor<8x8x8xf32>
      %5 = tg.contiguous %4 : tensor<8x8x8xf32>
      %6 = tg.shrink %5 [[0, 4], [0, 8], [0, 8]] : tensor<8x8x8xf32> -> tensor<4x8x8xf32>
      %7 = tg.shrink %1 [[0, 4], [0, 1], [0, 8]] : tensor<8x1x8xf32> -> tensor<4x1x8xf32>
      %8 = tg.expand %7 : tensor<4x1x8xf32> -> tensor<4x8x8xf32>
      %9 = arith.mulf %8, %6 : tensor<4x8x8xf32>
      %10 = tg.reduce add %9 [2] : tensor<4x8x8xf32> -> tensor<4x8x1xf32>
      %11 = tg.pad %10 [[0, 4], [0, 0], [0, 0]] invalid : tensor<4x8x1xf32> -> tensor<8x8x1xf32>
      %12 = tg.reshape %11 : tensor<8x8x1xf32> -> tensor<8x8xf32>
      %13 = tg.shrink %12 [[0, 4], [0, 8]] : tensor<8x8xf32> -> tensor<4x8xf32>
      func.return %13 : tensor<4x8xf32>
    }
  }
  builtin.module @device_1 attributes {devidx.device = 1 : i64} {
    func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>) -> tensor<4x8xf32> {
      %0 = tg.pad %a [[4, 0], [0, 0]] invalid : tensor<4x8xf32> -> tensor<8x8xf32>
      %1 = tg.reshape %0 : tensor<8x8xf32> -> tensor<8x1x8xf32>
      %2 = tg.permute %b [1, 0] : tensor<8x8xf32>
      %3 = tg.reshape %2 : tensor<8x8xf32> -> tensor<1x8x8xf32>
      %4 = tg.expand %3 : tensor<1x8x8xf32> -> tensor<8x8x8xf32>
      %5 = tg.contiguous %4 : tensor<8x8x8xf32>
      %6 = tg.shrink %5 [[4, 8], [0, 8], [0, 8]] : tensor<8x8x8xf32> -> tensor<4x8x8xf32>
      %7 = tg.shrink %1 [[4, 8], [0, 1], [0, 8]] : tensor<8x1x8xf32> -> tensor<4x1x8xf32>
      %8 = tg.expand %7 : tensor<4x1x8xf32> -> tensor<4x8x8xf32>
      %9 = arith.mulf %8, %6 : tensor<4x8x8xf32>
      %10 = tg.reduce add %9 [2] : tensor<4x8x8xf32> -> tensor<4x8x1xf32>
      %11 = tg.pad %10 [[4, 0], [0, 0], [0, 0]] invalid : tensor<4x8x1xf32> -> tensor<8x8x1xf32>
      %12 = tg.reshape %11 : tensor<8x8x1xf32> -> tensor<8x8xf32>
      %13 = tg.shrink %12 [[4, 8], [0, 8]] : tensor<8x8xf32> -> tensor<4x8xf32>
      func.return %13 : tensor<4x8xf32>
    }
  }
}


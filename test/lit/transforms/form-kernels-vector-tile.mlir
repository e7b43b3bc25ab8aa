// form-kernels' vector register tile (form_kernels/vector_tile.py): relu(A @ B + bias) with a
// tile of 2 rows x 32 columns, that is 2 x 2 accumulators of vector<16xf32>. B's K x 32 panel
// is packed per tile column (a scalar loop nest) and the tiles read it with vector.load; A's
// element is loaded once per row and broadcast; each accumulator is a vector.fma; the bias is
// loaded as vectors in the tile-column loop, and the epilogue (addf, maximumf with the
// broadcast 0) runs on vectors before each vector.store.
// RUN: multi-opt %s -p 'form-kernels{tile-rows=2 tile-cols=32}' | filecheck %s

// CHECK-LABEL: func.func @kernel0(%a: memref<4x8xf32>, %b: memref<8x32xf32>, %bias: memref<1x32xf32>, %out: memref<4x32xf32>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[Z:.*]] = vector.broadcast %[[ZERO]] : f32 to vector<16xf32>
// CHECK:         %[[PANEL:.*]] = memref.alloca() : memref<8x32xf32>
// CHECK-NEXT:    %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT:    scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           memref.store %{{.*}}, %[[PANEL]][%{{.*}}, %{{.*}}] : memref<8x32xf32>
// CHECK:           %[[BIAS0:.*]] = vector.load %bias[%{{.*}}, %[[J]]] : memref<1x32xf32>, vector<16xf32>
// CHECK-NEXT:      %[[J16:.*]] = arith.addi %[[J]], %[[C16]] : index
// CHECK-NEXT:      %[[BIAS1:.*]] = vector.load %bias[%{{.*}}, %[[J16]]] : memref<1x32xf32>, vector<16xf32>
// CHECK-NEXT:      scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %[[I1:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK-NEXT:        %[[R0:[0-9]+]], %[[R1:[0-9]+]], %[[R2:[0-9]+]], %[[R3:[0-9]+]] = scf.for %[[K:[0-9]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[C0:[0-9]+]] = %[[Z]], %[[C1:[0-9]+]] = %[[Z]], %[[C2:[0-9]+]] = %[[Z]], %[[C3:[0-9]+]] = %[[Z]]) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK-NEXT:          %[[A0:.*]] = memref.load %a[%[[I]], %[[K]]] : memref<4x8xf32>
// CHECK-NEXT:          %[[A0V:.*]] = vector.broadcast %[[A0]] : f32 to vector<16xf32>
// CHECK-NEXT:          %[[B0:.*]] = vector.load %[[PANEL]][%[[K]], %{{.*}}] : memref<8x32xf32>, vector<16xf32>
// CHECK-NEXT:          %[[F0:.*]] = vector.fma %[[A0V]], %[[B0]], %[[C0]] : vector<16xf32>
// CHECK-NEXT:          %[[B1:.*]] = vector.load %[[PANEL]][%[[K]], %[[C16]]] : memref<8x32xf32>, vector<16xf32>
// CHECK-NEXT:          %[[F1:.*]] = vector.fma %[[A0V]], %[[B1]], %[[C1]] : vector<16xf32>
// CHECK-NEXT:          %[[A1:.*]] = memref.load %a[%[[I1]], %[[K]]] : memref<4x8xf32>
// CHECK-NEXT:          %[[A1V:.*]] = vector.broadcast %[[A1]] : f32 to vector<16xf32>
// CHECK-NEXT:          %[[F2:.*]] = vector.fma %[[A1V]], %[[B0]], %[[C2]] : vector<16xf32>
// CHECK-NEXT:          %[[F3:.*]] = vector.fma %[[A1V]], %[[B1]], %[[C3]] : vector<16xf32>
// CHECK-NEXT:          scf.yield %[[F0]], %[[F1]], %[[F2]], %[[F3]] : vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:        %[[Y0:.*]] = arith.addf %[[R0]], %[[BIAS0]] : vector<16xf32>
// CHECK-NEXT:        %[[M0:.*]] = arith.maximumf %[[Y0]], %[[Z]] : vector<16xf32>
// CHECK-NEXT:        vector.store %[[M0]], %out[%[[I]], %[[J]]] : memref<4x32xf32>, vector<16xf32>
// CHECK-NEXT:        %[[Y1:.*]] = arith.addf %[[R1]], %[[BIAS1]] : vector<16xf32>
// CHECK-NEXT:        %[[M1:.*]] = arith.maximumf %[[Y1]], %[[Z]] : vector<16xf32>
// CHECK-NEXT:        vector.store %[[M1]], %out[%[[I]], %[[J16]]] : memref<4x32xf32>, vector<16xf32>
// CHECK-NEXT:        %[[Y2:.*]] = arith.addf %[[R2]], %[[BIAS0]] : vector<16xf32>
// CHECK-NEXT:        %[[M2:.*]] = arith.maximumf %[[Y2]], %[[Z]] : vector<16xf32>
// CHECK-NEXT:        vector.store %[[M2]], %out[%[[I1]], %[[J]]] : memref<4x32xf32>, vector<16xf32>
// CHECK-NEXT:        %[[Y3:.*]] = arith.addf %[[R3]], %[[BIAS1]] : vector<16xf32>
// CHECK-NEXT:        %[[M3:.*]] = arith.maximumf %[[Y3]], %[[Z]] : vector<16xf32>
// CHECK-NEXT:        vector.store %[[M3]], %out[%[[I1]], %[[J16]]] : memref<4x32xf32>, vector<16xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x32xf32>, %bias: tensor<1x32xf32>) -> tensor<4x32xf32> {
  %ar = tg.reshape %a : tensor<4x8xf32> -> tensor<4x1x8xf32>
  %ae = tg.expand %ar : tensor<4x1x8xf32> -> tensor<4x32x8xf32>
  %bt = tg.permute %b [1, 0] : tensor<8x32xf32> -> tensor<32x8xf32>
  %br = tg.reshape %bt : tensor<32x8xf32> -> tensor<1x32x8xf32>
  %be = tg.expand %br : tensor<1x32x8xf32> -> tensor<4x32x8xf32>
  %p = arith.mulf %ae, %be : tensor<4x32x8xf32>
  %s = tg.reduce add %p [2] : tensor<4x32x8xf32> -> tensor<4x32x1xf32>
  %c = tg.reshape %s : tensor<4x32x1xf32> -> tensor<4x32xf32>
  %bb = tg.expand %bias : tensor<1x32xf32> -> tensor<4x32xf32>
  %y = arith.addf %c, %bb : tensor<4x32xf32>
  %z = arith.constant dense<0.0> : tensor<4x32xf32>
  %r = arith.maximumf %y, %z : tensor<4x32xf32>
  func.return %r : tensor<4x32xf32>
}

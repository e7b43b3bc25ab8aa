// form-kernels on tg.threefry between two elementwise ops: ONE kernel, one loop, x and key
// loaded once per element; threefry is its 20 rounds in i32 arith on the two halves of each
// lane (trunci/shrui to split, addi/xori/shli/shrui/ori for the rounds, Skein's parity
// 0x1BD11BDA = 466688986 in the key schedule, extui/shli/ori to pack: word 1 high), fused with
// the addi before and the xori after. test/runtime/test_threefry.py runs it compiled.
// RUN: multi-opt %s -p form-kernels | filecheck %s

// CHECK-LABEL: builtin.module @device_0 attributes {devidx.device = 0 : i64} {
// CHECK-NEXT:    func.func @kernel0(%x: memref<4xi64>, %key: memref<4xi64>, %out: memref<4xi64>) attributes {multi.kernel, multi.writes = array<i64: 2>} {
// CHECK:           %[[PARITY:.*]] = arith.constant 466688986 : i32
// CHECK:           scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        %[[X:.*]] = memref.load %x[%[[I]]] : memref<4xi64>
// CHECK-NEXT:        %[[Y:.*]] = arith.addi %[[X]], %{{.*}} : i64
// CHECK-NEXT:        %[[YH:.*]] = arith.shrui %[[Y]], %{{.*}} : i64
// CHECK-NEXT:        %[[X1:.*]] = arith.trunci %[[YH]] : i64 to i32
// CHECK-NEXT:        %[[K:.*]] = memref.load %key[%[[I]]] : memref<4xi64>
// CHECK-NEXT:        %[[KH:.*]] = arith.shrui %[[K]], %{{.*}} : i64
// CHECK-NEXT:        %[[K1:.*]] = arith.trunci %[[KH]] : i64 to i32
// CHECK-NEXT:        %{{.*}} = arith.addi %[[X1]], %[[K1]] : i32
// CHECK-NOT:         memref.load
// CHECK:             %[[K0:.*]] = arith.trunci %[[K]] : i64 to i32
// CHECK:             %{{.*}} = arith.xori %[[K0]], %[[K1]] : i32
// CHECK-NEXT:        %{{.*}} = arith.xori %{{.*}}, %[[PARITY]] : i32
// CHECK-NOT:         memref.load
// CHECK:             %[[HW:.*]] = arith.extui %{{.*}} : i32 to i64
// CHECK-NEXT:        %[[HIGH:.*]] = arith.shli %[[HW]], %{{.*}} : i64
// CHECK-NEXT:        %{{.*}} = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:        %[[LOW:.*]] = arith.extui %{{.*}} : i32 to i64
// CHECK-NEXT:        %[[R:.*]] = arith.ori %[[HIGH]], %[[LOW]] : i64
// CHECK-NEXT:        %[[S:.*]] = arith.xori %[[R]], %[[X]] : i64
// CHECK-NEXT:        memref.store %[[S]], %out[%[[I]]] : memref<4xi64>
// CHECK-NEXT:      }
// CHECK-NEXT:      func.return
// CHECK-NEXT:    }
// CHECK-NOT:     tg.threefry
// CHECK-NOT:     @kernel1
builtin.module attributes {multi.devices = ["CPU:0"], multi.signature = (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>} {
  builtin.module @device_0 attributes {devidx.device = 0 : i64} {
    func.func @main(%x: tensor<4xi64>, %key: tensor<4xi64>) -> tensor<4xi64> {
      %one = arith.constant dense<1> : tensor<4xi64>
      %y = arith.addi %x, %one : tensor<4xi64>
      %r = tg.threefry %y, %key : tensor<4xi64>
      %s = arith.xori %r, %x : tensor<4xi64>
      func.return %s : tensor<4xi64>
    }
  }
}

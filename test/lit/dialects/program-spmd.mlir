// RUN: multi-opt %s | multi-opt | filecheck %s

// The same kind of program after the symbolic device-index migration: one SPMD function for
// every device, with d = devidx.device_num. MULTI became an Invalid pad with d-dependent
// bounds, MSELECT a select against Invalid, MSTACK stack + index, COPY a fetch.

// CHECK: builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  // CHECK-LABEL: func.func @main(
  // CHECK-SAME:      %[[X:.*]]: tensor<4x4xf32>, %[[A:.*]]: tensor<4x4xf32>) -> (tensor<8x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  // CHECK-NEXT:    %[[DN:.*]] = devidx.device_num : index
  // CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
  // CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
  // CHECK-NEXT:    %[[C4:.*]] = arith.constant 4 : index
  // CHECK-NEXT:    %[[LO:.*]] = arith.muli %[[DN]], %[[C4]] : index
  // CHECK-NEXT:    %[[HI:.*]] = arith.subi %[[C4]], %[[LO]] : index
  // CHECK-NEXT:    %[[M:.*]] = tg.pad %[[X]] {{\[\[}}%[[LO]], %[[HI]]], [0, 0]] invalid : tensor<4x4xf32> -> tensor<8x4xf32>
  // CHECK-NEXT:    %[[IS1:.*]] = arith.cmpi eq, %[[DN]], %[[C1]] : index
  // CHECK-NEXT:    %[[INV:.*]] = devidx.invalid : tensor<4x4xf32>
  // CHECK-NEXT:    %[[S:.*]] = arith.select %[[IS1]], %[[X]], %[[INV]] : tensor<4x4xf32>
  // CHECK-NEXT:    %[[ST:.*]] = devidx.stack %[[X]], %[[A]] : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<2x4x4xf32>
  // CHECK-NEXT:    %[[T:.*]] = devidx.index %[[ST]][%[[DN]]] : tensor<2x4x4xf32> -> tensor<4x4xf32>
  // CHECK-NEXT:    %[[F:.*]] = devidx.fetch %[[T]] from %[[C0]] : tensor<4x4xf32>
  // CHECK-NEXT:    %[[FC:.*]] = tg.contiguous %[[F]] : tensor<4x4xf32>
  // CHECK-NEXT:    func.return %[[M]], %[[S]], %[[T]], %[[FC]] : tensor<8x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
  func.func @main(%x: tensor<4x4xf32>, %a: tensor<4x4xf32>) -> (tensor<8x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
    %dn = devidx.device_num : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    // MULTI(x, axis 0) over 2 devices: device d's 4 rows land at [4d, 4d + 4).
    %lo = arith.muli %dn, %c4 : index
    %hi = arith.subi %c4, %lo : index
    %m = tg.pad %x [[%lo, %hi], [0, 0]] invalid : tensor<4x4xf32> -> tensor<8x4xf32>
    // MSELECT(x, 1): where(d == 1, x, Invalid).
    %is1 = arith.cmpi eq, %dn, %c1 : index
    %inv = devidx.invalid : tensor<4x4xf32>
    %s = arith.select %is1, %x, %inv : tensor<4x4xf32>
    // MSTACK(x, a): STACK(x, a)[d].
    %st = devidx.stack %x, %a : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<2x4x4xf32>
    %t = devidx.index %st[%dn] : tensor<2x4x4xf32> -> tensor<4x4xf32>
    // COPY to one device of device 0's value: a fetch from 0.
    %f = devidx.fetch %t from %c0 : tensor<4x4xf32>
    %fc = tg.contiguous %f : tensor<4x4xf32>
    func.return %m, %s, %t, %fc : tensor<8x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
  }
}

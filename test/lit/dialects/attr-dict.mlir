// RUN: multi-opt %s | multi-opt | filecheck %s

// Every op of multi, tg and devidx carries a discardable attribute dictionary, written after
// its operands (before the `:`), and prints it back in the same place.

// CHECK-LABEL: func.func @multi_ops(
// CHECK-SAME:      %[[X:.*]]: tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>, %[[A:.*]]: tensor<4x4xf32, #multi.on<["CPU:0"]>>, %[[B:.*]]: tensor<4x4xf32, #multi.on<["CPU:1"]>>) {
// CHECK-NEXT:    %[[M:.*]] = multi.multi %[[X]] axis 0 {tag = 1 : i64} : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    %[[S:.*]] = multi.mselect %[[X]][1] {tag = 2 : i64} : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x4xf32, #multi.on<["CPU:1"]>>
// CHECK-NEXT:    %[[T:.*]] = multi.mstack %[[A]], %[[B]] {tag = 3 : i64} : tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x4xf32, #multi.on<["CPU:1"]>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    %[[C:.*]] = multi.copy %[[M]] {tag = "x"} : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x4xf32, #multi.on<["CPU:0"]>>
// CHECK-NEXT:    %[[R:.*]] = multi.allreduce add %[[X]] {tag} : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    func.return
func.func @multi_ops(%x: tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>, %a: tensor<4x4xf32, #multi.on<["CPU:0"]>>, %b: tensor<4x4xf32, #multi.on<["CPU:1"]>>) {
  %m = multi.multi %x axis 0 {tag = 1 : i64} : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  %s = multi.mselect %x[1] {tag = 2 : i64} : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x4xf32, #multi.on<["CPU:1"]>>
  %t = multi.mstack %a, %b {tag = 3 : i64} : tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x4xf32, #multi.on<["CPU:1"]>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
  %c = multi.copy %m {tag = "x"} : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x4xf32, #multi.on<["CPU:0"]>>
  %r = multi.allreduce add %x {tag} : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
  func.return
}

// CHECK-LABEL: func.func @tg_ops(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32>, %[[N:.*]]: index) {
// CHECK-NEXT:    %[[A:.*]] = tg.reshape %[[X]] {k = 0 : i64} : tensor<8x4xf32> -> tensor<32xf32>
// CHECK-NEXT:    %[[B:.*]] = tg.permute %[[X]] [1, 0] {k = 1 : i64} : tensor<8x4xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[Y:.*]] = tg.shrink %[[X]] {{\[\[}}0, 1], [0, %[[N]]]] {k = 2 : i64} : tensor<8x4xf32> -> tensor<1x4xf32>
// CHECK-NEXT:    %[[C:.*]] = tg.expand %[[Y]] {k = 3 : i64} : tensor<1x4xf32> -> tensor<8x4xf32>
// CHECK-NEXT:    %[[D:.*]] = tg.pad %[[X]] {{\[\[}}1, 2], [0, 0]] value 0.0 {k = 4 : i64} : tensor<8x4xf32> -> tensor<11x4xf32>
// CHECK-NEXT:    %[[E:.*]] = tg.pad %[[X]] {{\[\[}}%[[N]], 0], [0, 0]] invalid {k = 5 : i64} : tensor<8x4xf32> -> tensor<9x4xf32>
// CHECK-NEXT:    %[[G:.*]] = tg.flip %[[X]] [0] {k = 6 : i64} : tensor<8x4xf32>
// CHECK-NEXT:    %[[H:.*]] = tg.reduce add %[[X]] [1] {k = 7 : i64} : tensor<8x4xf32> -> tensor<8x1xf32>
// CHECK-NEXT:    %[[I:.*]] = tg.contiguous %[[X]] {k = 8 : i64} : tensor<8x4xf32>
// CHECK-NEXT:    %[[J:.*]] = tg.cmp lt %[[X]], %[[X]] {k = 9 : i64} : tensor<8x4xf32> -> tensor<8x4xi1>
// CHECK-NEXT:    %[[W:.*]] = tg.where %[[J]], %[[X]], %[[X]] {k = 10 : i64} : tensor<8x4xi1>, tensor<8x4xf32>
// CHECK-NEXT:    %[[L:.*]] = tg.cast %[[X]] {k = 11 : i64} : tensor<8x4xf32> -> tensor<8x4xi32>
// CHECK-NEXT:    func.return
func.func @tg_ops(%x: tensor<8x4xf32>, %n: index) {
  %a = tg.reshape %x {k = 0 : i64} : tensor<8x4xf32> -> tensor<32xf32>
  %b = tg.permute %x [1, 0] {k = 1 : i64} : tensor<8x4xf32> -> tensor<4x8xf32>
  %y = tg.shrink %x [[0, 1], [0, %n]] {k = 2 : i64} : tensor<8x4xf32> -> tensor<1x4xf32>
  %c = tg.expand %y {k = 3 : i64} : tensor<1x4xf32> -> tensor<8x4xf32>
  %d = tg.pad %x [[1, 2], [0, 0]] value 0.0 {k = 4 : i64} : tensor<8x4xf32> -> tensor<11x4xf32>
  %e = tg.pad %x [[%n, 0], [0, 0]] invalid {k = 5 : i64} : tensor<8x4xf32> -> tensor<9x4xf32>
  %g = tg.flip %x [0] {k = 6 : i64} : tensor<8x4xf32>
  %h = tg.reduce add %x [1] {k = 7 : i64} : tensor<8x4xf32> -> tensor<8x1xf32>
  %i = tg.contiguous %x {k = 8 : i64} : tensor<8x4xf32>
  %j = tg.cmp lt %x, %x {k = 9 : i64} : tensor<8x4xf32> -> tensor<8x4xi1>
  %w = tg.where %j, %x, %x {k = 10 : i64} : tensor<8x4xi1>, tensor<8x4xf32>
  %l = tg.cast %x {k = 11 : i64} : tensor<8x4xf32> -> tensor<8x4xi32>
  func.return
}

// CHECK-LABEL: func.func @devidx_ops(
// CHECK-SAME:      %[[A:.*]]: tensor<4x4xf32>) {
// CHECK-NEXT:    %[[DN:.*]] = devidx.device_num {k = 0 : i64} : index
// CHECK-NEXT:    %[[INV:.*]] = devidx.invalid {k = 1 : i64} : tensor<4x4xf32>
// CHECK-NEXT:    %[[ST:.*]] = devidx.stack %[[A]], %[[INV]] {k = 2 : i64} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<2x4x4xf32>
// CHECK-NEXT:    %[[IX:.*]] = devidx.index %[[ST]][%[[DN]]] {k = 3 : i64} : tensor<2x4x4xf32> -> tensor<4x4xf32>
// CHECK-NEXT:    %[[FT:.*]] = devidx.fetch %[[IX]] from %[[DN]] {k = 4 : i64} : tensor<4x4xf32>
// CHECK-NEXT:    devidx.send %[[FT]] to 1 channel 7 {k = 5 : i64} : tensor<4x4xf32>
// CHECK-NEXT:    %[[RV:.*]] = devidx.recv from 0 channel 7 {k = 6 : i64} : tensor<4x4xf32>
// CHECK-NEXT:    func.return
func.func @devidx_ops(%a: tensor<4x4xf32>) {
  %dn = devidx.device_num {k = 0 : i64} : index
  %inv = devidx.invalid {k = 1 : i64} : tensor<4x4xf32>
  %st = devidx.stack %a, %inv {k = 2 : i64} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<2x4x4xf32>
  %ix = devidx.index %st[%dn] {k = 3 : i64} : tensor<2x4x4xf32> -> tensor<4x4xf32>
  %ft = devidx.fetch %ix from %dn {k = 4 : i64} : tensor<4x4xf32>
  devidx.send %ft to 1 channel 7 {k = 5 : i64} : tensor<4x4xf32>
  %rv = devidx.recv from 0 channel 7 {k = 6 : i64} : tensor<4x4xf32>
  func.return
}

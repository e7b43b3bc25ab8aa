// RUN: multi-opt %s | multi-opt | filecheck %s
// RUN: multi-opt %s --print-op-generic | multi-opt | filecheck %s

// Unsigned integers (SPEC §3) are signless iN values; tg.cmp's ult ule ugt uge and
// tg.cast's `unsigned` say where the unsigned reading matters.

// CHECK-LABEL: func.func @cmp_unsigned(
// CHECK-SAME:      %[[X:.*]]: tensor<5xi32>, %[[Y:.*]]: tensor<5xi32>) {
// CHECK-NEXT:    %{{.*}} = tg.cmp ult %[[X]], %[[Y]] : tensor<5xi32> -> tensor<5xi1>
// CHECK-NEXT:    %{{.*}} = tg.cmp ule %[[X]], %[[Y]] : tensor<5xi32> -> tensor<5xi1>
// CHECK-NEXT:    %{{.*}} = tg.cmp ugt %[[X]], %[[Y]] : tensor<5xi32> -> tensor<5xi1>
// CHECK-NEXT:    %{{.*}} = tg.cmp uge %[[X]], %[[Y]] : tensor<5xi32> -> tensor<5xi1>
// CHECK-NEXT:    func.return
func.func @cmp_unsigned(%x: tensor<5xi32>, %y: tensor<5xi32>) {
  %a = tg.cmp ult %x, %y : tensor<5xi32> -> tensor<5xi1>
  %b = tg.cmp ule %x, %y : tensor<5xi32> -> tensor<5xi1>
  %c = tg.cmp ugt %x, %y : tensor<5xi32> -> tensor<5xi1>
  %d = tg.cmp uge %x, %y : tensor<5xi32> -> tensor<5xi1>
  func.return
}

// Unsigned predicates on i1 and placed values (the encoding carries over as for lt).
// CHECK-LABEL: func.func @cmp_unsigned_placed(
// CHECK-NEXT:    %{{.*}} = tg.cmp ult %{{.*}}, %{{.*}} : tensor<2xi1> -> tensor<2xi1>
// CHECK-NEXT:    %{{.*}} = tg.cmp uge %{{.*}}, %{{.*}} : tensor<6xi8, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<6xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
func.func @cmp_unsigned_placed(%b: tensor<2xi1>, %x: tensor<6xi8, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) {
  %a = tg.cmp ult %b, %b : tensor<2xi1> -> tensor<2xi1>
  %c = tg.cmp uge %x, %x : tensor<6xi8, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<6xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  func.return
}

// CHECK-LABEL: func.func @cast_unsigned(
// CHECK-SAME:      %[[U:.*]]: tensor<4xi32>, %[[F:.*]]: tensor<4xf32>) {
// CHECK-NEXT:    %{{.*}} = tg.cast %[[U]] unsigned : tensor<4xi32> -> tensor<4xf32>
// CHECK-NEXT:    %{{.*}} = tg.cast %[[F]] unsigned : tensor<4xf32> -> tensor<4xi8>
// CHECK-NEXT:    %{{.*}} = tg.cast %[[U]] unsigned : tensor<4xi32> -> tensor<4xi64>
// CHECK-NEXT:    %{{.*}} = tg.cast %[[U]] unsigned : tensor<4xi32> -> tensor<4xi1>
// CHECK-NEXT:    %{{.*}} = tg.cast %[[U]] : tensor<4xi32> -> tensor<4xf32>
// CHECK-NEXT:    func.return
func.func @cast_unsigned(%u: tensor<4xi32>, %f: tensor<4xf32>) {
  %a = tg.cast %u unsigned : tensor<4xi32> -> tensor<4xf32>
  %b = tg.cast %f unsigned : tensor<4xf32> -> tensor<4xi8>
  %c = tg.cast %u unsigned : tensor<4xi32> -> tensor<4xi64>
  %d = tg.cast %u unsigned : tensor<4xi32> -> tensor<4xi1>
  %e = tg.cast %u : tensor<4xi32> -> tensor<4xf32>
  func.return
}

// The attribute dictionary follows `unsigned`.
// CHECK-LABEL: func.func @cast_unsigned_attrs(
// CHECK-NEXT:    %{{.*}} = tg.cast %{{.*}} unsigned {note = 1 : i64} : tensor<3xi16, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<3xf64, #multi.on<["CPU:0", "CPU:1"]>>
func.func @cast_unsigned_attrs(%u: tensor<3xi16, #multi.on<["CPU:0", "CPU:1"]>>) {
  %a = tg.cast %u unsigned {note = 1 : i64} : tensor<3xi16, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<3xf64, #multi.on<["CPU:0", "CPU:1"]>>
  func.return
}

// arith.divui, remui, shrui and bitcast on tensors are arith's own ops.
// CHECK-LABEL: func.func @arith_unsigned(
// CHECK-NEXT:    %{{.*}} = arith.divui %{{.*}}, %{{.*}} : tensor<4xi32>
// CHECK-NEXT:    %{{.*}} = arith.remui %{{.*}}, %{{.*}} : tensor<4xi32>
// CHECK-NEXT:    %{{.*}} = arith.shrui %{{.*}}, %{{.*}} : tensor<4xi32>
// CHECK-NEXT:    %{{.*}} = arith.bitcast %{{.*}} : tensor<4xi32> to tensor<4xf32>
// CHECK-NEXT:    %{{.*}} = arith.bitcast %{{.*}} : tensor<4xf16> to tensor<4xi16>
func.func @arith_unsigned(%a: tensor<4xi32>, %b: tensor<4xi32>, %h: tensor<4xf16>) {
  %q = arith.divui %a, %b : tensor<4xi32>
  %r = arith.remui %a, %b : tensor<4xi32>
  %s = arith.shrui %a, %b : tensor<4xi32>
  %f = arith.bitcast %a : tensor<4xi32> to tensor<4xf32>
  %i = arith.bitcast %h : tensor<4xf16> to tensor<4xi16>
  func.return
}

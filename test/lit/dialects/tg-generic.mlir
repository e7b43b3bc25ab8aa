// RUN: multi-opt %s | filecheck %s
// RUN: multi-opt %s | multi-opt --print-op-generic | multi-opt | filecheck %s

// Every tg op written in the generic form parses and prints in its custom form. Dynamic
// pad/shrink bounds are the INT64_MIN entries of `static_bounds`, taken in order from the
// index operands.

// CHECK-LABEL: func.func @all_tg_ops(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32>, %[[N:.*]]: index) {
// CHECK-NEXT:    %[[A:.*]] = tg.reshape %[[X]] : tensor<8x4xf32> -> tensor<32xf32>
// CHECK-NEXT:    %[[B:.*]] = tg.permute %[[X]] [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[Y:.*]] = tg.shrink %[[X]] {{\[\[}}0, 1], [0, 4]] : tensor<8x4xf32> -> tensor<1x4xf32>
// CHECK-NEXT:    %[[C:.*]] = tg.expand %[[Y]] : tensor<1x4xf32> -> tensor<8x4xf32>
// CHECK-NEXT:    %[[D:.*]] = tg.pad %[[X]] {{\[\[}}1, 2], [0, 0]] value 0.0 : tensor<8x4xf32> -> tensor<11x4xf32>
// CHECK-NEXT:    %[[E:.*]] = tg.pad %[[X]] {{\[\[}}%[[N]], 0], [0, 0]] invalid : tensor<8x4xf32> -> tensor<9x4xf32>
// CHECK-NEXT:    %[[F:.*]] = tg.shrink %[[X]] {{\[\[}}0, 4], [%[[N]], %[[N]]]] : tensor<8x4xf32> -> tensor<4x2xf32>
// CHECK-NEXT:    %[[G:.*]] = tg.flip %[[X]] [0] : tensor<8x4xf32>
// CHECK-NEXT:    %[[H:.*]] = tg.reduce add %[[X]] [1] : tensor<8x4xf32> -> tensor<8x1xf32>
// CHECK-NEXT:    %[[I:.*]] = tg.contiguous %[[X]] : tensor<8x4xf32>
// CHECK-NEXT:    %[[J:.*]] = tg.cmp lt %[[X]], %[[X]] : tensor<8x4xf32> -> tensor<8x4xi1>
// CHECK-NEXT:    %[[K:.*]] = tg.where %[[J]], %[[X]], %[[X]] : tensor<8x4xi1>, tensor<8x4xf32>
// CHECK-NEXT:    %[[L:.*]] = tg.cast %[[X]] : tensor<8x4xf32> -> tensor<8x4xi32>
// CHECK-NEXT:    func.return
"func.func"() <{sym_name = "all_tg_ops", function_type = (tensor<8x4xf32>, index) -> ()}> ({
^bb0(%x: tensor<8x4xf32>, %n: index):
  %a = "tg.reshape"(%x) : (tensor<8x4xf32>) -> tensor<32xf32>
  %b = "tg.permute"(%x) <{order = array<i64: 1, 0>}> : (tensor<8x4xf32>) -> tensor<4x8xf32>
  %y = "tg.shrink"(%x) <{static_bounds = array<i64: 0, 1, 0, 4>}> : (tensor<8x4xf32>) -> tensor<1x4xf32>
  %c = "tg.expand"(%y) : (tensor<1x4xf32>) -> tensor<8x4xf32>
  %d = "tg.pad"(%x) <{static_bounds = array<i64: 1, 2, 0, 0>, value = 0.000000e+00 : f32}> : (tensor<8x4xf32>) -> tensor<11x4xf32>
  %e = "tg.pad"(%x, %n) <{static_bounds = array<i64: -9223372036854775808, 0, 0, 0>, invalid}> : (tensor<8x4xf32>, index) -> tensor<9x4xf32>
  %f = "tg.shrink"(%x, %n, %n) <{static_bounds = array<i64: 0, 4, -9223372036854775808, -9223372036854775808>}> : (tensor<8x4xf32>, index, index) -> tensor<4x2xf32>
  %g = "tg.flip"(%x) <{axes = array<i64: 0>}> : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %h = "tg.reduce"(%x) <{kind = "add", axes = array<i64: 1>}> : (tensor<8x4xf32>) -> tensor<8x1xf32>
  %i = "tg.contiguous"(%x) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %j = "tg.cmp"(%x, %x) <{predicate = "lt"}> : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xi1>
  %k = "tg.where"(%j, %x, %x) : (tensor<8x4xi1>, tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %l = "tg.cast"(%x) : (tensor<8x4xf32>) -> tensor<8x4xi32>
  "func.return"() : () -> ()
}) : () -> ()

// RUN: multi-opt %s | filecheck %s
// RUN: multi-opt %s | multi-opt --print-op-generic | multi-opt | filecheck %s

// Every devidx op written in the generic form parses and prints in its custom form.

// CHECK-LABEL: func.func @all_devidx_ops(
// CHECK-SAME:      %[[A:.*]]: tensor<4x4xf32>, %[[B:.*]]: tensor<4x4xf32>) {
// CHECK-NEXT:    %[[DN:.*]] = devidx.device_num : index
// CHECK-NEXT:    %[[INV:.*]] = devidx.invalid : tensor<8x4xf32>
// CHECK-NEXT:    %[[ST:.*]] = devidx.stack %[[A]], %[[B]] : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<2x4x4xf32>
// CHECK-NEXT:    %[[IX:.*]] = devidx.index %[[ST]][%[[DN]]] : tensor<2x4x4xf32> -> tensor<4x4xf32>
// CHECK-NEXT:    %[[FT:.*]] = devidx.fetch %[[A]] from %[[DN]] : tensor<4x4xf32>
// CHECK-NEXT:    devidx.send %[[FT]] to 1 channel 7 : tensor<4x4xf32>
// CHECK-NEXT:    %[[RV:.*]] = devidx.recv from 0 channel 7 : tensor<4x4xf32>
// CHECK-NEXT:    func.return
"func.func"() <{sym_name = "all_devidx_ops", function_type = (tensor<4x4xf32>, tensor<4x4xf32>) -> ()}> ({
^bb0(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>):
  %dn = "devidx.device_num"() : () -> index
  %inv = "devidx.invalid"() : () -> tensor<8x4xf32>
  %st = "devidx.stack"(%a, %b) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<2x4x4xf32>
  %ix = "devidx.index"(%st, %dn) : (tensor<2x4x4xf32>, index) -> tensor<4x4xf32>
  %ft = "devidx.fetch"(%a, %dn) : (tensor<4x4xf32>, index) -> tensor<4x4xf32>
  "devidx.send"(%ft) <{dest = 1 : i64, channel = 7 : i64}> : (tensor<4x4xf32>) -> ()
  %rv = "devidx.recv"() <{source = 0 : i64, channel = 7 : i64}> : () -> tensor<4x4xf32>
  "func.return"() : () -> ()
}) : () -> ()

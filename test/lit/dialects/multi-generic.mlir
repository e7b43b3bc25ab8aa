// RUN: multi-opt %s | filecheck %s
// RUN: multi-opt %s | multi-opt --print-op-generic | multi-opt | filecheck %s

// Every multi op written in the generic form parses (properties in <{...}>) and prints in its
// custom form.

// CHECK-LABEL: func.func @all_multi_ops(
// CHECK-SAME:      %[[X:.*]]: tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>, %[[A:.*]]: tensor<4x4xf32, #multi.on<["CPU:0"]>>, %[[B:.*]]: tensor<4x4xf32, #multi.on<["CPU:1"]>>) {
// CHECK-NEXT:    %[[M:.*]] = multi.multi %[[X]] axis 0 : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    %[[S:.*]] = multi.mselect %[[X]][1] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x4xf32, #multi.on<["CPU:1"]>>
// CHECK-NEXT:    %[[T:.*]] = multi.mstack %[[A]], %[[B]] : tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x4xf32, #multi.on<["CPU:1"]>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    %[[C:.*]] = multi.copy %[[M]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// CHECK-NEXT:    %[[R:.*]] = multi.allreduce max %[[X]] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    func.return
"func.func"() <{sym_name = "all_multi_ops", function_type = (tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>, tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x4xf32, #multi.on<["CPU:1"]>>) -> ()}> ({
^bb0(%x: tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>, %a: tensor<4x4xf32, #multi.on<["CPU:0"]>>, %b: tensor<4x4xf32, #multi.on<["CPU:1"]>>):
  %m = "multi.multi"(%x) <{axis = 0 : i64}> : (tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  %s = "multi.mselect"(%x) <{index = 1 : i64}> : (tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4x4xf32, #multi.on<["CPU:1"]>>
  %t = "multi.mstack"(%a, %b) : (tensor<4x4xf32, #multi.on<["CPU:0"]>>, tensor<4x4xf32, #multi.on<["CPU:1"]>>) -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
  %c = "multi.copy"(%m) : (tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
  %r = "multi.allreduce"(%x) <{kind = "max"}> : (tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>
  "func.return"() : () -> ()
}) : () -> ()

// RUN: multi-opt %s | multi-opt | filecheck %s
// RUN: multi-opt %s --print-op-generic | multi-opt | filecheck %s

// tg.cmp lt|le|gt|ge|eq|ne: elementwise comparison giving i1 with the operands' shape and
// encoding (signed for integers, ordered for floats except ne).

// CHECK-LABEL: func.func @f32_all(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32>, %[[Y:.*]]: tensor<8x4xf32>) {
// CHECK-NEXT:    %[[LT:.*]] = tg.cmp lt %[[X]], %[[Y]] : tensor<8x4xf32> -> tensor<8x4xi1>
// CHECK-NEXT:    %[[LE:.*]] = tg.cmp le %[[X]], %[[Y]] : tensor<8x4xf32> -> tensor<8x4xi1>
// CHECK-NEXT:    %[[GT:.*]] = tg.cmp gt %[[X]], %[[Y]] : tensor<8x4xf32> -> tensor<8x4xi1>
// CHECK-NEXT:    %[[GE:.*]] = tg.cmp ge %[[X]], %[[Y]] : tensor<8x4xf32> -> tensor<8x4xi1>
// CHECK-NEXT:    %[[EQ:.*]] = tg.cmp eq %[[X]], %[[Y]] : tensor<8x4xf32> -> tensor<8x4xi1>
// CHECK-NEXT:    %[[NE:.*]] = tg.cmp ne %[[X]], %[[Y]] : tensor<8x4xf32> -> tensor<8x4xi1>
// CHECK-NEXT:    func.return
func.func @f32_all(%x: tensor<8x4xf32>, %y: tensor<8x4xf32>) {
  %lt = tg.cmp lt %x, %y : tensor<8x4xf32> -> tensor<8x4xi1>
  %le = tg.cmp le %x, %y : tensor<8x4xf32> -> tensor<8x4xi1>
  %gt = tg.cmp gt %x, %y : tensor<8x4xf32> -> tensor<8x4xi1>
  %ge = tg.cmp ge %x, %y : tensor<8x4xf32> -> tensor<8x4xi1>
  %eq = tg.cmp eq %x, %y : tensor<8x4xf32> -> tensor<8x4xi1>
  %ne = tg.cmp ne %x, %y : tensor<8x4xf32> -> tensor<8x4xi1>
  func.return
}

// CHECK-LABEL: func.func @i32_all(
// CHECK-SAME:      %[[X:.*]]: tensor<5xi32>, %[[Y:.*]]: tensor<5xi32>) {
// CHECK-NEXT:    %[[LT:.*]] = tg.cmp lt %[[X]], %[[Y]] : tensor<5xi32> -> tensor<5xi1>
// CHECK-NEXT:    %[[LE:.*]] = tg.cmp le %[[X]], %[[Y]] : tensor<5xi32> -> tensor<5xi1>
// CHECK-NEXT:    %[[GT:.*]] = tg.cmp gt %[[X]], %[[Y]] : tensor<5xi32> -> tensor<5xi1>
// CHECK-NEXT:    %[[GE:.*]] = tg.cmp ge %[[X]], %[[Y]] : tensor<5xi32> -> tensor<5xi1>
// CHECK-NEXT:    %[[EQ:.*]] = tg.cmp eq %[[X]], %[[Y]] : tensor<5xi32> -> tensor<5xi1>
// CHECK-NEXT:    %[[NE:.*]] = tg.cmp ne %[[X]], %[[Y]] : tensor<5xi32> -> tensor<5xi1>
// CHECK-NEXT:    func.return
func.func @i32_all(%x: tensor<5xi32>, %y: tensor<5xi32>) {
  %lt = tg.cmp lt %x, %y : tensor<5xi32> -> tensor<5xi1>
  %le = tg.cmp le %x, %y : tensor<5xi32> -> tensor<5xi1>
  %gt = tg.cmp gt %x, %y : tensor<5xi32> -> tensor<5xi1>
  %ge = tg.cmp ge %x, %y : tensor<5xi32> -> tensor<5xi1>
  %eq = tg.cmp eq %x, %y : tensor<5xi32> -> tensor<5xi1>
  %ne = tg.cmp ne %x, %y : tensor<5xi32> -> tensor<5xi1>
  func.return
}

// Comparing bools gives bools: the short form `: T`.
// CHECK-LABEL: func.func @i1(
// CHECK-SAME:      %[[X:.*]]: tensor<2xi1>) -> tensor<2xi1> {
// CHECK-NEXT:    %[[NE:.*]] = tg.cmp ne %[[X]], %[[X]] : tensor<2xi1> -> tensor<2xi1>
// CHECK-NEXT:    func.return %[[NE]] : tensor<2xi1>
func.func @i1(%x: tensor<2xi1>) -> tensor<2xi1> {
  %ne = tg.cmp ne %x, %x : tensor<2xi1>
  func.return %ne : tensor<2xi1>
}

// The result keeps the operands' encoding.
// CHECK-LABEL: func.func @placed(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, %[[Y:.*]]: tensor<4xi64, #multi.on<["CPU:0", "CPU:1"]>>) -> (tensor<8x4xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, tensor<4xi1, #multi.on<["CPU:0", "CPU:1"]>>) {
// CHECK-NEXT:    %[[A:.*]] = tg.cmp lt %[[X]], %[[X]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x4xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    %[[B:.*]] = tg.cmp ge %[[Y]], %[[Y]] : tensor<4xi64, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4xi1, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    func.return %[[A]], %[[B]] : tensor<8x4xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, tensor<4xi1, #multi.on<["CPU:0", "CPU:1"]>>
func.func @placed(%x: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, %y: tensor<4xi64, #multi.on<["CPU:0", "CPU:1"]>>) -> (tensor<8x4xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, tensor<4xi1, #multi.on<["CPU:0", "CPU:1"]>>) {
  %a = tg.cmp lt %x, %x : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x4xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  %b = tg.cmp ge %y, %y : tensor<4xi64, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4xi1, #multi.on<["CPU:0", "CPU:1"]>>
  func.return %a, %b : tensor<8x4xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, tensor<4xi1, #multi.on<["CPU:0", "CPU:1"]>>
}

// RUN: multi-opt %s | multi-opt | filecheck %s

// tg.cast: convert the element type like C; shape and encoding are kept.

// CHECK-LABEL: func.func @float_int(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32>, %[[Y:.*]]: tensor<8x4xi32>) -> (tensor<8x4xi32>, tensor<8x4xf32>) {
// CHECK-NEXT:    %[[L:.*]] = tg.cast %[[X]] : tensor<8x4xf32> -> tensor<8x4xi32>
// CHECK-NEXT:    %[[M:.*]] = tg.cast %[[Y]] : tensor<8x4xi32> -> tensor<8x4xf32>
// CHECK-NEXT:    func.return %[[L]], %[[M]] : tensor<8x4xi32>, tensor<8x4xf32>
func.func @float_int(%x: tensor<8x4xf32>, %y: tensor<8x4xi32>) -> (tensor<8x4xi32>, tensor<8x4xf32>) {
  %l = tg.cast %x : tensor<8x4xf32> -> tensor<8x4xi32>
  %m = tg.cast %y : tensor<8x4xi32> -> tensor<8x4xf32>
  func.return %l, %m : tensor<8x4xi32>, tensor<8x4xf32>
}

// CHECK-LABEL: func.func @bool(
// CHECK-SAME:      %[[X:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<3xi1>) -> (tensor<3xi1>, tensor<3xf32>, tensor<3xi32>) {
// CHECK-NEXT:    %[[L:.*]] = tg.cast %[[X]] : tensor<3xf32> -> tensor<3xi1>
// CHECK-NEXT:    %[[M:.*]] = tg.cast %[[B]] : tensor<3xi1> -> tensor<3xf32>
// CHECK-NEXT:    %[[N:.*]] = tg.cast %[[B]] : tensor<3xi1> -> tensor<3xi32>
// CHECK-NEXT:    func.return %[[L]], %[[M]], %[[N]] : tensor<3xi1>, tensor<3xf32>, tensor<3xi32>
func.func @bool(%x: tensor<3xf32>, %b: tensor<3xi1>) -> (tensor<3xi1>, tensor<3xf32>, tensor<3xi32>) {
  %l = tg.cast %x : tensor<3xf32> -> tensor<3xi1>
  %m = tg.cast %b : tensor<3xi1> -> tensor<3xf32>
  %n = tg.cast %b : tensor<3xi1> -> tensor<3xi32>
  func.return %l, %m, %n : tensor<3xi1>, tensor<3xf32>, tensor<3xi32>
}

// CHECK-LABEL: func.func @widths(
// CHECK-SAME:      %[[X:.*]]: tensor<2xf64>, %[[Y:.*]]: tensor<2xi8>) -> (tensor<2xf16>, tensor<2xbf16>, tensor<2xi64>, tensor<2xi16>) {
// CHECK-NEXT:    %[[A:.*]] = tg.cast %[[X]] : tensor<2xf64> -> tensor<2xf16>
// CHECK-NEXT:    %[[B:.*]] = tg.cast %[[X]] : tensor<2xf64> -> tensor<2xbf16>
// CHECK-NEXT:    %[[C:.*]] = tg.cast %[[Y]] : tensor<2xi8> -> tensor<2xi64>
// CHECK-NEXT:    %[[D:.*]] = tg.cast %[[Y]] : tensor<2xi8> -> tensor<2xi16>
// CHECK-NEXT:    func.return %[[A]], %[[B]], %[[C]], %[[D]] : tensor<2xf16>, tensor<2xbf16>, tensor<2xi64>, tensor<2xi16>
func.func @widths(%x: tensor<2xf64>, %y: tensor<2xi8>) -> (tensor<2xf16>, tensor<2xbf16>, tensor<2xi64>, tensor<2xi16>) {
  %a = tg.cast %x : tensor<2xf64> -> tensor<2xf16>
  %b = tg.cast %x : tensor<2xf64> -> tensor<2xbf16>
  %c = tg.cast %y : tensor<2xi8> -> tensor<2xi64>
  %d = tg.cast %y : tensor<2xi8> -> tensor<2xi16>
  func.return %a, %b, %c, %d : tensor<2xf16>, tensor<2xbf16>, tensor<2xi64>, tensor<2xi16>
}

// Casting to the same type is allowed.
// CHECK-LABEL: func.func @same(
// CHECK-SAME:      %[[X:.*]]: tensor<2xf32>) -> tensor<2xf32> {
// CHECK-NEXT:    %[[A:.*]] = tg.cast %[[X]] : tensor<2xf32> -> tensor<2xf32>
// CHECK-NEXT:    func.return %[[A]] : tensor<2xf32>
func.func @same(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = tg.cast %x : tensor<2xf32> -> tensor<2xf32>
  func.return %a : tensor<2xf32>
}

// CHECK-LABEL: func.func @placed(
// CHECK-SAME:      %[[X:.*]]: tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>, %[[Y:.*]]: tensor<4xi32, #multi.on<["CPU:0", "CPU:1"]>>) -> (tensor<7x2xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>, tensor<4xf64, #multi.on<["CPU:0", "CPU:1"]>>) {
// CHECK-NEXT:    %[[A:.*]] = tg.cast %[[X]] : tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<7x2xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK-NEXT:    %[[B:.*]] = tg.cast %[[Y]] : tensor<4xi32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4xf64, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    func.return %[[A]], %[[B]] : tensor<7x2xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>, tensor<4xf64, #multi.on<["CPU:0", "CPU:1"]>>
func.func @placed(%x: tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>, %y: tensor<4xi32, #multi.on<["CPU:0", "CPU:1"]>>) -> (tensor<7x2xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>, tensor<4xf64, #multi.on<["CPU:0", "CPU:1"]>>) {
  %a = tg.cast %x : tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<7x2xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  %b = tg.cast %y : tensor<4xi32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4xf64, #multi.on<["CPU:0", "CPU:1"]>>
  func.return %a, %b : tensor<7x2xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>, tensor<4xf64, #multi.on<["CPU:0", "CPU:1"]>>
}

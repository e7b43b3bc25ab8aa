// RUN: multi-opt %s | multi-opt | filecheck %s

// Elementwise math on sharded tensors is standard arith: operands, constants and result share
// one type, encoding included (a sharded x + 1 uses a dense<1.0> constant of x's sharded type).

// CHECK-LABEL: func.func @add_one(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    %[[Y:.*]] = arith.addf %[[X]], %[[ONE]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    func.return %[[Y]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
func.func @add_one(%x: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
  %one = arith.constant dense<1.0> : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  %y = arith.addf %x, %one : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  func.return %y : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
}

// CHECK-LABEL: func.func @float_ops(
// CHECK-SAME:      %[[X:.*]]: tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>) -> tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> {
// CHECK-NEXT:    %[[A:.*]] = arith.mulf %[[X]], %[[X]] : tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK-NEXT:    %[[B:.*]] = arith.subf %[[A]], %[[X]] : tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK-NEXT:    %[[C:.*]] = arith.divf %[[B]], %[[X]] : tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK-NEXT:    %[[D:.*]] = arith.maximumf %[[C]], %[[X]] : tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK-NEXT:    %[[E:.*]] = arith.negf %[[D]] : tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK-NEXT:    func.return %[[E]] : tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
func.func @float_ops(%x: tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>) -> tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> {
  %a = arith.mulf %x, %x : tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  %b = arith.subf %a, %x : tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  %c = arith.divf %b, %x : tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  %d = arith.maximumf %c, %x : tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  %e = arith.negf %d : tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  func.return %e : tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
}

// CHECK-LABEL: func.func @int_ops(
// CHECK-SAME:      %[[X:.*]]: tensor<4x6xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>) -> tensor<4x6xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> {
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant dense<2> : tensor<4x6xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// CHECK-NEXT:    %[[A:.*]] = arith.addi %[[X]], %[[TWO]] : tensor<4x6xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// CHECK-NEXT:    %[[B:.*]] = arith.muli %[[A]], %[[X]] : tensor<4x6xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// CHECK-NEXT:    %[[C:.*]] = arith.divsi %[[B]], %[[TWO]] : tensor<4x6xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// CHECK-NEXT:    %[[D:.*]] = arith.remsi %[[C]], %[[TWO]] : tensor<4x6xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// CHECK-NEXT:    %[[E:.*]] = arith.maxsi %[[D]], %[[X]] : tensor<4x6xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// CHECK-NEXT:    %[[F:.*]] = arith.xori %[[E]], %[[X]] : tensor<4x6xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// CHECK-NEXT:    %[[G:.*]] = arith.shli %[[F]], %[[TWO]] : tensor<4x6xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// CHECK-NEXT:    func.return %[[G]] : tensor<4x6xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
func.func @int_ops(%x: tensor<4x6xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>) -> tensor<4x6xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> {
  %two = arith.constant dense<2> : tensor<4x6xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
  %a = arith.addi %x, %two : tensor<4x6xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
  %b = arith.muli %a, %x : tensor<4x6xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
  %c = arith.divsi %b, %two : tensor<4x6xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
  %d = arith.remsi %c, %two : tensor<4x6xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
  %e = arith.maxsi %d, %x : tensor<4x6xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
  %f = arith.xori %e, %x : tensor<4x6xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
  %g = arith.shli %f, %two : tensor<4x6xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
  func.return %g : tensor<4x6xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
}

// Bool constants and widening/narrowing casts keep the encoding.
// CHECK-LABEL: func.func @consts_and_casts(
// CHECK-SAME:      %[[X:.*]]: tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<4xf64, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
// CHECK-NEXT:    %[[T:.*]] = arith.constant dense<true> : tensor<4xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    %[[V:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[X]], %[[V]] : tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    %[[W:.*]] = arith.extf %[[S]] : tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> to tensor<4xf64, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    func.return %[[W]] : tensor<4xf64, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
func.func @consts_and_casts(%x: tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<4xf64, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
  %t = arith.constant dense<true> : tensor<4xi1, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  %v = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  %s = arith.addf %x, %v : tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  %w = arith.extf %s : tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> to tensor<4xf64, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  func.return %w : tensor<4xf64, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
}

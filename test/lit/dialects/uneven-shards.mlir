// RUN: multi-opt %s | multi-opt | filecheck %s

// Uneven shards (SPEC §1): L rows over N devices, s = ceil(L / N) rows per local buffer, the
// device at position k owns [min(k*s, L), min((k+1)*s, L)). 7 over 3: 3, 3, 1. 4 over 3: 2, 2, 0.
// Every op below keeps or consumes an uneven shard.

// CHECK-LABEL: func.func @seven_over_three(
// CHECK-SAME:      %[[X:.*]]: tensor<3x2xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>) -> tensor<1x2xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> {
// CHECK-NEXT:    %[[M:.*]] = multi.multi %[[X]] axis 0 : tensor<3x2xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[M]] : tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK-NEXT:    %[[R:.*]] = tg.reshape %[[E]] : tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<7x2x1xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK-NEXT:    %[[P:.*]] = tg.permute %[[R]] [1, 0, 2] : tensor<7x2x1xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<2x7x1xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>
// CHECK-NEXT:    %[[X2:.*]] = tg.expand %[[P]] : tensor<2x7x1xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>> -> tensor<2x7x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>
// CHECK-NEXT:    %[[S:.*]] = tg.reduce add %[[X2]] [1, 2] : tensor<2x7x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>> -> tensor<2x1x1xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
// CHECK-NEXT:    %[[LAST:.*]] = tg.shrink %[[M]] {{\[\[}}6, 7], [0, 2]] : tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<1x2xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
// CHECK-NEXT:    func.return %[[LAST]] : tensor<1x2xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
func.func @seven_over_three(%x: tensor<3x2xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>) -> tensor<1x2xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> {
  %m = multi.multi %x axis 0 : tensor<3x2xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  %e = math.exp %m : tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  %r = tg.reshape %e : tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<7x2x1xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  %p = tg.permute %r [1, 0, 2] : tensor<7x2x1xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<2x7x1xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>
  %x2 = tg.expand %p : tensor<2x7x1xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>> -> tensor<2x7x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>
  %s = tg.reduce add %x2 [1, 2] : tensor<2x7x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>> -> tensor<2x1x1xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
  %last = tg.shrink %m [[6, 7], [0, 2]] : tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<1x2xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
  func.return %last : tensor<1x2xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>
}

// CHECK-LABEL: func.func @four_over_three(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>) -> tensor<4x3xi32, #multi.on<["CPU:0"]>> {
// CHECK-NEXT:    %[[M:.*]] = multi.multi %[[X]] axis 0 : tensor<2x3xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<4x3xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK-NEXT:    %[[C:.*]] = tg.cmp gt %[[M]], %[[M]] : tensor<4x3xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<4x3xi1, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK-NEXT:    %[[W:.*]] = tg.where %[[C]], %[[M]], %[[M]] : tensor<4x3xi1, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>, tensor<4x3xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK-NEXT:    %[[F:.*]] = tg.flip %[[W]] [1] : tensor<4x3xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK-NEXT:    %[[G:.*]] = multi.copy %[[F]] : tensor<4x3xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<4x3xi32, #multi.on<["CPU:0"]>>
// CHECK-NEXT:    func.return %[[G]] : tensor<4x3xi32, #multi.on<["CPU:0"]>>
func.func @four_over_three(%x: tensor<2x3xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>) -> tensor<4x3xi32, #multi.on<["CPU:0"]>> {
  %m = multi.multi %x axis 0 : tensor<2x3xi32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>> -> tensor<4x3xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  %c = tg.cmp gt %m, %m : tensor<4x3xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<4x3xi1, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  %w = tg.where %c, %m, %m : tensor<4x3xi1, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>, tensor<4x3xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  %f = tg.flip %w [1] : tensor<4x3xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  %g = multi.copy %f : tensor<4x3xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<4x3xi32, #multi.on<["CPU:0"]>>
  func.return %g : tensor<4x3xi32, #multi.on<["CPU:0"]>>
}

// 5 columns over 2 devices (3, 2), shard axis 1, resharded to 3 devices (2, 2, 1).
// CHECK-LABEL: func.func @five_over_two(
// CHECK-SAME:      %[[X:.*]]: tensor<2x5xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>) -> tensor<2x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>> {
// CHECK-NEXT:    %[[C:.*]] = multi.copy %[[X]] : tensor<2x5xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> -> tensor<2x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>
// CHECK-NEXT:    func.return %[[C]] : tensor<2x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>
func.func @five_over_two(%x: tensor<2x5xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>) -> tensor<2x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>> {
  %c = multi.copy %x : tensor<2x5xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> -> tensor<2x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>
  func.return %c : tensor<2x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>
}

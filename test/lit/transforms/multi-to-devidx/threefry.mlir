// RUN: multi-opt %s -p multi-to-devidx | filecheck %s
// Rule: PlacedOpDropsEncodings
// tg.threefry on sharded values is elementwise: the same op on the plain local tensors (7 rows
// over 2 devices: the padding row is Invalid and poisons it); nothing moves.

module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<7x3xi64, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>, %key: tensor<7x3xi64, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<7x3xi64, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
    %r = tg.threefry %x, %key : tensor<7x3xi64, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
    func.return %r : tensor<7x3xi64, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  }
}

// CHECK:      func.func @main(%[[X:.*]]: tensor<4x3xi64>, %[[KEY:.*]]: tensor<4x3xi64>) -> tensor<4x3xi64> {
// CHECK:      %[[XP:.*]] = tg.pad %[[X]] {{.*}} invalid : tensor<4x3xi64> -> tensor<8x3xi64>
// CHECK-NEXT: %[[XG:.*]] = tg.shrink %[[XP]] [[0, 7], [0, 3]] : tensor<8x3xi64> -> tensor<7x3xi64>
// CHECK-NEXT: %[[KP:.*]] = tg.pad %[[KEY]] {{.*}} invalid : tensor<4x3xi64> -> tensor<8x3xi64>
// CHECK-NEXT: %[[KG:.*]] = tg.shrink %[[KP]] [[0, 7], [0, 3]] : tensor<8x3xi64> -> tensor<7x3xi64>
// CHECK-NEXT: %[[R:.*]] = tg.threefry %[[XG]], %[[KG]] : tensor<7x3xi64>
// CHECK-NOT:  devidx.fetch
// CHECK:      func.return

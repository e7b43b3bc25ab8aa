// RUN: multi-opt %s | multi-opt | filecheck %s

// tg.reshape of a value sharded on axis a: the new shard axis a' is the last axis with
// prod(new[:a']) == prod(old[:a]). Allowed when new[a'] == old[a] (even for an uneven split),
// or when the split is even, new[a'] is divisible by N and each device's block
// prod(local[a:]) is a multiple of prod(new[a'+1:]) (no element moves between devices).

// Splitting the axes after the shard axis keeps axis 0.
// CHECK-LABEL: func.func @keep_axis0(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<8x2x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
// CHECK-NEXT:    %[[A:.*]] = tg.reshape %[[X]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x2x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    func.return %[[A]] : tensor<8x2x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
func.func @keep_axis0(%x: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<8x2x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
  %a = tg.reshape %x : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<8x2x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  func.return %a : tensor<8x2x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
}

// Splitting the axes before the shard axis moves it: 4x6 (axis 1) -> 2x2x6 (axis 2).
// CHECK-LABEL: func.func @boundary_moves(
// CHECK-SAME:      %[[X:.*]]: tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>) -> tensor<2x2x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 2>> {
// CHECK-NEXT:    %[[A:.*]] = tg.reshape %[[X]] : tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> -> tensor<2x2x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 2>>
// CHECK-NEXT:    func.return %[[A]] : tensor<2x2x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 2>>
func.func @boundary_moves(%x: tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>) -> tensor<2x2x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 2>> {
  %a = tg.reshape %x : tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> -> tensor<2x2x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 2>>
  func.return %a : tensor<2x2x6xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 2>>
}

// An uneven split (7 rows over 3 devices) is kept when the shard axis itself is kept.
// CHECK-LABEL: func.func @uneven_kept(
// CHECK-SAME:      %[[X:.*]]: tensor<7x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>) -> tensor<7x2x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> {
// CHECK-NEXT:    %[[A:.*]] = tg.reshape %[[X]] : tensor<7x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<7x2x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK-NEXT:    func.return %[[A]] : tensor<7x2x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
func.func @uneven_kept(%x: tensor<7x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>) -> tensor<7x2x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> {
  %a = tg.reshape %x : tensor<7x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<7x2x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  func.return %a : tensor<7x2x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
}

// Even split, flatten: each device's 4x4 block becomes 16 consecutive elements.
// CHECK-LABEL: func.func @flatten_even(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<32xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
// CHECK-NEXT:    %[[A:.*]] = tg.reshape %[[X]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<32xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    func.return %[[A]] : tensor<32xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
func.func @flatten_even(%x: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<32xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
  %a = tg.reshape %x : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<32xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  func.return %a : tensor<32xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
}

// Even split, splitting the shard axis itself: 8x4 -> 2x4x4, one leading entry per device.
// CHECK-LABEL: func.func @split_shard_axis(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<2x4x4xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
// CHECK-NEXT:    %[[A:.*]] = tg.reshape %[[X]] : tensor<8x4xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<2x4x4xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
// CHECK-NEXT:    func.return %[[A]] : tensor<2x4x4xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
func.func @split_shard_axis(%x: tensor<8x4xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<2x4x4xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> {
  %a = tg.reshape %x : tensor<8x4xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> -> tensor<2x4x4xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  func.return %a : tensor<2x4x4xi32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
}

// Even split on axis 1: 8x4 (2 columns per device) -> 8x2x2, the shard axis stays 1.
// CHECK-LABEL: func.func @split_inner_shard_axis(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>) -> tensor<8x2x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> {
// CHECK-NEXT:    %[[A:.*]] = tg.reshape %[[X]] : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> -> tensor<8x2x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
// CHECK-NEXT:    func.return %[[A]] : tensor<8x2x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
func.func @split_inner_shard_axis(%x: tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>) -> tensor<8x2x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> {
  %a = tg.reshape %x : tensor<8x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>> -> tensor<8x2x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
  func.return %a : tensor<8x2x2xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 1>>
}

// A leading size-1 axis: the shard axis is the LAST axis with the same prefix product.
// CHECK-LABEL: func.func @leading_unit_axis(
// CHECK-SAME:      %[[X:.*]]: tensor<6x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>) -> tensor<1x6x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>> {
// CHECK-NEXT:    %[[A:.*]] = tg.reshape %[[X]] : tensor<6x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<1x6x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>
// CHECK-NEXT:    func.return %[[A]] : tensor<1x6x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>
func.func @leading_unit_axis(%x: tensor<6x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>) -> tensor<1x6x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>> {
  %a = tg.reshape %x : tensor<6x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<1x6x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>
  func.return %a : tensor<1x6x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>
}

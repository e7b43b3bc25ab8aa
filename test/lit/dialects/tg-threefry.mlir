// RUN: multi-opt %s | multi-opt | filecheck %s
// RUN: multi-opt %s --print-op-generic | multi-opt | filecheck %s

// tg.threefry: elementwise threefry2x32 of an i64 counter by an i64 key (tinygrad's THREEFRY);
// counter, key and result share one type, encoding included.

// CHECK-LABEL: func.func @plain(
// CHECK-SAME:      %[[X:.*]]: tensor<8xi64>, %[[K:.*]]: tensor<8xi64>) -> tensor<8xi64> {
// CHECK-NEXT:    %[[R:.*]] = tg.threefry %[[X]], %[[K]] : tensor<8xi64>
// CHECK-NEXT:    func.return %[[R]] : tensor<8xi64>
func.func @plain(%x: tensor<8xi64>, %k: tensor<8xi64>) -> tensor<8xi64> {
  %r = tg.threefry %x, %k : tensor<8xi64>
  func.return %r : tensor<8xi64>
}

// CHECK-LABEL: func.func @sharded(
// CHECK-SAME:      %[[X:.*]]: tensor<7x2xi64, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>, %[[K:.*]]: tensor<7x2xi64, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>)
// CHECK-NEXT:    %[[R:.*]] = tg.threefry %[[X]], %[[K]] : tensor<7x2xi64, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK-NEXT:    func.return %[[R]] : tensor<7x2xi64, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
func.func @sharded(%x: tensor<7x2xi64, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>, %k: tensor<7x2xi64, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>) -> tensor<7x2xi64, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> {
  %r = tg.threefry %x, %k : tensor<7x2xi64, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
  func.return %r : tensor<7x2xi64, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
}

// CHECK-LABEL: func.func @on_devices(
// CHECK-SAME:      %[[X:.*]]: tensor<2xi64, #multi.on<["CPU:0", "CPU:1"]>>, %[[K:.*]]: tensor<2xi64, #multi.on<["CPU:0", "CPU:1"]>>)
// CHECK-NEXT:    %[[R:.*]] = tg.threefry %[[X]], %[[K]] : tensor<2xi64, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    func.return %[[R]] : tensor<2xi64, #multi.on<["CPU:0", "CPU:1"]>>
func.func @on_devices(%x: tensor<2xi64, #multi.on<["CPU:0", "CPU:1"]>>, %k: tensor<2xi64, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<2xi64, #multi.on<["CPU:0", "CPU:1"]>> {
  %r = tg.threefry %x, %k : tensor<2xi64, #multi.on<["CPU:0", "CPU:1"]>>
  func.return %r : tensor<2xi64, #multi.on<["CPU:0", "CPU:1"]>>
}

// specialize-devices: one nested module per device, d folded, fetches as send/recv pairs.
// test/transforms/test_specialize_devices.py runs every chunk in the interpreter before and after.
// RUN: multi-opt %s --split-input-file -p specialize-devices | filecheck %s

// Module structure: the top module keeps multi.devices and multi.signature and holds
// @device_K modules with devidx.device = K; every function is copied; d is folded to K and
// the select on d decides which branch is left (mselect of device 1). (A func.call may have
// effects, so it stays even where its result is unused.)
// CHECK:      builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"], multi.signature = (tensor<4xf32>) -> tensor<4xf32, #multi.on<["CPU:1"]>>} {
// CHECK-LABEL:  builtin.module @device_0 attributes {devidx.device = 0 : i64} {
// CHECK-NEXT:     func.func @helper(%{{.*}}: tensor<4xf32>) -> tensor<4xf32> {
// CHECK:          func.func @main(%{{.*}}: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:       func.call @helper
// CHECK-NEXT:       %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT:       func.return %[[Z]] : tensor<4xf32>
// CHECK-LABEL:  builtin.module @device_1 attributes {devidx.device = 1 : i64} {
// CHECK-NEXT:     func.func @helper(
// CHECK:          func.func @main(%[[X:.*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:       %[[E:.*]] = func.call @helper(%[[X]])
// CHECK-NEXT:       func.return %[[E]] : tensor<4xf32>
// CHECK-NOT:    devidx.device_num
// CHECK:        // -----
module attributes {multi.devices = ["CPU:0", "CPU:1"], multi.signature = (tensor<4xf32>) -> tensor<4xf32, #multi.on<["CPU:1"]>>} {
  func.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
    %e = math.exp %x : tensor<4xf32>
    func.return %e : tensor<4xf32>
  }
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %d = devidx.device_num : index
    %c1 = arith.constant 1 : index
    %is1 = arith.cmpi eq, %d, %c1 : index
    %inv = devidx.invalid : tensor<4xf32>
    %e = func.call @helper(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %s = arith.select %is1, %e, %inv : tensor<4xf32>
    func.return %s : tensor<4xf32>
  }
}

// -----

// A fetch from (d + 1) mod 3: every device sends to its left neighbour and receives from its
// right one; one channel per (fetch, receiver), the same number on both sides; sends come
// before the receive.
// CHECK-LABEL: builtin.module @device_0
// CHECK:         devidx.send %[[X0:.*]] to 2 channel 2 : tensor<2xf32>
// CHECK-NEXT:    %[[R0:.*]] = devidx.recv from 1 channel 0 : tensor<2xf32>
// CHECK-NEXT:    arith.addf %[[R0]], %[[X0]]
// CHECK-LABEL: builtin.module @device_1
// CHECK:         devidx.send %[[X1:.*]] to 0 channel 0 : tensor<2xf32>
// CHECK-NEXT:    %[[R1:.*]] = devidx.recv from 2 channel 1 : tensor<2xf32>
// CHECK-LABEL: builtin.module @device_2
// CHECK:         devidx.send %[[X2:.*]] to 1 channel 1 : tensor<2xf32>
// CHECK-NEXT:    %[[R2:.*]] = devidx.recv from 0 channel 2 : tensor<2xf32>
module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2"], multi.signature = (tensor<2xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>) -> tensor<2xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>} {
  func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    %d = devidx.device_num : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %s = arith.addi %d, %c1 : index
    %src = arith.remsi %s, %c3 : index
    %f = devidx.fetch %x from %src : tensor<2xf32>
    %y = arith.addf %f, %x : tensor<2xf32>
    func.return %y : tensor<2xf32>
  }
}

// -----

// A fetch from device 0 (a broadcast): device 0 reads its own value (a fetch stores it, so
// it becomes tg.contiguous) and sends it to every other device; the others receive.
// CHECK-LABEL: builtin.module @device_0
// CHECK:         %[[V:.*]] = arith.mulf
// CHECK-NEXT:    devidx.send %[[V]] to 1 channel 0 : tensor<2xf32>
// CHECK-NEXT:    devidx.send %[[V]] to 2 channel 1 : tensor<2xf32>
// CHECK-NEXT:    %[[OWN:.*]] = tg.contiguous %[[V]] : tensor<2xf32>
// CHECK-NEXT:    func.return %[[OWN]]
// CHECK-LABEL: builtin.module @device_1
// CHECK-NEXT:    func.func @main
// CHECK-NEXT:    %[[R1:.*]] = devidx.recv from 0 channel 0 : tensor<2xf32>
// CHECK-NEXT:    func.return %[[R1]]
// CHECK-LABEL: builtin.module @device_2
// CHECK-NEXT:    func.func @main
// CHECK-NEXT:    %[[R2:.*]] = devidx.recv from 0 channel 1 : tensor<2xf32>
// CHECK-NEXT:    func.return %[[R2]]
module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2"], multi.signature = (tensor<2xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>) -> tensor<2xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>} {
  func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    %c0 = arith.constant 0 : index
    %v = arith.mulf %x, %x : tensor<2xf32>
    %f = devidx.fetch %v from %c0 : tensor<2xf32>
    func.return %f : tensor<2xf32>
  }
}

// -----

// A fetch that is dead on a device makes no message: device 1 does not use the fetched value
// (the select keeps it only on device 0), so device 0 sends nothing and device 1 receives
// nothing; device 0 receives from device 1. Device 1 computes the sent value although its own
// result does not need it.
// CHECK-LABEL: builtin.module @device_0
// CHECK-NOT:     devidx.send
// CHECK:         %[[R:.*]] = devidx.recv from 1 channel 0 : tensor<2xf32>
// CHECK-NEXT:    func.return %[[R]]
// CHECK-LABEL: builtin.module @device_1
// CHECK-NEXT:    func.func @main(%[[X:.*]]: tensor<2xf32>)
// CHECK-NEXT:    %[[V:.*]] = math.exp %[[X]]
// CHECK-NEXT:    devidx.send %[[V]] to 0 channel 0 : tensor<2xf32>
// CHECK-NOT:     devidx.recv
// CHECK:         func.return
module attributes {multi.devices = ["CPU:0", "CPU:1"], multi.signature = (tensor<2xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<2xf32, #multi.on<["CPU:0", "CPU:1"]>>} {
  func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    %d = devidx.device_num : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %src = arith.subi %c1, %d : index
    %v = math.exp %x : tensor<2xf32>
    %f = devidx.fetch %v from %src : tensor<2xf32>
    %first = arith.cmpi eq, %d, %c0 : index
    %inv = devidx.invalid : tensor<2xf32>
    %s = arith.select %first, %f, %inv : tensor<2xf32>
    func.return %s : tensor<2xf32>
  }
}

// -----

// Chained fetches: device 1 must send g = fetch(x from 0) + 1 to device 0, so it needs the
// first fetch although its own result never uses it.
// CHECK-LABEL: builtin.module @device_0
// CHECK:         devidx.send %{{.*}} to 1 channel 0
// CHECK:         %[[G:.*]] = devidx.recv from 1 channel 1
// CHECK-NEXT:    func.return %[[G]]
// CHECK-LABEL: builtin.module @device_1
// CHECK:         %[[F:.*]] = devidx.recv from 0 channel 0
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant dense<1.000000e+00>
// CHECK-NEXT:    %[[G1:.*]] = arith.addf %[[F]], %[[ONE]]
// CHECK-NEXT:    devidx.send %[[G1]] to 0 channel 1
// CHECK-NEXT:    %[[Z:.*]] = arith.constant dense<0.000000e+00>
// CHECK-NEXT:    func.return %[[Z]]
module attributes {multi.devices = ["CPU:0", "CPU:1"], multi.signature = (tensor<2xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<2xf32, #multi.on<["CPU:0", "CPU:1"]>>} {
  func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    %d = devidx.device_num : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %f = devidx.fetch %x from %c0 : tensor<2xf32>
    %one = arith.constant dense<1.0> : tensor<2xf32>
    %g = arith.addf %f, %one : tensor<2xf32>
    %h = devidx.fetch %g from %c1 : tensor<2xf32>
    %first = arith.cmpi eq, %d, %c0 : index
    %inv = devidx.invalid : tensor<2xf32>
    %s = arith.select %first, %h, %inv : tensor<2xf32>
    func.return %s : tensor<2xf32>
  }
}

// -----

// No devidx.device_num: every device gets the same program.
// CHECK-LABEL: builtin.module @device_0
// CHECK-NEXT:    func.func @main(%[[X:.*]]: tensor<2xf32>)
// CHECK-NEXT:    %[[N:.*]] = arith.negf %[[X]]
// CHECK-NEXT:    func.return %[[N]]
// CHECK-LABEL: builtin.module @device_1
// CHECK-NEXT:    func.func @main(%[[X1:.*]]: tensor<2xf32>)
// CHECK-NEXT:    %[[N1:.*]] = arith.negf %[[X1]]
// CHECK-NEXT:    func.return %[[N1]]
module attributes {multi.devices = ["CPU:0", "CPU:1"], multi.signature = (tensor<2xf32>) -> tensor<2xf32>} {
  func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    %n = arith.negf %x : tensor<2xf32>
    func.return %n : tensor<2xf32>
  }
}

// -----

// A scatter from device 0: the value is Invalid on device 1 but device 1 fetches device 0's
// instance, so it must still receive (no rule looks through a fetch inside one device's copy).
// CHECK-LABEL: builtin.module @device_0
// CHECK:         devidx.send %[[A:.*]] to 1 channel 0 : tensor<2xf32>
// CHECK-NEXT:    %[[OWN:.*]] = tg.contiguous %[[A]]
// CHECK-LABEL: builtin.module @device_1
// CHECK-NEXT:    func.func @main
// CHECK-NEXT:    %[[R:.*]] = devidx.recv from 0 channel 0 : tensor<2xf32>
module attributes {multi.devices = ["CPU:0", "CPU:1"], multi.signature = (tensor<2xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<2xf32, #multi.on<["CPU:0", "CPU:1"]>>} {
  func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
    %d = devidx.device_num : index
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %d, %c0 : index
    %inv = devidx.invalid : tensor<2xf32>
    %mine = arith.select %first, %a, %inv : tensor<2xf32>
    %f = devidx.fetch %mine from %c0 : tensor<2xf32>
    %e = math.exp %f : tensor<2xf32>
    func.return %e : tensor<2xf32>
  }
}

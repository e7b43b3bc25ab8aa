// form-kernels{spmd=true}: the kernels are built once from the SPMD level (no
// specialize-devices), with the device number d symbolic. Device 0's module holds them; every
// other device module declares those it calls (multi.kernel_of = 0), and each has its own host
// schedule: d is a constant there, passed to the kernels whose element still depends on it;
// each devidx.fetch becomes that device's sends and receive; a kernel whose buffer the device
// never uses is not run there. After convert-to-llvm there is one llvm function per kernel.
// RUN: multi-opt %s --split-input-file -p 'form-kernels{spmd=true}' | filecheck %s
// RUN: multi-opt %s --split-input-file -p 'form-kernels{spmd=true},convert-to-llvm' -t llvm | filecheck %s --check-prefix=LLVM

// BENCH W3 on 2 devices (x.sum(), naive allreduce), as multi-to-devidx and devidx-simplify
// leave it. The local sum's window moves with d (rows [4d, 4d + 4) of the padded vector):
// the reduction loops over that window only, so d cancels and the kernel takes no d.
// CHECK-LABEL: builtin.module @device_0
// CHECK:         func.func @kernel0(%x: memref<4xf32>, %out: memref<1xf32>) attributes {multi.kernel, multi.writes = array<i64: 1>} {
// CHECK:           scf.for %{{.*}} = %{{.*}} to %[[FOUR:.*]] step
// CHECK-NEXT:        memref.load %x[
// CHECK:         func.func @main(%x: memref<4xf32>) -> memref<1xf32> {
// CHECK-NEXT:      %[[S:.*]] = memref.alloc() : memref<1xf32>
// CHECK-NEXT:      func.call @kernel0(%x, %[[S]]) : (memref<4xf32>, memref<1xf32>) -> ()
// CHECK-NEXT:      devidx.send %[[S]] to 1 channel 0 : memref<1xf32>
// CHECK-NEXT:      %[[R:.*]] = devidx.recv from 1 channel 1 : memref<1xf32>
// CHECK-NEXT:      %[[T:.*]] = memref.alloc() : memref<1xf32>
// CHECK-NEXT:      func.call @kernel1(%[[S]], %[[R]], %[[T]])
// CHECK-LABEL: builtin.module @device_1
// CHECK-NEXT:    func.func private @kernel0(memref<4xf32>, memref<1xf32>) -> () attributes {multi.kernel, multi.kernel_of = 0 : i64}
// CHECK-NEXT:    func.func private @kernel1(memref<1xf32>, memref<1xf32>, memref<1xf32>) -> () attributes {multi.kernel, multi.kernel_of = 0 : i64}
// CHECK-NEXT:    func.func @main(%x: memref<4xf32>) -> memref<1xf32> {
// CHECK-NEXT:      %[[S1:.*]] = memref.alloc() : memref<1xf32>
// CHECK-NEXT:      func.call @kernel0(%x, %[[S1]])
// CHECK-NEXT:      %[[R1:.*]] = devidx.recv from 0 channel 0 : memref<1xf32>
// CHECK-NEXT:      devidx.send %[[S1]] to 0 channel 1 : memref<1xf32>
// CHECK-NEXT:      %[[T1:.*]] = memref.alloc() : memref<1xf32>
// CHECK-NEXT:      func.call @kernel1(%[[R1]], %[[S1]], %[[T1]])
// LLVM: define void @"device0_kernel0"(ptr {{.*}}, ptr {{.*}})
// LLVM-NOT: define void @"device1_kernel0"
builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"], multi.signature = (tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<1xf32, #multi.on<["CPU:0", "CPU:1"]>>} {
  func.func @main(%x: tensor<4xf32>) -> tensor<1xf32> {
    %d = devidx.device_num : index
    %0 = arith.constant 4 : index
    %1 = arith.muli %d, %0 : index
    %2 = arith.constant 1 : index
    %3 = arith.subi %2, %d : index
    %4 = arith.muli %3, %0 : index
    %5 = tg.pad %x [[%1, %4]] invalid : tensor<4xf32> -> tensor<8xf32>
    %9 = tg.reduce add %5 [0] : tensor<8xf32> -> tensor<1xf32>
    %10 = arith.constant 0 : index
    %11 = devidx.fetch %9 from %10 : tensor<1xf32>
    %12 = devidx.fetch %9 from %2 : tensor<1xf32>
    %13 = arith.addf %11, %12 : tensor<1xf32>
    func.return %13 : tensor<1xf32>
  }
}

// -----

// Uneven rows (5 over 2 devices: 3 and 2), row sums of squares: the last row of device 1's
// buffer is padding, so the kernel masks rows by d and takes d as its last argument; each
// host passes its own number.
// CHECK-LABEL: builtin.module @device_0
// CHECK:         func.func @kernel0(%x: memref<3x4xf32>, %out: memref<3x1xf32>, %d: index) attributes {multi.kernel, multi.writes = array<i64: 1>} {
// CHECK:         func.func @main(%x: memref<3x4xf32>) -> memref<3x1xf32> {
// CHECK-NEXT:      %d = arith.constant 0 : index
// CHECK-NEXT:      %[[B:.*]] = memref.alloc() : memref<3x1xf32>
// CHECK-NEXT:      func.call @kernel0(%x, %[[B]], %d) : (memref<3x4xf32>, memref<3x1xf32>, index) -> ()
// CHECK-LABEL: builtin.module @device_1
// CHECK:         func.func @main(%x: memref<3x4xf32>) -> memref<3x1xf32> {
// CHECK-NEXT:      %d = arith.constant 1 : index
// CHECK:           func.call @kernel0(%x, %{{.*}}, %d)
// LLVM: define void @"device0_kernel0"(ptr {{.*}}, ptr {{.*}}, i64 {{.*}})
builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"], multi.signature = (tensor<5x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<5x1xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>} {
  func.func @main(%x: tensor<3x4xf32>) -> tensor<3x1xf32> {
    %d = devidx.device_num : index
    %0 = arith.constant 3 : index
    %1 = arith.muli %d, %0 : index
    %2 = arith.constant 1 : index
    %3 = arith.subi %2, %d : index
    %4 = arith.muli %3, %0 : index
    %5 = tg.pad %x [[%1, %4], [0, 0]] invalid : tensor<3x4xf32> -> tensor<6x4xf32>
    %6 = tg.shrink %5 [[0, 5], [0, 4]] : tensor<6x4xf32> -> tensor<5x4xf32>
    %7 = arith.mulf %6, %6 : tensor<5x4xf32>
    %8 = tg.reduce add %7 [1] : tensor<5x4xf32> -> tensor<5x1xf32>
    %9 = tg.pad %8 [[0, 1], [0, 0]] invalid : tensor<5x1xf32> -> tensor<6x1xf32>
    %10 = arith.addi %1, %0 : index
    %11 = tg.shrink %9 [[%1, %10], [0, 1]] : tensor<6x1xf32> -> tensor<3x1xf32>
    func.return %11 : tensor<3x1xf32>
  }
}

// -----

// Gather to device 0 of a value every device computes: device 1 receives device 0's, so its
// own kernel would only feed a fetch nobody makes from it, and it does not run there.
// CHECK-LABEL: builtin.module @device_0
// CHECK:         func.func @main(%x: memref<4xf32>) -> memref<4xf32> {
// CHECK-NEXT:      %[[Y:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:      func.call @kernel0(%x, %[[Y]])
// CHECK-NEXT:      devidx.send %[[Y]] to 1 channel 0 : memref<4xf32>
// CHECK-NEXT:      func.return %[[Y]] : memref<4xf32>
// CHECK-LABEL: builtin.module @device_1
// CHECK-NOT:       func.call
// CHECK:           %[[R:.*]] = devidx.recv from 0 channel 0 : memref<4xf32>
// CHECK-NEXT:      func.return %[[R]] : memref<4xf32>
builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"], multi.signature = (tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>} {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %c0 = arith.constant 0 : index
    %y = arith.mulf %x, %x : tensor<4xf32>
    %f = devidx.fetch %y from %c0 : tensor<4xf32>
    func.return %f : tensor<4xf32>
  }
}

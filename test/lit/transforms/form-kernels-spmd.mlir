// form-kernels{spmd=true}: the kernels are built once from the SPMD level (no
// specialize-devices), with the device number d symbolic, and ONE host schedule serves every
// device: the top module (devidx.spmd) holds the kernels once and @main, in which d is
// devidx.device_num, passed to the kernels whose element still depends on it; each
// devidx.fetch and devidx.allreduce stays one op on memrefs, its peers computed from d at run
// time (the index arithmetic it needs is in the schedule). Nothing depends on N but
// multi.devices. After convert-to-llvm there is one llvm function per kernel.
// RUN: multi-opt %s --split-input-file -p 'form-kernels{spmd=true}' | filecheck %s
// RUN: multi-opt %s --split-input-file -p 'form-kernels{spmd=true},convert-to-llvm' -t llvm | filecheck %s --check-prefix=LLVM

// BENCH W3 on 2 devices (x.sum(), naive allreduce as fetches), as multi-to-devidx and
// devidx-simplify leave it. The local sum's window moves with d (rows [4d, 4d + 4) of the
// padded vector): the reduction loops over that window only, so d cancels and the kernel
// takes no d.
// CHECK:       builtin.module attributes {{.*}}devidx.spmd
// CHECK-NOT:     builtin.module @device
// CHECK:         func.func @kernel0(%x: memref<4xf32>, %out: memref<1xf32>) attributes {multi.kernel, multi.writes = array<i64: 1>, multi.device = 0 : i64} {
// CHECK:           scf.for %{{.*}} = %{{.*}} to %[[FOUR:.*]] step
// CHECK-NEXT:        memref.load %x[
// CHECK:         func.func @main(%x: memref<4xf32>) -> memref<1xf32> {
// CHECK-NEXT:      %d = devidx.device_num : index
// CHECK-NEXT:      %[[S:.*]] = memref.alloc() : memref<1xf32>
// CHECK-NEXT:      func.call @kernel0(%x, %[[S]]) : (memref<4xf32>, memref<1xf32>) -> ()
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[F0:.*]] = devidx.fetch %[[S]] from %[[C0]] : memref<1xf32>
// CHECK-NEXT:      %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[F1:.*]] = devidx.fetch %[[S]] from %[[C1]] : memref<1xf32>
// CHECK-NEXT:      memref.dealloc %[[S]] : memref<1xf32>
// CHECK-NEXT:      %[[T:.*]] = memref.alloc() : memref<1xf32>
// CHECK-NEXT:      func.call @kernel1(%[[F0]], %[[F1]], %[[T]])
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
// buffer is padding, so the kernel masks rows by d and takes d as its last argument; the
// one schedule passes devidx.device_num.
// CHECK:         func.func @kernel0(%x: memref<3x4xf32>, %out: memref<3x1xf32>, %d: index) attributes {multi.kernel, multi.writes = array<i64: 1>, multi.device = 0 : i64} {
// CHECK:         func.func @main(%x: memref<3x4xf32>) -> memref<3x1xf32> {
// CHECK-NEXT:      %d = devidx.device_num : index
// CHECK-NEXT:      %[[B:.*]] = memref.alloc() : memref<3x1xf32>
// CHECK-NEXT:      func.call @kernel0(%x, %[[B]], %d) : (memref<3x4xf32>, memref<3x1xf32>, index) -> ()
// CHECK-NEXT:      func.return %[[B]] : memref<3x1xf32>
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

// Gather to every device of device 0's value: one fetch, whose source the runtime evaluates
// on each device (device 0 then sends, device 1 receives).
// CHECK:         func.func @main(%x: memref<4xf32>) -> memref<4xf32> {
// CHECK-NEXT:      %d = devidx.device_num : index
// CHECK-NEXT:      %[[Y:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:      func.call @kernel0(%x, %[[Y]])
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[F:.*]] = devidx.fetch %[[Y]] from %[[C0]] : memref<4xf32>
// CHECK-NEXT:      memref.dealloc %[[Y]] : memref<4xf32>
// CHECK-NEXT:      func.return %[[F]] : memref<4xf32>
builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"], multi.signature = (tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>} {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %c0 = arith.constant 0 : index
    %y = arith.mulf %x, %x : tensor<4xf32>
    %f = devidx.fetch %y from %c0 : tensor<4xf32>
    func.return %f : tensor<4xf32>
  }
}

// -----

// An allreduce over every device (multi-to-devidx{collectives=ops}) stays one op on the
// buffers: no message list, whatever the number of devices.
// CHECK:         func.func @main(%x: memref<4xf32>) -> memref<4xf32> {
// CHECK-NEXT:      %d = devidx.device_num : index
// CHECK-NEXT:      %[[Y:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:      func.call @kernel0(%x, %[[Y]])
// CHECK-NEXT:      %[[R:.*]] = devidx.allreduce add %[[Y]] algorithm ring : memref<4xf32>
// CHECK-NEXT:      memref.dealloc %[[Y]] : memref<4xf32>
// CHECK-NEXT:      func.return %[[R]] : memref<4xf32>
builtin.module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2"], multi.signature = (tensor<4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>) -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2"]>>} {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = arith.mulf %x, %x : tensor<4xf32>
    %r = devidx.allreduce add %y algorithm ring : tensor<4xf32>
    func.return %r : tensor<4xf32>
  }
}

// form-kernels' host schedule: each device's @main over memrefs allocates, calls kernels,
// sends and receives in the device program's order, frees every buffer right after its last
// use (never an argument or a result) and copies a result that would alias an argument or
// another result. A `tg.contiguous` of a buffer is that buffer.
// RUN: multi-opt %s --split-input-file -p form-kernels | filecheck %s

// BENCH W3 (x.sum() over 2 devices, allreduce by exchange): the local sum is sent and also
// added to the received one.
// CHECK-LABEL: builtin.module @device_0
// CHECK:         func.func @main(%x: memref<500xf32>) -> memref<1xf32> {
// CHECK-NEXT:      %[[S:.*]] = memref.alloc() : memref<1xf32>
// CHECK-NEXT:      func.call @kernel0(%x, %[[S]]) : (memref<500xf32>, memref<1xf32>) -> ()
// CHECK-NEXT:      devidx.send %[[S]] to 1 channel 0 : memref<1xf32>
// CHECK-NEXT:      %[[R:.*]] = devidx.recv from 1 channel 1 : memref<1xf32>
// CHECK-NEXT:      %[[T:.*]] = memref.alloc() : memref<1xf32>
// CHECK-NEXT:      func.call @kernel1(%[[S]], %[[R]], %[[T]]) : (memref<1xf32>, memref<1xf32>, memref<1xf32>) -> ()
// CHECK-NEXT:      memref.dealloc %[[R]] : memref<1xf32>
// CHECK-NEXT:      memref.dealloc %[[S]] : memref<1xf32>
// CHECK-NEXT:      func.return %[[T]] : memref<1xf32>
// CHECK-LABEL: builtin.module @device_1
// CHECK:         func.func @main(%x: memref<500xf32>) -> memref<1xf32> {
// CHECK-NEXT:      %[[S1:.*]] = memref.alloc() : memref<1xf32>
// CHECK-NEXT:      func.call @kernel0(%x, %[[S1]])
// CHECK-NEXT:      %[[R1:.*]] = devidx.recv from 0 channel 0 : memref<1xf32>
// CHECK-NEXT:      devidx.send %[[S1]] to 0 channel 1 : memref<1xf32>
builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"], multi.signature = (tensor<1000xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) -> tensor<1xf32, #multi.on<["CPU:0", "CPU:1"]>>} {
  builtin.module @device_0 attributes {devidx.device = 0 : i64} {
    func.func @main(%x: tensor<500xf32>) -> tensor<1xf32> {
      %0 = tg.reduce add %x [0] : tensor<500xf32> -> tensor<1xf32>
      devidx.send %0 to 1 channel 0 : tensor<1xf32>
      %1 = tg.contiguous %0 : tensor<1xf32>
      %2 = devidx.recv from 1 channel 1 : tensor<1xf32>
      %3 = arith.addf %1, %2 : tensor<1xf32>
      func.return %3 : tensor<1xf32>
    }
  }
  builtin.module @device_1 attributes {devidx.device = 1 : i64} {
    func.func @main(%x: tensor<500xf32>) -> tensor<1xf32> {
      %0 = tg.reduce add %x [0] : tensor<500xf32> -> tensor<1xf32>
      %1 = devidx.recv from 0 channel 0 : tensor<1xf32>
      devidx.send %0 to 0 channel 1 : tensor<1xf32>
      %2 = tg.contiguous %0 : tensor<1xf32>
      %3 = arith.addf %1, %2 : tensor<1xf32>
      func.return %3 : tensor<1xf32>
    }
  }
}


// -----

// One device, results that are an argument, a contiguous of it and a computed value: the first
// two are copies, the third is the kernel's buffer; the signature is recorded on the module.
// CHECK:       builtin.module attributes {multi.signature = (tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)} {
// CHECK:         func.func @main(%x: memref<3xf32>) -> (memref<3xf32>, memref<3xf32>, memref<3xf32>) {
// CHECK-NEXT:      %[[E:.*]] = memref.alloc() : memref<3xf32>
// CHECK-NEXT:      func.call @kernel0(%x, %[[E]]) : (memref<3xf32>, memref<3xf32>) -> ()
// CHECK-NEXT:      %[[C1:.*]] = memref.alloc() : memref<3xf32>
// CHECK-NEXT:      "memref.copy"(%x, %[[C1]]) : (memref<3xf32>, memref<3xf32>) -> ()
// CHECK-NEXT:      %[[C2:.*]] = memref.alloc() : memref<3xf32>
// CHECK-NEXT:      "memref.copy"(%x, %[[C2]]) : (memref<3xf32>, memref<3xf32>) -> ()
// CHECK-NEXT:      func.return %[[C1]], %[[C2]], %[[E]] : memref<3xf32>, memref<3xf32>, memref<3xf32>
module {
  func.func @main(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
    %c = tg.contiguous %x : tensor<3xf32>
    %e = math.exp %x : tensor<3xf32>
    func.return %x, %c, %e : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }
}

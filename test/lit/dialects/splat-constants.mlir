// RUN: multi-opt %s | multi-opt | filecheck %s
// RUN: multi-opt %s -p multi-to-devidx,devidx-simplify | filecheck %s --check-prefix=SPMD

// Splat dense constants of every element type print as they always have (`dense<v>`), however
// large: the parser stores a splat as its one element (dialects/splat.py), the printer prints
// any one-element splat as `dense<v>`, and the SPMD level's narrowed copy of a sharded splat
// (one device's rows) is the same splat with the local type.
// test/transforms/test_splat_constants.py checks the bytes and the values at every level.

#s0 = #multi.shard<["CPU:0", "CPU:1"], axis = 0>
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  // CHECK-LABEL: func.func @main(
  // CHECK-SAME:      %[[X:.*]]: tensor<4096x4096xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>) ->
  // CHECK-NEXT:    %[[F32:.*]] = arith.constant dense<2.000000e+00> : tensor<4096x4096xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  // CHECK-NEXT:    %[[F64:.*]] = arith.constant dense<-0.000000e+00> : tensor<3x5xf64>
  // CHECK-NEXT:    %[[I32:.*]] = arith.constant dense<-7> : tensor<1024x4xi32>
  // CHECK-NEXT:    %[[I1:.*]] = arith.constant dense<true> : tensor<9x9xi1>
  // CHECK-NEXT:    %[[BF16:.*]] = arith.constant dense<1.500000e+00> : tensor<2x2xbf16>
  // CHECK-NEXT:    %[[NINF:.*]] = arith.constant dense<0xff800000> : tensor<8xf32>
  // CHECK-NEXT:    %[[I8:.*]] = arith.constant dense<-1> : tensor<4xi8>
  // CHECK-NEXT:    %[[ONE:.*]] = arith.constant dense<5.000000e-01> : tensor<1xf32>
  // CHECK-NEXT:    %[[EMPTY:.*]] = arith.constant dense<> : tensor<0xf32>
  // CHECK-NEXT:    %[[LIST:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  // CHECK-NEXT:    %[[Y:.*]] = arith.mulf %[[X]], %[[F32]] : tensor<4096x4096xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  // CHECK-NEXT:    func.return %[[Y]], %[[F64]], %[[I32]], %[[I1]], %[[BF16]], %[[NINF]], %[[I8]], %[[ONE]], %[[EMPTY]], %[[LIST]] :
  func.func @main(%x: tensor<4096x4096xf32, #s0>) -> (tensor<4096x4096xf32, #s0>, tensor<3x5xf64>, tensor<1024x4xi32>, tensor<9x9xi1>, tensor<2x2xbf16>, tensor<8xf32>, tensor<4xi8>, tensor<1xf32>, tensor<0xf32>, tensor<2xf32>) {
    %f32 = arith.constant dense<2.0> : tensor<4096x4096xf32, #s0>
    %f64 = arith.constant dense<-0.0> : tensor<3x5xf64>
    %i32 = arith.constant dense<-7> : tensor<1024x4xi32>
    %i1 = arith.constant dense<true> : tensor<9x9xi1>
    %bf16 = arith.constant dense<1.5> : tensor<2x2xbf16>
    %ninf = arith.constant dense<0xFF800000> : tensor<8xf32>
    %i8 = arith.constant dense<255> : tensor<4xi8>
    %one = arith.constant dense<0.5> : tensor<1xf32>
    %empty = arith.constant dense<1.0> : tensor<0xf32>
    %list = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %y = arith.mulf %x, %f32 : tensor<4096x4096xf32, #s0>
    func.return %y, %f64, %i32, %i1, %bf16, %ninf, %i8, %one, %empty, %list : tensor<4096x4096xf32, #s0>, tensor<3x5xf64>, tensor<1024x4xi32>, tensor<9x9xi1>, tensor<2x2xbf16>, tensor<8xf32>, tensor<4xi8>, tensor<1xf32>, tensor<0xf32>, tensor<2xf32>
  }
}

// SPMD-LABEL: func.func @main(%x: tensor<2048x4096xf32>) -> (tensor<2048x4096xf32>,
// SPMD:         %[[C:.*]] = arith.constant dense<2.000000e+00> : tensor<2048x4096xf32>
// SPMD-NEXT:    arith.mulf %x, %[[C]] : tensor<2048x4096xf32>

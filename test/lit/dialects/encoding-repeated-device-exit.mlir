// A repeated device in an encoding is a parse error (exit code 1) naming the device.
// RUN: %expect-exit 1 multi-opt %s 2>&1 | filecheck %s

// CHECK-NOT:  Traceback
// CHECK:      encoding-repeated-device-exit.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: device "GPU:1" appears twice in the list
// CHECK-NOT:  Traceback
%a = "test.op"() : () -> tensor<4xf32>
%b = multi.copy %a : tensor<4xf32, #multi.on<["GPU:0"]>> -> tensor<4xf32, #multi.on<["GPU:1", "GPU:0", "GPU:1"]>>

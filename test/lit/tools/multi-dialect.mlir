// multi-opt knows this project's dialects, and so does stock xdsl-opt (through the
// xdsl.universe entry point); a verifier error in a `multi` op is reported at its line.
// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: xdsl-opt %s --split-input-file --verify-diagnostics | filecheck %s --check-prefix=STOCK

// CHECK:      func.func @ok
// CHECK-NEXT:   multi.mselect %{{.*}}[1]
// STOCK:      func.func @ok
// STOCK-NEXT:   multi.mselect %{{.*}}[1]
func.func @ok(%x: tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4x4xf32, #multi.on<["CPU:1"]>> {
  %s = multi.mselect %x[1] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x4xf32, #multi.on<["CPU:1"]>>
  func.return %s : tensor<4x4xf32, #multi.on<["CPU:1"]>>
}

// -----

// CHECK:      multi-dialect.mlir:[[# @LINE + 4]]:3: error: multi.mselect: index 3 is out of range for 2 devices
// STOCK:      multi.mselect: index 3 is out of range for 2 devices
func.func @bad(%x: tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4x4xf32, #multi.on<["CPU:1"]>> {
  // expected-error @+1 {{multi.mselect: index 3 is out of range for 2 devices}}
  %s = multi.mselect %x[3] : tensor<4x4xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x4xf32, #multi.on<["CPU:1"]>>
  func.return %s : tensor<4x4xf32, #multi.on<["CPU:1"]>>
}

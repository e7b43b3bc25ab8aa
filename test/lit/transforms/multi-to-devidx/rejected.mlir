// RUN: multi-opt %s --split-input-file --verify-diagnostics -p multi-to-devidx | filecheck %s
// Inputs multi-to-devidx cannot lower are reported at the op, never a crash.

module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  // expected-error @+1 {{pass 'multi-to-devidx' failed: multi-to-devidx: func.func: only @main may take or return placed values, found @helper}}
  func.func @helper(%x: tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> {
    func.return %x : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
  }
  func.func @main(%x: tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> {
    func.return %x : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
  }
}
// CHECK: rejected.mlir:[[# @LINE - 7]]:3: error: pass 'multi-to-devidx' failed: multi-to-devidx: func.func: only @main may take or return placed values, found @helper

// -----

// Rule: PlacedOpWithRegionsIsRejected
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>, %c: i1) -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>> {
    // expected-error @+1 {{pass 'multi-to-devidx' failed: multi-to-devidx: scf.if: ops with regions on placed values are not supported}}
    %r = scf.if %c -> (tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>) {
      scf.yield %x : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
    } else {
      scf.yield %x : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
    }
    func.return %r : tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
  }
}
// CHECK: rejected.mlir:[[# @LINE - 8]]:5: error: pass 'multi-to-devidx' failed: multi-to-devidx: scf.if: ops with regions on placed values are not supported

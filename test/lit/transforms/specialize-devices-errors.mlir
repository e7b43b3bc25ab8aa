// specialize-devices rejects what it cannot specialize, with a diagnostic at the op.
// RUN: %expect-exit 1 multi-opt %s --split-input-file -p specialize-devices 2>&1 | filecheck %s

// A fetch source that d does not determine (here a function argument).
// CHECK: specialize-devices-errors.mlir:[[# @LINE + 4]]:5: error: pass 'specialize-devices' failed: devidx.fetch at {{.*}}specialize-devices-errors.mlir:[[# @LINE + 4]]:5: its source device does not fold to a constant on device 0
// CHECK-NOT: Traceback
module attributes {multi.devices = ["CPU:0", "CPU:1"], multi.signature = (tensor<2xf32>, index) -> tensor<2xf32>} {
  func.func @main(%x: tensor<2xf32>, %j: index) -> tensor<2xf32> {
    %f = devidx.fetch %x from %j : tensor<2xf32>
    func.return %f : tensor<2xf32>
  }
}

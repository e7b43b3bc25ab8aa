// specialize-devices needs the device list, and runs once.
// RUN: %expect-exit 1 multi-opt %s -p specialize-devices 2>&1 | filecheck %s --check-prefix=NODEV
// RUN: %expect-exit 1 multi-opt %s -p specialize-devices,specialize-devices 2>&1 | filecheck %s --check-prefix=NODEV
// RUN: sed -e 's/module {/module attributes {multi.devices = ["CPU:0"]} {/' %s | %expect-exit 1 multi-opt -p specialize-devices,specialize-devices 2>&1 | filecheck %s --check-prefix=TWICE

// NODEV: error: pass 'specialize-devices' failed: specialize-devices: the module needs a non-empty `multi.devices` attribute
// TWICE: error: pass 'specialize-devices' failed: specialize-devices: the module is already specialized
module {
  func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    func.return %x : tensor<2xf32>
  }
}

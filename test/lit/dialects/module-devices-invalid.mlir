// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s

// SPEC §1: a module's `multi.devices` is a non-empty list of distinct device names and lists
// every device used inside the module. The diagnostic is at the first use of an unlisted device
// (an argument, an op, a function signature), or at the module for a malformed list.

// CHECK-NOT: Traceback

// A function argument.
builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  // expected-error @+1 {{func.func @main: argument 0 (%x): tensor<4xf32, #multi.on<["CPU:0", "CPU:5"]>> uses device "CPU:5", which the module's multi.devices ["CPU:0", "CPU:1"] does not list}}
  func.func @main(%x: tensor<4xf32, #multi.on<["CPU:0", "CPU:5"]>>) {
    func.return
  }
}
// CHECK: module-devices-invalid.mlir:[[# @LINE - 4]]:19: error: func.func @main: argument 0 (%x): tensor<4xf32, #multi.on<["CPU:0", "CPU:5"]>> uses device "CPU:5", which the module's multi.devices ["CPU:0", "CPU:1"] does not list
// CHECK-NEXT: {{^}}  func.func @main(%x: tensor<4xf32, #multi.on<["CPU:0", "CPU:5"]>>) {
// CHECK-NEXT: {{^}}                  ^{{$}}

// -----

// An op's result (a copy to a device the module does not have).
builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @main(%x: tensor<4xf32, #multi.on<["CPU:0"]>>) {
    // expected-error @+1 {{multi.copy: result 0 (%c): tensor<4xf32, #multi.on<["GPU:0"]>> uses device "GPU:0", which the module's multi.devices ["CPU:0", "CPU:1"] does not list}}
    %c = multi.copy %x : tensor<4xf32, #multi.on<["CPU:0"]>> -> tensor<4xf32, #multi.on<["GPU:0"]>>
    func.return
  }
}
// CHECK: module-devices-invalid.mlir:[[# @LINE - 4]]:5: error: multi.copy: result 0 (%c): tensor<4xf32, #multi.on<["GPU:0"]>> uses device "GPU:0", which the module's multi.devices ["CPU:0", "CPU:1"] does not list

// -----

// Elementwise ops of other dialects too.
builtin.module attributes {multi.devices = ["CPU:0"]} {
  func.func @main(%x: tensor<4xf32, #multi.on<["CPU:0"]>>) {
    // expected-error @+1 {{test.op: result 0 (%y): tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> uses device "CPU:1", which the module's multi.devices ["CPU:0"] does not list}}
    %y = "test.op"() : () -> tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
    %z = arith.addf %y, %y : tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
    func.return
  }
}
// CHECK: module-devices-invalid.mlir:[[# @LINE - 5]]:5: error: test.op: result 0 (%y): tensor<4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> uses device "CPU:1", which the module's multi.devices ["CPU:0"] does not list

// -----

// A function result type: at the function.
builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  // expected-error @+1 {{func.func @main: property 'function_type': tensor<4xf32, #multi.on<["CPU:2"]>> uses device "CPU:2", which the module's multi.devices ["CPU:0", "CPU:1"] does not list}}
  func.func @main() -> tensor<4xf32, #multi.on<["CPU:2"]>> {
    %r = "test.op"() : () -> tensor<4xf32, #multi.on<["CPU:2"]>>
    func.return %r : tensor<4xf32, #multi.on<["CPU:2"]>>
  }
}
// CHECK: module-devices-invalid.mlir:[[# @LINE - 5]]:3: error: func.func @main: property 'function_type': tensor<4xf32, #multi.on<["CPU:2"]>> uses device "CPU:2", which the module's multi.devices ["CPU:0", "CPU:1"] does not list

// -----

// A function declaration: its signature is all there is.
builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  // expected-error @+1 {{func.func @ext: property 'function_type': tensor<4xf32, #multi.on<["CPU:1", "CPU:3"]>> uses device "CPU:3", which the module's multi.devices ["CPU:0", "CPU:1"] does not list}}
  func.func private @ext(tensor<4xf32, #multi.on<["CPU:1", "CPU:3"]>>)
}
// CHECK: module-devices-invalid.mlir:[[# @LINE - 2]]:3: error: func.func @ext: property 'function_type': tensor<4xf32, #multi.on<["CPU:1", "CPU:3"]>> uses device "CPU:3", which the module's multi.devices ["CPU:0", "CPU:1"] does not list

// -----

// The argument of a block that is not the entry block.
builtin.module attributes {multi.devices = ["CPU:0"]} {
  func.func @main(%x: tensor<4xf32, #multi.on<["CPU:0"]>>) {
    %y = "test.op"() : () -> tensor<4xf32, #multi.on<["CPU:0"]>>
    "test.termop"() [^bb1] : () -> ()
  // expected-error @+1 {{func.func @main: argument 0 (%b) of block 1: tensor<4xf32, #multi.on<["CPU:9"]>> uses device "CPU:9", which the module's multi.devices ["CPU:0"] does not list}}
  ^bb1(%b: tensor<4xf32, #multi.on<["CPU:9"]>>):
    func.return
  }
}
// CHECK: module-devices-invalid.mlir:[[# @LINE - 4]]:8: error: func.func @main: argument 0 (%b) of block 1: tensor<4xf32, #multi.on<["CPU:9"]>> uses device "CPU:9", which the module's multi.devices ["CPU:0"] does not list

// -----

// Types inside op attributes count too.
builtin.module attributes {multi.devices = ["CPU:0"]} {
  // expected-error @+1 {{test.op: attribute 't': tensor<4xf32, #multi.on<["CPU:4"]>> uses device "CPU:4", which the module's multi.devices ["CPU:0"] does not list}}
  "test.op"() {t = tensor<4xf32, #multi.on<["CPU:4"]>>} : () -> ()
}
// CHECK: module-devices-invalid.mlir:[[# @LINE - 2]]:3: error: test.op: attribute 't': tensor<4xf32, #multi.on<["CPU:4"]>> uses device "CPU:4", which the module's multi.devices ["CPU:0"] does not list

// -----

// A nested module without the attribute uses the enclosing module's list.
builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  builtin.module @inner {
    // expected-error @+1 {{test.op: result 0 (%y): tensor<4xf32, #multi.on<["CPU:1", "CPU:2"]>> uses device "CPU:2", which the module's multi.devices ["CPU:0", "CPU:1"] does not list}}
    %y = "test.op"() : () -> tensor<4xf32, #multi.on<["CPU:1", "CPU:2"]>>
  }
}
// CHECK: module-devices-invalid.mlir:[[# @LINE - 3]]:5: error: test.op: result 0 (%y): tensor<4xf32, #multi.on<["CPU:1", "CPU:2"]>> uses device "CPU:2", which the module's multi.devices ["CPU:0", "CPU:1"] does not list

// -----

// A nested module with its own list uses that one.
builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  builtin.module @inner attributes {multi.devices = ["GPU:0"]} {
    %y = "test.op"() : () -> tensor<4xf32, #multi.on<["GPU:0"]>>
    // expected-error @+1 {{test.op: result 0 (%z): tensor<4xf32, #multi.on<["CPU:0"]>> uses device "CPU:0", which the module's multi.devices ["GPU:0"] does not list}}
    %z = "test.op"() : () -> tensor<4xf32, #multi.on<["CPU:0"]>>
  }
}
// CHECK: module-devices-invalid.mlir:[[# @LINE - 3]]:5: error: test.op: result 0 (%z): tensor<4xf32, #multi.on<["CPU:0"]>> uses device "CPU:0", which the module's multi.devices ["GPU:0"] does not list

// -----

// The list is not empty.
// expected-error @+1 {{builtin.module: multi.devices must be a non-empty list of distinct device names (strings), found []}}
builtin.module attributes {multi.devices = []} {
}
// CHECK: module-devices-invalid.mlir:[[# @LINE - 2]]:1: error: builtin.module: multi.devices must be a non-empty list of distinct device names (strings), found []

// -----

// The list is a list.
// expected-error @+1 {{builtin.module: multi.devices must be a non-empty list of distinct device names (strings), found "CPU:0"}}
builtin.module attributes {multi.devices = "CPU:0"} {
}
// CHECK: module-devices-invalid.mlir:[[# @LINE - 2]]:1: error: builtin.module: multi.devices must be a non-empty list of distinct device names (strings), found "CPU:0"

// -----

// The list holds strings.
// expected-error @+1 {{builtin.module: multi.devices must be a non-empty list of distinct device names (strings); entry 1 is 1 : i64}}
builtin.module attributes {multi.devices = ["CPU:0", 1]} {
}
// CHECK: module-devices-invalid.mlir:[[# @LINE - 2]]:1: error: builtin.module: multi.devices must be a non-empty list of distinct device names (strings); entry 1 is 1 : i64

// -----

// The names are distinct.
// expected-error @+1 {{builtin.module: multi.devices lists device "CPU:0" twice}}
builtin.module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:0"]} {
}
// CHECK: module-devices-invalid.mlir:[[# @LINE - 2]]:1: error: builtin.module: multi.devices lists device "CPU:0" twice

// -----

// A malformed list is reported before any use of a device.
// expected-error @+1 {{builtin.module: multi.devices lists device "CPU:0" twice}}
builtin.module attributes {multi.devices = ["CPU:0", "CPU:0"]} {
  func.func @main(%x: tensor<4xf32, #multi.on<["CPU:5"]>>) {
    func.return
  }
}
// CHECK: module-devices-invalid.mlir:[[# @LINE - 5]]:1: error: builtin.module: multi.devices lists device "CPU:0" twice

// -----

// Names print as MLIR strings (escaped as the printer does).
builtin.module attributes {multi.devices = ["a\"b"]} {
  // expected-error @+1 {{test.op: result 0 (%y): tensor<4xf32, #multi.on<["c\\d"]>> uses device "c\\d", which the module's multi.devices ["a\22b"] does not list}}
  %y = "test.op"() : () -> tensor<4xf32, #multi.on<["c\\d"]>>
}
// CHECK: module-devices-invalid.mlir:[[# @LINE - 2]]:3: error: test.op: result 0 (%y): tensor<4xf32, #multi.on<["c\\d"]>> uses device "c\\d", which the module's multi.devices ["a\22b"] does not list

// -----

// Without `multi.devices` any names go (the device set is the names in order of appearance).
builtin.module {
  func.func @main(%x: tensor<4xf32, #multi.on<["CPU:0", "CPU:5"]>>) {
    func.return
  }
}
// CHECK: func.func @main(%x: tensor<4xf32, #multi.on<["CPU:0", "CPU:5"]>>)
// CHECK-NOT: Traceback

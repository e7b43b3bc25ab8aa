// RUN: multi-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s

// Parse errors of the mesh form of #multi.shard (SPEC §1.1), reported at the encoding's text.

// CHECK-NOT: Traceback

// The product of the mesh dims is the number of listed devices.
// expected-error @+1 {{#multi.shard: the mesh [2, 3] has 6 positions (the product of its dims) but 4 devices are listed}}
%x = "test.op"() : () -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 3], axes = [0, 1]>>
// CHECK: mesh-encoding-parse-invalid.mlir:[[# @LINE - 1]]:93: error: #multi.shard: the mesh [2, 3] has 6 positions (the product of its dims) but 4 devices are listed

// -----

// One axes entry per mesh dim.
// expected-error @+1 {{#multi.shard: axes needs one entry per mesh dim: mesh [2, 2] has 2 dims, found 3 entries [0, 1, none]}}
%x = "test.op"() : () -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1, none]>>
// CHECK: mesh-encoding-parse-invalid.mlir:[[# @LINE - 1]]:93: error: #multi.shard: axes needs one entry per mesh dim: mesh [2, 2] has 2 dims, found 3 entries [0, 1, none]

// -----

// A mesh has at least one dim.
// expected-error @+1 {{#multi.shard: a mesh needs at least one dim, found mesh = []}}
%x = "test.op"() : () -> tensor<8xf32, #multi.shard<["CPU:0"], mesh = [], axes = []>>
// CHECK: mesh-encoding-parse-invalid.mlir:[[# @LINE - 1]]:64: error: #multi.shard: a mesh needs at least one dim, found mesh = []

// -----

// Mesh dims are >= 1.
// expected-error @+1 {{#multi.shard: mesh dims must be >= 1, found mesh = [2, 0]}}
%x = "test.op"() : () -> tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], mesh = [2, 0], axes = [0, 0]>>
// CHECK: mesh-encoding-parse-invalid.mlir:[[# @LINE - 1]]:73: error: #multi.shard: mesh dims must be >= 1, found mesh = [2, 0]

// -----

// A tensor axis is >= 0.
// expected-error @+1 {{a shard axis must be >= 0, found -1}}
%x = "test.op"() : () -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, -1]>>
// CHECK: mesh-encoding-parse-invalid.mlir:[[# @LINE - 1]]:119: error: a shard axis must be >= 0, found -1

// -----

// Some mesh dim splits a tensor axis: replicated on every device is #multi.on.
// expected-error @+1 {{#multi.shard: axes = [none, none] splits no tensor axis: a value replicated on every device is #multi.on}}
%x = "test.op"() : () -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [none, none]>>
// CHECK: mesh-encoding-parse-invalid.mlir:[[# @LINE - 1]]:93: error: #multi.shard: axes = [none, none] splits no tensor axis: a value replicated on every device is #multi.on

// -----

// An axes entry is an integer or none.
// expected-error @+1 {{Expected integer literal (a tensor axis or none)}}
%x = "test.op"() : () -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, all]>>
// CHECK: mesh-encoding-parse-invalid.mlir:[[# @LINE - 1]]:119: error: Expected integer literal (a tensor axis or none)

// RUN: multi-run %s --backend interp --random-inputs --show-sharding | filecheck %s --strict-whitespace --match-full-lines

// multi-run --show-sharding draws each placed value's blocks as a grid (issue 15).
// A partially replicated mesh (axes = [0, none]): the replicas along mesh dim 1 hold the same
// block and share its cell, which lists both devices.

// CHECK:devices: CPU:0, CPU:1, CPU:2, CPU:3
// CHECK-NEXT:arg0 %x: tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, none]>>
// CHECK-NEXT:  on a 2x2 device mesh, axes [0, none], buffers 2x6
// CHECK-NEXT:  grid: axis 0 (4 rows) down, axis 1 (6 columns) across
// CHECK-NEXT:  ┌────────────────────────────────────────────────────────────┐
// CHECK-NEXT:  │                                                            │
// CHECK-NEXT:  │                        CPU:0 CPU:1                         │
// CHECK-NEXT:  │                                                            │
// CHECK-NEXT:  ├────────────────────────────────────────────────────────────┤
// CHECK-NEXT:  │                                                            │
// CHECK-NEXT:  │                        CPU:2 CPU:3                         │
// CHECK-NEXT:  │                                                            │
// CHECK-NEXT:  └────────────────────────────────────────────────────────────┘
// CHECK-NEXT:  CPU:0  mesh [0, 0]  [0, 2) x [0, 6)
// CHECK-NEXT:  CPU:1  mesh [0, 1]  [0, 2) x [0, 6)
// CHECK-NEXT:  CPU:2  mesh [1, 0]  [2, 4) x [0, 6)
// CHECK-NEXT:  CPU:3  mesh [1, 1]  [2, 4) x [0, 6)
func.func @main(%x: tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, none]>>) {
  func.return
}

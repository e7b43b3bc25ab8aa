// RUN: multi-run %s --backend interp --random-inputs --show-sharding | filecheck %s --strict-whitespace --match-full-lines

// multi-run --show-sharding draws each placed value's blocks as a grid (issue 15).
// A 2x2 mesh splitting both axes of a 4x6 tensor evenly: four equal cells, one device each.

// CHECK:devices: CPU:0, CPU:1, CPU:2, CPU:3
// CHECK-NEXT:arg0 %x: tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// CHECK-NEXT:  on a 2x2 device mesh, axes [0, 1], buffers 2x3
// CHECK-NEXT:  grid: axis 0 (4 rows) down, axis 1 (6 columns) across
// CHECK-NEXT:  ┌──────────────────────────────┬──────────────────────────────┐
// CHECK-NEXT:  │                              │                              │
// CHECK-NEXT:  │            CPU:0             │            CPU:1             │
// CHECK-NEXT:  │                              │                              │
// CHECK-NEXT:  ├──────────────────────────────┼──────────────────────────────┤
// CHECK-NEXT:  │                              │                              │
// CHECK-NEXT:  │            CPU:2             │            CPU:3             │
// CHECK-NEXT:  │                              │                              │
// CHECK-NEXT:  └──────────────────────────────┴──────────────────────────────┘
// CHECK-NEXT:  CPU:0  mesh [0, 0]  [0, 2) x [0, 3)
// CHECK-NEXT:  CPU:1  mesh [0, 1]  [0, 2) x [3, 6)
// CHECK-NEXT:  CPU:2  mesh [1, 0]  [2, 4) x [0, 3)
// CHECK-NEXT:  CPU:3  mesh [1, 1]  [2, 4) x [3, 6)
func.func @main(%x: tensor<4x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>) {
  func.return
}

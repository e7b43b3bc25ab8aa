// RUN: multi-run %s --backend interp --random-inputs --show-sharding | filecheck %s --strict-whitespace --match-full-lines

// multi-run --show-sharding draws each placed value's blocks as a grid (issue 15).
// Higher ranks: the grid of the two split tensor axes (0 down, 2 across; a line says so), the
// unsplit axis 1 whole in every cell; with one split axis, one row of cells (here 5 columns
// over 4 devices in parts of 2, 2, 1 and an empty one).

// CHECK:devices: CPU:0, CPU:1, CPU:2, CPU:3
// CHECK-NEXT:arg0 %x: tensor<4x5x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [2, 0]>>
// CHECK-NEXT:  on a 2x2 device mesh, axes [2, 0], buffers 2x5x3
// CHECK-NEXT:  grid: axis 0 (4 rows) down, axis 2 (6 columns) across; axis 1 whole
// CHECK-NEXT:  ┌──────────────────────────────┬──────────────────────────────┐
// CHECK-NEXT:  │                              │                              │
// CHECK-NEXT:  │            CPU:0             │            CPU:2             │
// CHECK-NEXT:  │                              │                              │
// CHECK-NEXT:  ├──────────────────────────────┼──────────────────────────────┤
// CHECK-NEXT:  │                              │                              │
// CHECK-NEXT:  │            CPU:1             │            CPU:3             │
// CHECK-NEXT:  │                              │                              │
// CHECK-NEXT:  └──────────────────────────────┴──────────────────────────────┘
// CHECK-NEXT:  CPU:0  mesh [0, 0]  [0, 2) x [0, 5) x [0, 3)
// CHECK-NEXT:  CPU:1  mesh [0, 1]  [2, 4) x [0, 5) x [0, 3)
// CHECK-NEXT:  CPU:2  mesh [1, 0]  [0, 2) x [0, 5) x [3, 6)
// CHECK-NEXT:  CPU:3  mesh [1, 1]  [2, 4) x [0, 5) x [3, 6)
// CHECK-NEXT:arg1 %y: tensor<4x5x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], axis = 1>>
// CHECK-NEXT:  sharded on axis 1 (5 rows) over 4 devices, 2 rows per buffer
// CHECK-NEXT:  grid: axis 1 (5 rows) across; axes 0, 2 whole
// CHECK-NEXT:  ┌─────────────────────┬─────────────────────┬───────────┬───────┐
// CHECK-NEXT:  │                     │                     │           │ CPU:3 │
// CHECK-NEXT:  │        CPU:0        │        CPU:1        │   CPU:2   │(empty)│
// CHECK-NEXT:  │                     │                     │           │       │
// CHECK-NEXT:  └─────────────────────┴─────────────────────┴───────────┴───────┘
// CHECK-NEXT:  CPU:0  rows [0, 2)  |##...|  2 rows
// CHECK-NEXT:  CPU:1  rows [2, 4)  |..##.|  2 rows
// CHECK-NEXT:  CPU:2  rows [4, 5)  |....#|  1 row + 1 padding
// CHECK-NEXT:  CPU:3  rows [5, 5)  |.....|  empty + 2 padding
func.func @main(%x: tensor<4x5x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [2, 0]>>, %y: tensor<4x5x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], axis = 1>>) {
  func.return
}

// RUN: multi-run %s --backend interp --random-inputs --show-sharding | filecheck %s --strict-whitespace --match-full-lines

// multi-run --show-sharding draws each placed value's blocks as a grid (issue 15).
// A 2x3 mesh over a 3x4 tensor: 3 rows in parts of 2 and 1 (the first row of cells twice as
// high as the second), 4 columns in parts of 2, 2 and 0: the third column of blocks is empty,
// drawn as a cell of its own labelled (empty), not dropped.

// CHECK:devices: CPU:0, CPU:1, CPU:2, CPU:3, CPU:4, CPU:5
// CHECK-NEXT:arg0 %x: tensor<3x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3", "CPU:4", "CPU:5"], mesh = [2, 3], axes = [0, 1]>>
// CHECK-NEXT:  on a 2x3 device mesh, axes [0, 1], buffers 2x2
// CHECK-NEXT:  grid: axis 0 (3 rows) down, axis 1 (4 columns) across
// CHECK-NEXT:  ┌───────────────────────────┬──────────────────────────┬───────┐
// CHECK-NEXT:  │                           │                          │       │
// CHECK-NEXT:  │           CPU:0           │          CPU:1           │ CPU:2 │
// CHECK-NEXT:  │                           │                          │(empty)│
// CHECK-NEXT:  │                           │                          │       │
// CHECK-NEXT:  ├───────────────────────────┼──────────────────────────┼───────┤
// CHECK-NEXT:  │           CPU:3           │          CPU:4           │ CPU:5 │
// CHECK-NEXT:  │                           │                          │(empty)│
// CHECK-NEXT:  └───────────────────────────┴──────────────────────────┴───────┘
// CHECK-NEXT:  CPU:0  mesh [0, 0]  [0, 2) x [0, 2)
// CHECK-NEXT:  CPU:1  mesh [0, 1]  [0, 2) x [2, 4)
// CHECK-NEXT:  CPU:2  mesh [0, 2]  [0, 2) x [4, 4)
// CHECK-NEXT:  CPU:3  mesh [1, 0]  [2, 3) x [0, 2)
// CHECK-NEXT:  CPU:4  mesh [1, 1]  [2, 3) x [2, 4)
// CHECK-NEXT:  CPU:5  mesh [1, 2]  [2, 3) x [4, 4)
func.func @main(%x: tensor<3x4xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3", "CPU:4", "CPU:5"], mesh = [2, 3], axes = [0, 1]>>) {
  func.return
}

// RUN: multi-run %s --backend interp --random-inputs --show-sharding | filecheck %s --strict-whitespace --match-full-lines

// multi-run --show-sharding draws each placed value's blocks as a grid (issue 15).
// A one-axis shard of rows (axis = 0) is one column of cells: 7 rows over 3 devices in parts
// of 3, 3 and 1, the cells' heights in that proportion; the text listing follows the grid.

// CHECK:devices: CPU:0, CPU:1, CPU:2
// CHECK-NEXT:arg0 %x: tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>
// CHECK-NEXT:  sharded on axis 0 (7 rows) over 3 devices, 3 rows per buffer
// CHECK-NEXT:  grid: axis 0 (7 rows) down, axis 1 (2 columns) across
// CHECK-NEXT:  ┌────────────────────────────────────────────────────────────┐
// CHECK-NEXT:  │                                                            │
// CHECK-NEXT:  │                           CPU:0                            │
// CHECK-NEXT:  │                                                            │
// CHECK-NEXT:  │                                                            │
// CHECK-NEXT:  ├────────────────────────────────────────────────────────────┤
// CHECK-NEXT:  │                                                            │
// CHECK-NEXT:  │                           CPU:1                            │
// CHECK-NEXT:  │                                                            │
// CHECK-NEXT:  │                                                            │
// CHECK-NEXT:  ├────────────────────────────────────────────────────────────┤
// CHECK-NEXT:  │                           CPU:2                            │
// CHECK-NEXT:  └────────────────────────────────────────────────────────────┘
// CHECK-NEXT:  CPU:0  rows [0, 3)  |###....|  3 rows
// CHECK-NEXT:  CPU:1  rows [3, 6)  |...###.|  3 rows
// CHECK-NEXT:  CPU:2  rows [6, 7)  |......#|  1 row + 2 padding
func.func @main(%x: tensor<7x2xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>) {
  func.return
}

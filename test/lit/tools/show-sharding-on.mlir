// RUN: multi-run %s --backend interp --random-inputs --show-sharding | filecheck %s --strict-whitespace --match-full-lines

// multi-run --show-sharding draws each placed value's blocks as a grid (issue 15).
// A #multi.on value is one cell listing every device.

// CHECK:devices: CPU:0, CPU:1, CPU:2, CPU:3
// CHECK-NEXT:arg0 %x: tensor<2x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>
// CHECK-NEXT:  on 4 devices (one buffer per device)
// CHECK-NEXT:  grid: axis 0 (2 rows) down, axis 1 (3 columns) across
// CHECK-NEXT:  ┌────────────────────────────────────────────────────────────┐
// CHECK-NEXT:  │                                                            │
// CHECK-NEXT:  │                  CPU:0 CPU:1 CPU:2 CPU:3                   │
// CHECK-NEXT:  │                                                            │
// CHECK-NEXT:  └────────────────────────────────────────────────────────────┘
// CHECK-NEXT:  CPU:0  buffer 0 (logical [0])
// CHECK-NEXT:  CPU:1  buffer 1 (logical [1])
// CHECK-NEXT:  CPU:2  buffer 2 (logical [2])
// CHECK-NEXT:  CPU:3  buffer 3 (logical [3])
func.func @main(%x: tensor<2x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>) {
  func.return
}

// A negative shard axis is a parse error (exit code 1) that names the axis, at the axis.
// RUN: %expect-exit 1 multi-opt %s 2>&1 | filecheck %s

// CHECK-NOT:  Traceback
// CHECK:      encoding-negative-axis-exit.mlir:[[# @LINE + 4]]:66: error: shard axis must be >= 0, found -2
// CHECK-NEXT: {{^}}func.func @f(%x: tensor<4x4xf32, #multi.shard<["A", "B"], axis = -2>>) {
// CHECK-NEXT: {{^}}                                                                 ^~{{$}}
// CHECK-NOT:  Traceback
func.func @f(%x: tensor<4x4xf32, #multi.shard<["A", "B"], axis = -2>>) {
  func.return
}

// A parse error in an encoding, without --verify-diagnostics: one diagnostic on stderr with the
// source line and a caret under the device list, exit code 1, nothing on stdout, no traceback.
// RUN: %expect-exit 1 multi-opt %s 2>&1 | filecheck %s
// RUN: not multi-opt %s 2>/dev/null | filecheck %s --check-prefix=STDOUT --allow-empty

// CHECK-NOT:  Traceback
// CHECK:      encoding-parse-error-exit.mlir:[[# @LINE + 6]]:42: error: a device list must name at least one device
// CHECK-NEXT: {{^}}func.func @f(%x: tensor<4xf32, #multi.on<[]>>) {
// CHECK-NEXT: {{^}}                                         ^~{{$}}
// CHECK-NOT:  Traceback
// STDOUT-NOT: {{.}}

func.func @f(%x: tensor<4xf32, #multi.on<[]>>) {
  func.return
}

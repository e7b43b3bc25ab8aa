// Input from stdin (no input file, or `-`) is named <stdin> in diagnostics.
// RUN: %expect-exit 1 multi-opt < %s 2>&1 | filecheck %s
// RUN: %expect-exit 1 multi-opt - < %s 2>&1 | filecheck %s --check-prefix=DASH

// CHECK: <stdin>:[[# @LINE + 3]]:3: error: func.return: Expected arguments
// CHECK-NEXT: {{^}}  func.return{{$}}
func.func @f(%a: f32) -> f32 {
  func.return
}
// DASH: <stdin>:[[# @LINE - 2]]:3: error: func.return: Expected arguments

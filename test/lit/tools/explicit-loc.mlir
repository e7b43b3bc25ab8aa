// An op with an explicit loc(...) is reported there, not at its position in this file.
// RUN: not multi-opt %s 2>&1 | filecheck %s

// CHECK: original.py:42:7: error: func.return: Expected arguments to have the same types as the function output types: expected [f32], got []
// CHECK-NOT: Traceback
func.func @f(%a: f32) -> f32 {
  func.return loc("original.py":42:7)
}

// An unknown pass name is a one-line diagnostic with exit code 1, with a suggestion when a
// pass of a similar name exists.
// RUN: %expect-exit 1 multi-opt %s -p no-such-pass 2>&1 | filecheck %s
// RUN: not multi-opt %s -p cse,canonicalise 2>&1 | filecheck %s --check-prefix=SUGGEST

// CHECK-NOT: Traceback
// CHECK: multi-opt: error: unknown pass 'no-such-pass'
// CHECK-NOT: Traceback

// SUGGEST: multi-opt: error: unknown pass 'canonicalise' (did you mean 'canonicalize'?)

func.func @f() {
  func.return
}

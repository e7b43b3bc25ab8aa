// A pass pipeline that does not parse is reported at the column of the -p argument where
// parsing stopped (xDSL raises ArgSpecParseError, a BaseException, for it); options that
// the pass does not have are reported with the pass name.
// RUN: %expect-exit 1 multi-opt %s -p 'canonicalize{foo' 2>&1 | filecheck %s
// RUN: %expect-exit 1 multi-opt %s -p 'canonicalize{foo=1}' 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: %expect-exit 1 multi-opt %s -p 'cse,,canonicalize' 2>&1 | filecheck %s --check-prefix=EMPTY

// CHECK-NOT: Traceback
// CHECK: <pass pipeline>:1:17: error: malformed pass pipeline: Expected equals, space or end of arguments here
// CHECK-NEXT: {{^}}canonicalize{foo{{$}}
// CHECK-NEXT: {{^}}                ^{{$}}
// CHECK-NOT: Traceback

// OPTION: multi-opt: error: invalid options for pass 'canonicalize': Provided arguments ["foo"] not found
// OPTION-NOT: Traceback

// EMPTY: <pass pipeline>:1:5: error: malformed pass pipeline: Expected pass name here

func.func @f() {
  func.return
}

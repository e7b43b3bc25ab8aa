// A long source line is quoted under the diagnostic as a window of about 200 characters around
// the column, with `...` where text is left out; the caret still points at the column.
// RUN: %python -c "import sys; open(sys.argv[1], 'w').write('func.func @f() {' + ' ' * 5000 + '@@@' + chr(10) + '}' + chr(10))" %t.end.mlir
// RUN: %expect-exit 1 multi-opt %t.end.mlir 2>&1 | filecheck %s --check-prefix=END
// RUN: %python -c "import sys; open(sys.argv[1], 'w').write('func.func @f() {' + ' ' * 3000 + '@@@' + ' ' * 3000 + chr(10) + '}' + chr(10))" %t.mid.mlir
// RUN: %expect-exit 1 multi-opt %t.mid.mlir 2>&1 | filecheck %s --check-prefix=MID
// RUN: %python -c "import sys; open(sys.argv[1], 'w').write('@@@' + ' ' * 5000 + chr(10))" %t.start.mlir
// RUN: %expect-exit 1 multi-opt %t.start.mlir 2>&1 | filecheck %s --check-prefix=START

// Near the end of the line: the window ends with the line.
// END-NOT: Traceback
// END: .end.mlir:1:5017: error: @ identifier expected
// END-NEXT: {{^\.\.\. {197}@@@$}}
// END-NEXT: {{^ {200}\^~$}}
// END-NOT: Traceback

// In the middle: `...` on both sides.
// MID: .mid.mlir:1:3017: error: @ identifier expected
// MID-NEXT: {{^\.\.\. {100}@@@ {97}\.\.\.$}}
// MID-NEXT: {{^ {103}\^~$}}

// At the start: the window starts with the line.
// START: .start.mlir:1:1: error:
// START-NEXT: {{^@@@ {197}\.\.\.$}}
// START-NEXT: {{^\^}}

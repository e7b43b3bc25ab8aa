// Input nested deeper than the parser's stack allows is a located diagnostic with exit code 1,
// not an internal error: 5000 nested arrays, and 1000 nested regions.
// RUN: %python -c "import sys; open(sys.argv[1], 'w').write('func.func @f() attributes {a = ' + '[' * 5000 + ']' * 5000 + '} { // expected-error {{input nests too deeply}}' + chr(10) + '  func.return' + chr(10) + '}' + chr(10))" %t.arrays.mlir
// RUN: %expect-exit 1 multi-opt %t.arrays.mlir 2>&1 | filecheck %s --check-prefix=ARRAYS
// RUN: %python -c "import sys; open(sys.argv[1], 'w').write('func.func @f() {' + chr(10) + '  \"test.op\"() ({' * 1000 + chr(10) + '})' * 1000 + chr(10) + '}' + chr(10))" %t.regions.mlir
// RUN: %expect-exit 1 multi-opt %t.regions.mlir 2>&1 | filecheck %s --check-prefix=REGIONS
// With --verify-diagnostics it is reported like any other error in a chunk.
// RUN: %expect-exit 0 multi-opt --verify-diagnostics %t.arrays.mlir | filecheck %s --check-prefix=ARRAYS

// ARRAYS-NOT: Traceback
// ARRAYS: .arrays.mlir:1:{{[0-9]+}}: error: input nests too deeply: the parser ran out of stack here
// ARRAYS-NEXT: {{^\.\.\.\[+\.\.\.$}}
// ARRAYS-NOT: Traceback

// REGIONS-NOT: Traceback
// REGIONS: .regions.mlir:2:{{[0-9]+}}: error: input nests too deeply: the parser ran out of stack here
// REGIONS-NOT: Traceback

// A UTF-8 byte order mark at the start of the input is skipped, as compilers and editors do:
// the file is read as usual and columns on line 1 count from the first character after it.
// RUN: %python -c "import sys; open(sys.argv[1], 'wb').write(bytes.fromhex('efbbbf') + open(sys.argv[2], 'rb').read())" %t.ok.mlir %s
// RUN: multi-opt %t.ok.mlir | filecheck %s
// RUN: multi-opt < %t.ok.mlir | filecheck %s
// RUN: multi-opt --split-input-file %t.ok.mlir | filecheck %s
// RUN: %python -c "import sys; open(sys.argv[1], 'wb').write(bytes.fromhex('efbbbf') + b'func.func @f() { func.retur }')" %t.err.mlir
// RUN: %expect-exit 1 multi-opt %t.err.mlir 2>&1 | filecheck %s --check-prefix=ERR

// CHECK-NOT: Traceback
// CHECK:      builtin.module {
// CHECK-NEXT:   func.func @f() {
// CHECK-NEXT:     func.return
func.func @f() {
  func.return
}
// CHECK-NOT: Traceback

// ERR-NOT: Traceback
// ERR: .err.mlir:1:29: error: Operation func.retur is not registered
// ERR-NEXT: {{^}}func.func @f() { func.retur }{{$}}
// ERR-NEXT: {{^}}                            ^{{$}}
// ERR-NOT: Traceback

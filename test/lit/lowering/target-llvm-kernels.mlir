// -t llvm prints ONE LLVM module with every device's kernels (SPEC §5); declarations the
// devices share (libm) appear once; llvmlite parses and verifies the output.
// RUN: multi-opt %s -p convert-to-llvm -t llvm | filecheck %s
// RUN: multi-opt %s -p convert-to-llvm -t llvm | %python -c "import sys, llvmlite.binding as b; b.parse_assembly(sys.stdin.read()).verify(); print('verified')" | filecheck %s --check-prefix=VERIFY
// Without the llvm dialect there is nothing to print: a user error (exit 1), not a crash.
// RUN: %expect-exit 1 multi-opt %s -t llvm 2>&1 | filecheck %s --check-prefix=ERROR

// CHECK-NOT: Traceback
// CHECK:     declare float @"erff"(float
// CHECK-NOT: declare
// CHECK:     define void @"device0_k"(ptr noalias %".1", ptr noalias %".2") nounwind
// CHECK:       getelementptr inbounds float, ptr %".1", i64
// CHECK:       fmul contract reassoc float
// CHECK:       call ccc float @"erff"(float
// CHECK:     define void @"device1_k"(ptr noalias %".1", ptr noalias %".2") nounwind
// CHECK-NOT: declare
// CHECK-NOT: @main

// VERIFY: verified

// ERROR-NOT: Traceback
// ERROR: error: cannot emit target 'llvm': Conversion not implemented for op: func.func; there is no llvm dialect to emit (lower the kernels with convert-to-llvm first)

builtin.module {
  builtin.module @device_0 attributes {devidx.device = 0 : i64} {
    func.func @k(%x: memref<16xf32>, %y: memref<16xf32>) attributes {multi.kernel} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %n = arith.constant 16 : index
      scf.for %i = %c0 to %n step %c1 {
        %v = memref.load %x[%i] : memref<16xf32>
        %s = arith.mulf %v, %v : f32
        %e = math.erf %s : f32
        memref.store %e, %y[%i] : memref<16xf32>
      }
      func.return
    }
  }
  builtin.module @device_1 attributes {devidx.device = 1 : i64} {
    func.func @k(%x: memref<16xf32>, %y: memref<16xf32>) attributes {multi.kernel} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %n = arith.constant 16 : index
      scf.for %i = %c0 to %n step %c1 {
        %v = memref.load %x[%i] : memref<16xf32>
        %s = arith.mulf %v, %v : f32
        %e = math.erf %s : f32
        memref.store %e, %y[%i] : memref<16xf32>
      }
      func.return
    }
    func.func @main() {
      func.return
    }
  }
}

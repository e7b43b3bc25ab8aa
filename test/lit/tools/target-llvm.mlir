// xDSL's targets stay available: -t llvm prints LLVM IR for the llvm dialect.
// RUN: multi-opt %s -t llvm | filecheck %s

// CHECK: define i32 @"f"(i32 %".1")
// CHECK: ret i32 %".1"
llvm.func @f(%a: i32) -> i32 {
  llvm.return %a : i32
}

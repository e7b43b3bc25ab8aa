// xdsl-opt's printing options keep working: generic form, debug info (op locations, which
// multi-opt records while parsing) and the pass pipeline with a verification after each pass.
// RUN: multi-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: multi-opt %s --print-debuginfo | filecheck %s --check-prefix=DEBUG
// RUN: multi-opt %s -p canonicalize,cse | filecheck %s --check-prefix=PASSES

// GENERIC: "func.func"() <{sym_name = "f", function_type = (i32) -> i32}> ({
// GENERIC: "arith.addi"(%{{.*}}, %{{.*}}) <{overflowFlags = #arith.overflow<none>}> : (i32, i32) -> i32

// DEBUG: arith.addi %{{.*}} : i32 loc("{{.*}}print-options.mlir":[[# @LINE + 6]]:3)

// PASSES:      func.func @f(%a: i32) -> i32 {
// PASSES-NEXT:   func.return %a : i32
func.func @f(%a: i32) -> i32 {
  %z = arith.constant 0 : i32
  %0 = arith.addi %a, %z : i32
  func.return %0 : i32
}

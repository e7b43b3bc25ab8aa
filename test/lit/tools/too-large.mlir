// Sizes multi-opt cannot handle are diagnostics with exit code 1, caught before any memory is
// spent on them: a dense literal of more than 2^24 elements (xDSL expands even a splat to one
// Python value per element) and a tensor type of more than 2^40 elements.
// RUN: multi-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: %expect-exit 1 multi-opt %s --split-input-file 2>&1 | filecheck %s --check-prefix=EXIT

// CHECK-NOT: Traceback

// A splat of 4 * 10^11 elements.
func.func @f() {
  // expected-error @+1 {{constant too large: a dense literal of type tensor<100000000000x4xf32> has 400000000000 elements; multi-opt handles at most 16777216 (2^24) elements per literal}}
  %one = arith.constant dense<1.0> : tensor<100000000000x4xf32>
  func.return
}
// CHECK: too-large.mlir:[[# @LINE - 3]]:38: error: constant too large: a dense literal of type tensor<100000000000x4xf32> has 400000000000 elements; multi-opt handles at most 16777216 (2^24) elements per literal
// CHECK-NEXT: {{^}}  %one = arith.constant dense<1.0> : tensor<100000000000x4xf32>{{$}}
// CHECK-NEXT: {{^}}                                     ^~~~~~~~~~~~~~~~~~~~~~~~~~{{$}}
// EXIT: too-large.mlir:[[# @LINE - 6]]:38: error: constant too large

// -----

// Sharded: the logical shape counts.
func.func @f() {
  // expected-error @+1 {{constant too large: a dense literal of type tensor<100000000000x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> has 400000000000 elements; multi-opt handles at most 16777216 (2^24) elements per literal}}
  %one = arith.constant dense<1.0> : tensor<100000000000x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>
  func.return
}
// CHECK: too-large.mlir:[[# @LINE - 3]]:38: error: constant too large: a dense literal of type tensor<100000000000x4xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>> has 400000000000 elements

// -----

// One element past the limit; a hex splat too.
func.func @f() {
  // expected-error @+1 {{constant too large: a dense literal of type tensor<16777217xf32> has 16777217 elements; multi-opt handles at most 16777216 (2^24) elements per literal}}
  %c = arith.constant dense<"0x0000803F"> : tensor<16777217xf32>
  func.return
}
// CHECK: too-large.mlir:[[# @LINE - 3]]:45: error: constant too large: a dense literal of type tensor<16777217xf32> has 16777217 elements

// -----

// A large tensor is fine as long as no literal spells it out.
func.func @f(%x: tensor<100000000000x4xf32>) -> tensor<100000000000x4xf32> {
  func.return %x : tensor<100000000000x4xf32>
}
// CHECK: func.func @f(%x: tensor<100000000000x4xf32>) -> tensor<100000000000x4xf32>

// -----

// A tensor type of more than 2^40 elements.
// expected-error @+1 {{tensor type tensor<2000000x2000000xf32> has 4000000000000 elements, more than the 1099511627776 (2^40) supported}}
func.func @f(%x: tensor<2000000x2000000xf32>) {
  func.return
}
// CHECK: too-large.mlir:[[# @LINE - 3]]:25: error: tensor type tensor<2000000x2000000xf32> has 4000000000000 elements, more than the 1099511627776 (2^40) supported
// CHECK-NEXT: {{^}}func.func @f(%x: tensor<2000000x2000000xf32>) {{{$}}
// CHECK-NEXT: {{^}}                        ^~~~~~~~~~~~~~~~~~~{{$}}

// -----

// Dimensions whose product does not fit in 64 bits.
// expected-error @+1 {{tensor type tensor<9223372036854775807x9223372036854775807xf32> has 85070591730234615847396907784232501249 elements, more than the 1099511627776 (2^40) supported}}
%x = "test.op"() : () -> tensor<9223372036854775807x9223372036854775807xf32>
// CHECK: too-large.mlir:[[# @LINE - 1]]:33: error: tensor type tensor<9223372036854775807x9223372036854775807xf32> has 85070591730234615847396907784232501249 elements, more than the 1099511627776 (2^40) supported
// CHECK-NOT: Traceback

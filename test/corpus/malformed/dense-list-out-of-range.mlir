// A dense literal with an element that does not fit its element type.
builtin.module {
  %0 = arith.constant dense<[1, 300]> : tensor<2xi8>
}

// A splat dense literal whose value does not fit its element type.
builtin.module {
  %0 = arith.constant dense<300> : tensor<2xi8>
}

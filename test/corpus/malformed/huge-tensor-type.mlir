// More than 2^40 elements (and a product past 64 bits): rejected while parsing.
func.func @f(%x: tensor<9223372036854775807x9223372036854775807xf32>) {
  func.return
}

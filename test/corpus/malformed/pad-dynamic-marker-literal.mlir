// INT64_MIN marks a dynamic bound in the generic form; written as a literal bound it is a
// negative bound (it used to read as a dynamic bound without an index operand).
func.func @f(%x: tensor<4xf32>) {
  %p = tg.pad %x [[-9223372036854775808, 0]] invalid : tensor<4xf32> -> tensor<4xf32>
  func.return
}

// CRLF line endings: the location still counts lines and columns correctly.
func.func @f() {
  %0 = tg.contiguous %1 : tensor<4xf32>
  func.return
}

// An attribute that does not verify at the end of an op: the error is on its line, not on the
// next op's.
func.func @f() {
  %c = arith.constant 300 : i8
  func.return
}

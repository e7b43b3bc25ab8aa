// The declarative assembly format checks the result type while parsing: the error must be at
// the op and name it, not at the end of the input.
func.func @f() {
  %inv = devidx.invalid : f32
  func.return
}

// A UTF-8 byte order mark is skipped (multi-opt reads the rest as usual); the error that
// follows it still gets a located diagnostic, columns counted from the first visible character.
func.func @f() {
  func.return %undefined : f32
}

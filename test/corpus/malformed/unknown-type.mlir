// The multi dialect defines no types.
func.func @f(%x: !multi.buffer<8xf32>) {
  func.return
}

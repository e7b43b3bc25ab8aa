// An empty device list deep inside a dictionary inside an array.
func.func @f() attributes {plan = [{stage = 1 : i64, where = [#multi.on<["CPU:0"]>, #multi.on<[]>]}]} {
  func.return
}

// A negative shard axis inside a function type inside a type attribute inside a dictionary.
func.func @f() attributes {sig = {t = (tensor<4xf32, #multi.shard<["A", "B"], axis = -1>>) -> ()}} {
  func.return
}

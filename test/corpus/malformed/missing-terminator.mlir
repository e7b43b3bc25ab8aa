// A function body needs a terminator.
func.func @f(%x: tensor<4xf32>) {
}

// Tabs before the error.
func.func @f(%x: tensor<4xf32>) {
		%y = tg.flip %x [3] : tensor<4xf32>
	func.return
}

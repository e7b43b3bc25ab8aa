// ARGS: --split-input-file
// The first chunk is fine; the second has a verifier error.
func.func @ok(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}

// -----

func.func @bad(%x: tensor<4xf32>) {
  %y = tg.reduce add %x [0] : tensor<4xf32> -> tensor<4xf32>
  func.return
}

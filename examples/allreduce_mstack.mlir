// Build a 4-device value from four single-device buffers, then allreduce it two ways.
//
// numpy:  s = a + b + c + d            m = np.maximum(np.maximum(a, b), np.maximum(c, d))
//   a on CPU:0, b on CPU:1, c on CPU:2, d on CPU:3, each (4, 4)   (logical inputs: (4, 4) each)
//   results: s and m on all four devices                          (logical outputs: (4, 4, 4),
//                                                                  every slice the same)
// `multi.mstack` (tinygrad MSTACK) puts buffer k of the result on the k-th source's device; it
// moves no data. Each `multi.allreduce` then gives every result device the elementwise reduction
// of the four buffers.
#d0 = #multi.on<["CPU:0"]>
#d1 = #multi.on<["CPU:1"]>
#d2 = #multi.on<["CPU:2"]>
#d3 = #multi.on<["CPU:3"]>
#on4 = #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>
module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2", "CPU:3"]} {
  func.func @main(%a: tensor<4x4xf32, #d0>, %b: tensor<4x4xf32, #d1>, %c: tensor<4x4xf32, #d2>,
                  %d: tensor<4x4xf32, #d3>) -> (tensor<4x4xf32, #on4>, tensor<4x4xf32, #on4>) {
    %t = multi.mstack %a, %b, %c, %d : tensor<4x4xf32, #d0>, tensor<4x4xf32, #d1>,
           tensor<4x4xf32, #d2>, tensor<4x4xf32, #d3> -> tensor<4x4xf32, #on4>
    %s = multi.allreduce add %t : tensor<4x4xf32, #on4> -> tensor<4x4xf32, #on4>
    %m = multi.allreduce max %t : tensor<4x4xf32, #on4> -> tensor<4x4xf32, #on4>
    func.return %s, %m : tensor<4x4xf32, #on4>, tensor<4x4xf32, #on4>
  }
}

// issue 9: allreduces and copies whose destinations hold none of the sources, on 4 devices.
// x (2, 64, 256) f32 is one buffer per device on CPU:0, CPU:1.
// numpy:
//   result0 = x[0] + x[1] on CPU:2 and CPU:3           (allreduce add to the other devices)
//   result1 = max(x[0], x[1]) on CPU:3                 (allreduce max to one other device)
//   result2 = x[0] sharded on axis 1 over CPU:2, CPU:3 (scatter of the first buffer elsewhere)
#src = #multi.on<["CPU:0", "CPU:1"]>
#dst = #multi.on<["CPU:2", "CPU:3"]>
#c3 = #multi.on<["CPU:3"]>
#s23 = #multi.shard<["CPU:2", "CPU:3"], axis = 1>
module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2", "CPU:3"]} {
  func.func @main(%x: tensor<64x256xf32, #src>)
      -> (tensor<64x256xf32, #dst>, tensor<64x256xf32, #c3>, tensor<64x256xf32, #s23>) {
    %s = multi.allreduce add %x : tensor<64x256xf32, #src> -> tensor<64x256xf32, #dst>
    %m = multi.allreduce max %x : tensor<64x256xf32, #src> -> tensor<64x256xf32, #c3>
    %c = multi.copy %x : tensor<64x256xf32, #src> -> tensor<64x256xf32, #s23>
    func.return %s, %m, %c : tensor<64x256xf32, #dst>, tensor<64x256xf32, #c3>, tensor<64x256xf32, #s23>
  }
}

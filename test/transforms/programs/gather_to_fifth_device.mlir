// issue 9: a gather to a device that holds no shard. x (64, 1024) i32 is sharded over CPU:0..3;
// CPU:4 gets the whole x, the shard holders nothing (their result is ignored). form-kernels used to
// write the non-holders' zero result with one memref.store per element (a 16 MB module).
// numpy: result0 = x
#s = #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], axis = 0>
#c4 = #multi.on<["CPU:4"]>
module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2", "CPU:3", "CPU:4"]} {
  func.func @main(%x: tensor<64x1024xi32, #s>) -> tensor<64x1024xi32, #c4> {
    %g = multi.copy %x : tensor<64x1024xi32, #s> -> tensor<64x1024xi32, #c4>
    func.return %g : tensor<64x1024xi32, #c4>
  }
}

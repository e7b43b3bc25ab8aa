// Issue 9: `multi-run --check` gave result1 = -5 on threads where the interpreter gives 0.
// %v1 (an Invalid pad) is a result, so form-kernels stores it (Invalid as 0, SPEC §4 rule 3),
// and the kernel of %v11 = reshape(pad(reshape(%v1))) - 5 read that buffer as if every lane
// were valid: Invalid - 5 became 0 - 5 instead of staying Invalid (rule 1). Fixed: a
// materialized value read by another kernel keeps its validity (tensor_elements._stored).
// The program as reported, found by random programs on the threads backend.
builtin.module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2"]} {
  func.func @main(
      %x0: tensor<2x3xi32, #multi.on<["CPU:1", "CPU:0"]>>,
      %x1: tensor<18x7xi32, #multi.on<["CPU:1", "CPU:0"]>>
  ) -> (
      tensor<1x1x21xi32, #multi.on<["CPU:1", "CPU:0"]>>,
      tensor<18x7xi32, #multi.on<["CPU:1", "CPU:0"]>>,
      tensor<1x1x1xi32, #multi.on<["CPU:1", "CPU:0"]>>,
      tensor<18x7xi32, #multi.on<["CPU:1", "CPU:0"]>>,
      tensor<2x1xi32, #multi.shard<["CPU:1", "CPU:2"], axis = 0>>,
      tensor<7x3xi32, #multi.on<["CPU:1", "CPU:0"]>>,
      tensor<2x3xi32, #multi.shard<["CPU:1", "CPU:2"], axis = 0>>,
      tensor<18x7xi32, #multi.on<["CPU:1", "CPU:0"]>>
  ) {
    %v1 = tg.pad %x0 [[2, 3], [0, 0]] invalid : tensor<2x3xi32, #multi.on<["CPU:1", "CPU:0"]>> -> tensor<7x3xi32, #multi.on<["CPU:1", "CPU:0"]>>
    %v2 = tg.reshape %v1 : tensor<7x3xi32, #multi.on<["CPU:1", "CPU:0"]>> -> tensor<1x3x7xi32, #multi.on<["CPU:1", "CPU:0"]>>
    %c0_0 = arith.constant 0 : index
    %v3 = tg.pad %v2 [[2, 3], [0, 0], [%c0_0, %c0_0]] invalid : tensor<1x3x7xi32, #multi.on<["CPU:1", "CPU:0"]>> -> tensor<6x3x7xi32, #multi.on<["CPU:1", "CPU:0"]>>
    %v4 = tg.reduce max %v3 [0, 1, 2] : tensor<6x3x7xi32, #multi.on<["CPU:1", "CPU:0"]>> -> tensor<1x1x1xi32, #multi.on<["CPU:1", "CPU:0"]>>
    %v5 = tg.reshape %v3 : tensor<6x3x7xi32, #multi.on<["CPU:1", "CPU:0"]>> -> tensor<18x7xi32, #multi.on<["CPU:1", "CPU:0"]>>
    %v6 = tg.reshape %v2 : tensor<1x3x7xi32, #multi.on<["CPU:1", "CPU:0"]>> -> tensor<1x1x21xi32, #multi.on<["CPU:1", "CPU:0"]>>
    %v7 = tg.flip %v6 [1] : tensor<1x1x21xi32, #multi.on<["CPU:1", "CPU:0"]>>
    %v8 = multi.copy %x0 : tensor<2x3xi32, #multi.on<["CPU:1", "CPU:0"]>> -> tensor<2x3xi32, #multi.shard<["CPU:1", "CPU:2"], axis = 0>>
    %v9 = multi.multi %v4 axis 2 : tensor<1x1x1xi32, #multi.on<["CPU:1", "CPU:0"]>> -> tensor<1x1x1xi32, #multi.shard<["CPU:1", "CPU:0"], axis = 2>>
    %v10 = arith.constant dense<5> : tensor<18x7xi32, #multi.on<["CPU:1", "CPU:0"]>>
    %v11 = arith.subi %v5, %v10 : tensor<18x7xi32, #multi.on<["CPU:1", "CPU:0"]>>
    %v12 = arith.constant dense<0> : tensor<2x3xi32, #multi.shard<["CPU:1", "CPU:2"], axis = 0>>
    %v13 = arith.addi %v8, %v12 : tensor<2x3xi32, #multi.shard<["CPU:1", "CPU:2"], axis = 0>>
    %v14 = tg.reduce max %v9 [0, 2] : tensor<1x1x1xi32, #multi.shard<["CPU:1", "CPU:0"], axis = 2>> -> tensor<1x1x1xi32, #multi.on<["CPU:1", "CPU:0"]>>
    %v15 = arith.addi %v5, %x1 : tensor<18x7xi32, #multi.on<["CPU:1", "CPU:0"]>>
    %v16 = tg.reduce add %v13 [1] : tensor<2x3xi32, #multi.shard<["CPU:1", "CPU:2"], axis = 0>> -> tensor<2x1xi32, #multi.shard<["CPU:1", "CPU:2"], axis = 0>>
    func.return %v7, %v11, %v14, %v15, %v16, %v1, %v8, %v10 : tensor<1x1x21xi32, #multi.on<["CPU:1", "CPU:0"]>>, tensor<18x7xi32, #multi.on<["CPU:1", "CPU:0"]>>, tensor<1x1x1xi32, #multi.on<["CPU:1", "CPU:0"]>>, tensor<18x7xi32, #multi.on<["CPU:1", "CPU:0"]>>, tensor<2x1xi32, #multi.shard<["CPU:1", "CPU:2"], axis = 0>>, tensor<7x3xi32, #multi.on<["CPU:1", "CPU:0"]>>, tensor<2x3xi32, #multi.shard<["CPU:1", "CPU:2"], axis = 0>>, tensor<18x7xi32, #multi.on<["CPU:1", "CPU:0"]>>
  }
}


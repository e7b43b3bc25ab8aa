// The generic form with a property of the wrong kind.
%x = "test.op"() : () -> tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>
%s = "multi.mselect"(%x) <{index = "one"}> : (tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4xf32, #multi.on<["CPU:1"]>>

// The generic form without the required `order` property.
%x = "test.op"() : () -> tensor<4x4xf32>
%y = "tg.permute"(%x) : (tensor<4x4xf32>) -> tensor<4x4xf32>

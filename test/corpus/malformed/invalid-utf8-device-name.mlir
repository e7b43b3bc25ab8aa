// NOLOC: not UTF-8 text, rejected before parsing
%x = "test.op"() : () -> tensor<4xf32, #multi.on<["ÿþ"]>>

// The file ends inside an encoding.
func.func @f(%x: tensor<8xf32, #multi.shard<["CPU:0", 
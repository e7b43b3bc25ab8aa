// RUN: multi-opt %s -p multi-to-devidx | filecheck %s
// Rule: CopyBetweenShardingsIsAllToAll
// A reshard from axis 0 to axis 1 is an all-to-all of blocks: for each shift t, device j sends
// the part of its share that device (j + t) mod N owns, and device d fetches it from
// (d - t) mod N. N fetches (t = 0 fetches from d itself, which moves nothing once devices are
// specialized), no gather of the whole tensor.

module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2"]} {
  func.func @main(%x: tensor<6x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>>) -> tensor<6x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>> {
    %c = multi.copy %x : tensor<6x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 0>> -> tensor<6x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>
    func.return %c : tensor<6x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>
  }
}

// CHECK:     func.func @main(%{{.*}}: tensor<2x6xf32>) -> tensor<6x2xf32>
// CHECK:     %[[D:.*]] = devidx.device_num : index
// CHECK:     devidx.fetch %{{.*}} from %[[D]] : tensor<6x6xf32>
// CHECK:     arith.remsi
// CHECK:     devidx.fetch
// CHECK:     devidx.fetch
// CHECK-NOT: devidx.fetch
// CHECK:     func.return

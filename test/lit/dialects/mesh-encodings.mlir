// RUN: multi-opt %s | multi-opt | filecheck %s
// RUN: multi-opt %s --print-op-generic | multi-opt | filecheck %s

// Device meshes (SPEC §1.1): #multi.shard<devs, mesh = [...], axes = [...]> round-trips; a 1-D
// mesh is the one-axis form and prints as `axis = a`; `multi.multi %x axes [...]` makes one.

// CHECK-LABEL: func.func @encodings(
// CHECK-SAME:      %{{.*}}: tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>,
// CHECK-SAME:      %{{.*}}: tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, none]>>,
// CHECK-SAME:      %{{.*}}: tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [none, 0]>>,
// CHECK-SAME:      %{{.*}}: tensor<8x6x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3", "CPU:4", "CPU:5", "CPU:6", "CPU:7"], mesh = [2, 2, 2], axes = [0, 2, 0]>>,
// CHECK-SAME:      %{{.*}}: tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>,
// CHECK-SAME:      %{{.*}}: tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], axis = 1>>)
func.func @encodings(%a: tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>, %b: tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh=[2,2], axes=[0,none]>>, %c: tensor<8x6xf32, #multi.shard<[ "CPU:0", "CPU:1", "CPU:2", "CPU:3" ], mesh = [ 2 , 2 ], axes = [ none , 0 ]>>, %d: tensor<8x6x5xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3", "CPU:4", "CPU:5", "CPU:6", "CPU:7"], mesh = [2, 2, 2], axes = [0, 2, 0]>>, %e: tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], mesh = [2], axes = [0]>>, %f: tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2"], mesh = [3], axes = [1]>>) {
  func.return
}

// The 1-D mesh form and the axis form are one attribute.
// CHECK-LABEL: func.func @same_attribute()
// CHECK-SAME:      attributes {one = #multi.shard<["A", "B"], axis = 1>, two = #multi.shard<["A", "B"], axis = 1>}
func.func @same_attribute() attributes {one = #multi.shard<["A", "B"], axis = 1>, two = #multi.shard<["A", "B"], mesh = [2], axes = [1]>} {
  func.return
}

// CHECK-LABEL: func.func @multi_axes(
// CHECK-SAME:      %[[Y:.*]]: tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>)
// CHECK-NEXT:    %[[G:.*]] = multi.multi %[[Y]] axes [0, 1] : tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>> -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
// CHECK-NEXT:    %[[P:.*]] = multi.multi %[[Y]] axes [none, 0] : tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>> -> tensor<7x3xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [none, 0]>>
// CHECK-NEXT:    %[[O:.*]] = multi.multi %[[Y]] axis 1 : tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>> -> tensor<4x12xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], axis = 1>>
// CHECK-NEXT:    %[[L:.*]] = multi.local %[[G]] : tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>
// CHECK-NEXT:    %[[R:.*]] = tg.reduce add %[[G]] [1] : tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<8x1xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, none]>>
// CHECK-NEXT:    %[[T:.*]] = tg.reduce max %[[R]] [0] : tensor<8x1xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, none]>> -> tensor<1x1xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>
// CHECK-NEXT:    %[[C:.*]] = multi.copy %[[G]] : tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [1, none]>>
// CHECK-NEXT:    func.return
func.func @multi_axes(%y: tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>) {
  %g = multi.multi %y axes [0, 1] : tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>> -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>>
  %p = multi.multi %y axes [none, 0] : tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>> -> tensor<7x3xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [none, 0]>>
  %o = multi.multi %y axes [1] : tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>> -> tensor<4x12xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], axis = 1>>
  %l = multi.local %g : tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<4x3xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>
  %r = tg.reduce add %g [1] : tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<8x1xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, none]>>
  %t = tg.reduce max %r [0] : tensor<8x1xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, none]>> -> tensor<1x1xf32, #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>>
  %c = multi.copy %g : tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>> -> tensor<8x6xf32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [1, none]>>
  func.return
}

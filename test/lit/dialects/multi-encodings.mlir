// RUN: multi-opt %s | multi-opt | filecheck %s

// The placement encodings #multi.on and #multi.shard are ordinary attributes: they print the
// same wherever they appear (tensor encodings, attribute dictionaries, arrays), and with
// extra whitespace or no whitespace in the input.

// CHECK-LABEL: func.func @spacing(
// CHECK-SAME:      %{{.*}}: tensor<4xf32, #multi.on<["CPU:0", "CPU:1"]>>, %{{.*}}: tensor<8xf32, #multi.shard<["CPU:0", "CPU:1"], axis = 0>>)
func.func @spacing(%a: tensor<4xf32, #multi.on<[ "CPU:0" ,"CPU:1" ]>>, %b: tensor<8xf32, #multi.shard<["CPU:0","CPU:1"],axis=0>>) {
  func.return
}

// As standalone attributes in an attribute dictionary and in arrays.
// CHECK-LABEL: func.func @as_attributes()
// CHECK-SAME:      attributes {on = #multi.on<["CPU:0"]>, shard = #multi.shard<["CPU:1", "CPU:0"], axis = 3>, list = [#multi.on<["A"]>, #multi.on<["B", "C"]>]}
func.func @as_attributes() attributes {on = #multi.on<["CPU:0"]>, shard = #multi.shard<["CPU:1", "CPU:0"], axis = 3>, list = [#multi.on<["A"]>, #multi.on<["B", "C"]>]} {
  func.return
}

// Names with escapes and unusual characters are kept verbatim.
// CHECK-LABEL: func.func @names(
// CHECK-SAME:      %{{.*}}: tensor<2xf32, #multi.on<["dev/0", "dev:1 (fast)", "\22q\22"]>>)
func.func @names(%a: tensor<2xf32, #multi.on<["dev/0", "dev:1 (fast)", "\"q\""]>>) {
  func.return
}

// Many devices.
// CHECK-LABEL: func.func @eight(
// CHECK-SAME:      %{{.*}}: tensor<16xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3", "CPU:4", "CPU:5", "CPU:6", "CPU:7"], axis = 0>>)
func.func @eight(%a: tensor<16xi32, #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3", "CPU:4", "CPU:5", "CPU:6", "CPU:7"], axis = 0>>) {
  func.return
}

// Encodings on every supported element type.
// CHECK-LABEL: func.func @element_types(
// CHECK-SAME:      tensor<2xf32, #multi.on<["C"]>>, %{{.*}}: tensor<2xf64, #multi.on<["C"]>>, %{{.*}}: tensor<2xf16, #multi.on<["C"]>>, %{{.*}}: tensor<2xbf16, #multi.on<["C"]>>, %{{.*}}: tensor<2xi1, #multi.on<["C"]>>, %{{.*}}: tensor<2xi8, #multi.on<["C"]>>, %{{.*}}: tensor<2xi16, #multi.on<["C"]>>, %{{.*}}: tensor<2xi32, #multi.on<["C"]>>, %{{.*}}: tensor<2xi64, #multi.on<["C"]>>)
func.func @element_types(%a: tensor<2xf32, #multi.on<["C"]>>, %b: tensor<2xf64, #multi.on<["C"]>>, %c: tensor<2xf16, #multi.on<["C"]>>, %d: tensor<2xbf16, #multi.on<["C"]>>, %e: tensor<2xi1, #multi.on<["C"]>>, %f: tensor<2xi8, #multi.on<["C"]>>, %g: tensor<2xi16, #multi.on<["C"]>>, %h: tensor<2xi32, #multi.on<["C"]>>, %i: tensor<2xi64, #multi.on<["C"]>>) {
  func.return
}

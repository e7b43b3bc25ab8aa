// RUN: multi-opt %s | multi-opt | filecheck %s
// RUN: multi-opt %s --print-op-generic | multi-opt | filecheck %s

// tg.pad with a fill value: the literal follows the element type (0.0, 0, true).

// CHECK-LABEL: func.func @f32_zero(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xf32>) -> tensor<11x4xf32> {
// CHECK-NEXT:    %[[D:.*]] = tg.pad %[[X]] {{\[\[}}1, 2], [0, 0]] value 0.0 : tensor<8x4xf32> -> tensor<11x4xf32>
// CHECK-NEXT:    func.return %[[D]] : tensor<11x4xf32>
func.func @f32_zero(%x: tensor<8x4xf32>) -> tensor<11x4xf32> {
  %d = tg.pad %x [[1, 2], [0, 0]] value 0.0 : tensor<8x4xf32> -> tensor<11x4xf32>
  func.return %d : tensor<11x4xf32>
}

// CHECK-LABEL: func.func @f32_negative(
// CHECK-SAME:      %[[X:.*]]: tensor<2x2xf32>) -> tensor<4x6xf32> {
// CHECK-NEXT:    %[[D:.*]] = tg.pad %[[X]] {{\[\[}}1, 1], [3, 1]] value -2.5 : tensor<2x2xf32> -> tensor<4x6xf32>
// CHECK-NEXT:    func.return %[[D]] : tensor<4x6xf32>
func.func @f32_negative(%x: tensor<2x2xf32>) -> tensor<4x6xf32> {
  %d = tg.pad %x [[1, 1], [3, 1]] value -2.5 : tensor<2x2xf32> -> tensor<4x6xf32>
  func.return %d : tensor<4x6xf32>
}

// An integer literal for a float element type is read as a float.
// CHECK-LABEL: func.func @f32_int_literal(
// CHECK-SAME:      %[[X:.*]]: tensor<3xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[D:.*]] = tg.pad %[[X]] {{\[\[}}0, 1]] value 1.0 : tensor<3xf32> -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[D]] : tensor<4xf32>
func.func @f32_int_literal(%x: tensor<3xf32>) -> tensor<4xf32> {
  %d = tg.pad %x [[0, 1]] value 1 : tensor<3xf32> -> tensor<4xf32>
  func.return %d : tensor<4xf32>
}

// CHECK-LABEL: func.func @f64(
// CHECK-SAME:      %[[X:.*]]: tensor<3xf64>) -> tensor<5xf64> {
// CHECK-NEXT:    %[[D:.*]] = tg.pad %[[X]] {{\[\[}}1, 1]] value 0.125 : tensor<3xf64> -> tensor<5xf64>
// CHECK-NEXT:    func.return %[[D]] : tensor<5xf64>
func.func @f64(%x: tensor<3xf64>) -> tensor<5xf64> {
  %d = tg.pad %x [[1, 1]] value 0.125 : tensor<3xf64> -> tensor<5xf64>
  func.return %d : tensor<5xf64>
}

// CHECK-LABEL: func.func @f16_bf16(
// CHECK-SAME:      %[[X:.*]]: tensor<3xf16>, %[[Y:.*]]: tensor<3xbf16>) -> (tensor<4xf16>, tensor<4xbf16>) {
// CHECK-NEXT:    %[[D:.*]] = tg.pad %[[X]] {{\[\[}}1, 0]] value 0.5 : tensor<3xf16> -> tensor<4xf16>
// CHECK-NEXT:    %[[E:.*]] = tg.pad %[[Y]] {{\[\[}}0, 1]] value 2.0 : tensor<3xbf16> -> tensor<4xbf16>
// CHECK-NEXT:    func.return %[[D]], %[[E]] : tensor<4xf16>, tensor<4xbf16>
func.func @f16_bf16(%x: tensor<3xf16>, %y: tensor<3xbf16>) -> (tensor<4xf16>, tensor<4xbf16>) {
  %d = tg.pad %x [[1, 0]] value 0.5 : tensor<3xf16> -> tensor<4xf16>
  %e = tg.pad %y [[0, 1]] value 2.0 : tensor<3xbf16> -> tensor<4xbf16>
  func.return %d, %e : tensor<4xf16>, tensor<4xbf16>
}

// CHECK-LABEL: func.func @i32(
// CHECK-SAME:      %[[X:.*]]: tensor<4x4xi32>) -> (tensor<6x4xi32>, tensor<4x5xi32>) {
// CHECK-NEXT:    %[[D:.*]] = tg.pad %[[X]] {{\[\[}}1, 1], [0, 0]] value 7 : tensor<4x4xi32> -> tensor<6x4xi32>
// CHECK-NEXT:    %[[E:.*]] = tg.pad %[[X]] {{\[\[}}0, 0], [0, 1]] value -1 : tensor<4x4xi32> -> tensor<4x5xi32>
// CHECK-NEXT:    func.return %[[D]], %[[E]] : tensor<6x4xi32>, tensor<4x5xi32>
func.func @i32(%x: tensor<4x4xi32>) -> (tensor<6x4xi32>, tensor<4x5xi32>) {
  %d = tg.pad %x [[1, 1], [0, 0]] value 7 : tensor<4x4xi32> -> tensor<6x4xi32>
  %e = tg.pad %x [[0, 0], [0, 1]] value -1 : tensor<4x4xi32> -> tensor<4x5xi32>
  func.return %d, %e : tensor<6x4xi32>, tensor<4x5xi32>
}

// CHECK-LABEL: func.func @i8_i16_i64(
// CHECK-SAME:      %[[A:.*]]: tensor<2xi8>, %[[B:.*]]: tensor<2xi16>, %[[C:.*]]: tensor<2xi64>) -> (tensor<3xi8>, tensor<3xi16>, tensor<3xi64>) {
// CHECK-NEXT:    %[[D:.*]] = tg.pad %[[A]] {{\[\[}}1, 0]] value -128 : tensor<2xi8> -> tensor<3xi8>
// CHECK-NEXT:    %[[E:.*]] = tg.pad %[[B]] {{\[\[}}1, 0]] value 300 : tensor<2xi16> -> tensor<3xi16>
// CHECK-NEXT:    %[[F:.*]] = tg.pad %[[C]] {{\[\[}}1, 0]] value 1000000000000 : tensor<2xi64> -> tensor<3xi64>
// CHECK-NEXT:    func.return %[[D]], %[[E]], %[[F]] : tensor<3xi8>, tensor<3xi16>, tensor<3xi64>
func.func @i8_i16_i64(%a: tensor<2xi8>, %b: tensor<2xi16>, %c: tensor<2xi64>) -> (tensor<3xi8>, tensor<3xi16>, tensor<3xi64>) {
  %d = tg.pad %a [[1, 0]] value -128 : tensor<2xi8> -> tensor<3xi8>
  %e = tg.pad %b [[1, 0]] value 300 : tensor<2xi16> -> tensor<3xi16>
  %f = tg.pad %c [[1, 0]] value 1000000000000 : tensor<2xi64> -> tensor<3xi64>
  func.return %d, %e, %f : tensor<3xi8>, tensor<3xi16>, tensor<3xi64>
}

// Bool tensors pad with true or false.
// CHECK-LABEL: func.func @i1(
// CHECK-SAME:      %[[X:.*]]: tensor<2x2xi1>) -> (tensor<3x2xi1>, tensor<2x3xi1>) {
// CHECK-NEXT:    %[[D:.*]] = tg.pad %[[X]] {{\[\[}}1, 0], [0, 0]] value true : tensor<2x2xi1> -> tensor<3x2xi1>
// CHECK-NEXT:    %[[E:.*]] = tg.pad %[[X]] {{\[\[}}0, 0], [0, 1]] value false : tensor<2x2xi1> -> tensor<2x3xi1>
// CHECK-NEXT:    func.return %[[D]], %[[E]] : tensor<3x2xi1>, tensor<2x3xi1>
func.func @i1(%x: tensor<2x2xi1>) -> (tensor<3x2xi1>, tensor<2x3xi1>) {
  %d = tg.pad %x [[1, 0], [0, 0]] value true : tensor<2x2xi1> -> tensor<3x2xi1>
  %e = tg.pad %x [[0, 0], [0, 1]] value false : tensor<2x2xi1> -> tensor<2x3xi1>
  func.return %d, %e : tensor<3x2xi1>, tensor<2x3xi1>
}

// Zero padding everywhere prints in the short form `: T`.
// CHECK-LABEL: func.func @no_padding(
// CHECK-SAME:      %[[X:.*]]: tensor<2x2xf32>) -> tensor<2x2xf32> {
// CHECK-NEXT:    %[[D:.*]] = tg.pad %[[X]] {{\[\[}}0, 0], [0, 0]] value 0.0 : tensor<2x2xf32>
// CHECK-NEXT:    func.return %[[D]] : tensor<2x2xf32>
func.func @no_padding(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %d = tg.pad %x [[0, 0], [0, 0]] value 0.0 : tensor<2x2xf32>
  func.return %d : tensor<2x2xf32>
}

// On devices: each device pads its own buffer.
// CHECK-LABEL: func.func @on_devices(
// CHECK-SAME:      %[[X:.*]]: tensor<2x2xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4x2xf32, #multi.on<["CPU:0", "CPU:1"]>> {
// CHECK-NEXT:    %[[D:.*]] = tg.pad %[[X]] {{\[\[}}1, 1], [0, 0]] value 1.0 : tensor<2x2xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x2xf32, #multi.on<["CPU:0", "CPU:1"]>>
// CHECK-NEXT:    func.return %[[D]] : tensor<4x2xf32, #multi.on<["CPU:0", "CPU:1"]>>
func.func @on_devices(%x: tensor<2x2xf32, #multi.on<["CPU:0", "CPU:1"]>>) -> tensor<4x2xf32, #multi.on<["CPU:0", "CPU:1"]>> {
  %d = tg.pad %x [[1, 1], [0, 0]] value 1.0 : tensor<2x2xf32, #multi.on<["CPU:0", "CPU:1"]>> -> tensor<4x2xf32, #multi.on<["CPU:0", "CPU:1"]>>
  func.return %d : tensor<4x2xf32, #multi.on<["CPU:0", "CPU:1"]>>
}

// RUN: multi-opt %s | multi-opt | filecheck %s

// devidx.stack: equally typed tensors stacked along a new leading axis.

// CHECK-LABEL: func.func @two(
// CHECK-SAME:      %[[A:.*]]: tensor<4x4xf32>, %[[B:.*]]: tensor<4x4xf32>) -> tensor<2x4x4xf32> {
// CHECK-NEXT:    %[[ST:.*]] = devidx.stack %[[A]], %[[B]] : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<2x4x4xf32>
// CHECK-NEXT:    func.return %[[ST]] : tensor<2x4x4xf32>
func.func @two(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<2x4x4xf32> {
  %st = devidx.stack %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<2x4x4xf32>
  func.return %st : tensor<2x4x4xf32>
}

// CHECK-LABEL: func.func @one(
// CHECK-SAME:      %[[A:.*]]: tensor<3xi32>) -> tensor<1x3xi32> {
// CHECK-NEXT:    %[[ST:.*]] = devidx.stack %[[A]] : tensor<3xi32> -> tensor<1x3xi32>
// CHECK-NEXT:    func.return %[[ST]] : tensor<1x3xi32>
func.func @one(%a: tensor<3xi32>) -> tensor<1x3xi32> {
  %st = devidx.stack %a : tensor<3xi32> -> tensor<1x3xi32>
  func.return %st : tensor<1x3xi32>
}

// CHECK-LABEL: func.func @three_scalars(
// CHECK-SAME:      %[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>) -> tensor<3xf32> {
// CHECK-NEXT:    %[[ST:.*]] = devidx.stack %[[A]], %[[B]], %[[A]] : tensor<f32>, tensor<f32>, tensor<f32> -> tensor<3xf32>
// CHECK-NEXT:    func.return %[[ST]] : tensor<3xf32>
func.func @three_scalars(%a: tensor<f32>, %b: tensor<f32>) -> tensor<3xf32> {
  %st = devidx.stack %a, %b, %a : tensor<f32>, tensor<f32>, tensor<f32> -> tensor<3xf32>
  func.return %st : tensor<3xf32>
}

// An encoded element type is stacked with its encoding.
// CHECK-LABEL: func.func @on_device(
// CHECK-SAME:      %[[A:.*]]: tensor<2xf32, #multi.on<["CPU:0"]>>, %[[B:.*]]: tensor<2xf32, #multi.on<["CPU:0"]>>) -> tensor<2x2xf32, #multi.on<["CPU:0"]>> {
// CHECK-NEXT:    %[[ST:.*]] = devidx.stack %[[A]], %[[B]] : tensor<2xf32, #multi.on<["CPU:0"]>>, tensor<2xf32, #multi.on<["CPU:0"]>> -> tensor<2x2xf32, #multi.on<["CPU:0"]>>
// CHECK-NEXT:    func.return %[[ST]] : tensor<2x2xf32, #multi.on<["CPU:0"]>>
func.func @on_device(%a: tensor<2xf32, #multi.on<["CPU:0"]>>, %b: tensor<2xf32, #multi.on<["CPU:0"]>>) -> tensor<2x2xf32, #multi.on<["CPU:0"]>> {
  %st = devidx.stack %a, %b : tensor<2xf32, #multi.on<["CPU:0"]>>, tensor<2xf32, #multi.on<["CPU:0"]>> -> tensor<2x2xf32, #multi.on<["CPU:0"]>>
  func.return %st : tensor<2x2xf32, #multi.on<["CPU:0"]>>
}

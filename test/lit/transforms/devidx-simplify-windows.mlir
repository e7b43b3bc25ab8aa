// devidx-simplify: narrowing work to the lanes that hold data (invalid_windows.py).
// test/transforms/test_devidx_simplify.py runs every chunk in the interpreter before and after.
// RUN: multi-opt %s --split-input-file -p devidx-simplify | filecheck %s

// ElementwiseOfInvalidPad: f(pad_inv(x, w), c) computes on the window only; the constant is cut.
// CHECK-LABEL: func.func @elementwise_of_invalid_pad(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[C:.*]] = arith.constant dense<2.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %[[X]], %[[C]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[M]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[P:.*]] = tg.pad %[[E]] {{\[}}[1, 1], [0, 0]] invalid : tensor<2x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT:    func.return %[[P]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @elementwise_of_invalid_pad(%x: tensor<2x3xf32>) -> tensor<4x3xf32> {
    %p = tg.pad %x [[1, 1], [0, 0]] invalid : tensor<2x3xf32> -> tensor<4x3xf32>
    %c = arith.constant dense<2.0> : tensor<4x3xf32>
    %m = arith.mulf %p, %c : tensor<4x3xf32>
    %e = math.exp %m : tensor<4x3xf32>
    func.return %e : tensor<4x3xf32>
  }
}

// -----

// Two padded operands: the window is their intersection.
// CHECK-LABEL: func.func @intersection_of_windows(
// CHECK-SAME:      %[[X:.*]]: tensor<3x2xf32>, %[[Y:.*]]: tensor<3x2xf32>)
// CHECK-NEXT:    %[[XS:.*]] = tg.shrink %[[X]] {{\[}}[1, 3], [0, 2]] : tensor<3x2xf32> -> tensor<2x2xf32>
// CHECK-NEXT:    %[[YS:.*]] = tg.shrink %[[Y]] {{\[}}[0, 2], [0, 2]] : tensor<3x2xf32> -> tensor<2x2xf32>
// CHECK-NEXT:    %[[A:.*]] = arith.addf %[[XS]], %[[YS]] : tensor<2x2xf32>
// CHECK-NEXT:    %[[P:.*]] = tg.pad %[[A]] {{\[}}[1, 1], [0, 0]] invalid : tensor<2x2xf32> -> tensor<4x2xf32>
// CHECK-NEXT:    func.return %[[P]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @intersection_of_windows(%x: tensor<3x2xf32>, %y: tensor<3x2xf32>) -> tensor<4x2xf32> {
    %px = tg.pad %x [[0, 1], [0, 0]] invalid : tensor<3x2xf32> -> tensor<4x2xf32>
    %py = tg.pad %y [[1, 0], [0, 0]] invalid : tensor<3x2xf32> -> tensor<4x2xf32>
    %a = arith.addf %px, %py : tensor<4x2xf32>
    func.return %a : tensor<4x2xf32>
  }
}

// -----

// SelectOfInvalidPads: both sides padded alike, the condition is cut to the window.
// CHECK-LABEL: func.func @select_of_invalid_pads(
// CHECK-SAME:      %[[C:.*]]: tensor<4xi1>, %[[X:.*]]: tensor<2xf32>, %[[Y:.*]]: tensor<2xf32>)
// CHECK-NEXT:    %[[CS:.*]] = tg.shrink %[[C]] {{\[}}[2, 4]] : tensor<4xi1> -> tensor<2xi1>
// CHECK-NEXT:    %[[W:.*]] = tg.where %[[CS]], %[[X]], %[[Y]] : tensor<2xi1>, tensor<2xf32>
// CHECK-NEXT:    %[[P:.*]] = tg.pad %[[W]] {{\[}}[2, 0]] invalid : tensor<2xf32> -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[P]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @select_of_invalid_pads(%c: tensor<4xi1>, %x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<4xf32> {
    %px = tg.pad %x [[2, 0]] invalid : tensor<2xf32> -> tensor<4xf32>
    %py = tg.pad %y [[2, 0]] invalid : tensor<2xf32> -> tensor<4xf32>
    %w = tg.where %c, %px, %py : tensor<4xi1>, tensor<4xf32>
    func.return %w : tensor<4xf32>
  }
}

// -----

// ExpandOfInvalidPad and PermuteOfInvalidPad: the padding moves with its axis.
// CHECK-LABEL: func.func @expand_and_permute_of_invalid_pad(
// CHECK-SAME:      %[[X:.*]]: tensor<2x1xf32>)
// CHECK-NEXT:    %[[E:.*]] = tg.expand %[[X]] : tensor<2x1xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    %[[P:.*]] = tg.permute %[[E]] [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK-NEXT:    %[[R:.*]] = tg.pad %[[P]] {{\[}}[0, 0], [2, 0]] invalid : tensor<3x2xf32> -> tensor<3x4xf32>
// CHECK-NEXT:    func.return %[[R]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @expand_and_permute_of_invalid_pad(%x: tensor<2x1xf32>) -> tensor<3x4xf32> {
    %p = tg.pad %x [[2, 0], [0, 0]] invalid : tensor<2x1xf32> -> tensor<4x1xf32>
    %e = tg.expand %p : tensor<4x1xf32> -> tensor<4x3xf32>
    %t = tg.permute %e [1, 0] : tensor<4x3xf32> -> tensor<3x4xf32>
    func.return %t : tensor<3x4xf32>
  }
}

// -----

// ContiguousOfInvalidPad: a store writes Invalid as 0, so the padding becomes a zero fill.
// CHECK-LABEL: func.func @contiguous_of_invalid_pad(
// CHECK-SAME:      %[[X:.*]]: tensor<2xf32>)
// CHECK-NEXT:    %[[C:.*]] = tg.contiguous %[[X]] : tensor<2xf32>
// CHECK-NEXT:    %[[P:.*]] = tg.pad %[[C]] {{\[}}[1, 1]] value 0.0 : tensor<2xf32> -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[P]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @contiguous_of_invalid_pad(%x: tensor<2xf32>) -> tensor<4xf32> {
    %p = tg.pad %x [[1, 1]] invalid : tensor<2xf32> -> tensor<4xf32>
    %c = tg.contiguous %p : tensor<4xf32>
    func.return %c : tensor<4xf32>
  }
}

// -----

// ReduceOverInvalidPadding: only the reduced axis is padded, and padding reduces as the identity.
// A reduce with padded kept axes is left alone: its all-Invalid rows are the identity, a value.
// CHECK-LABEL: func.func @reduce_over_invalid_padding(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[P:.*]] = tg.pad %[[X]] {{\[}}[1, 1], [0, 0]] invalid : tensor<2x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT:    %[[R:.*]] = tg.reduce max %[[X]] [0] : tensor<2x3xf32> -> tensor<1x3xf32>
// CHECK-NEXT:    %[[K:.*]] = tg.reduce add %[[P]] [1] : tensor<4x3xf32> -> tensor<4x1xf32>
// CHECK-NEXT:    func.return %[[R]], %[[K]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @reduce_over_invalid_padding(%x: tensor<2x3xf32>) -> (tensor<1x3xf32>, tensor<4x1xf32>) {
    %p = tg.pad %x [[1, 1], [0, 0]] invalid : tensor<2x3xf32> -> tensor<4x3xf32>
    %r = tg.reduce max %p [0] : tensor<4x3xf32> -> tensor<1x3xf32>
    %k = tg.reduce add %p [1] : tensor<4x3xf32> -> tensor<4x1xf32>
    func.return %r, %k : tensor<1x3xf32>, tensor<4x1xf32>
  }
}

// -----

// ShrinkOfReduce, ShrinkOfElementwise, ShrinkOfExpand: a shrink rises to the inputs, so only
// the kept lanes are computed.
// CHECK-LABEL: func.func @shrinks_rise(
// CHECK-SAME:      %[[X:.*]]: tensor<6x4xf32>)
// CHECK-NEXT:    %[[XS:.*]] = tg.shrink %[[X]] {{\[}}[2, 4], [0, 4]] : tensor<6x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT:    %[[R:.*]] = tg.reduce add %[[XS]] [1] : tensor<2x4xf32> -> tensor<2x1xf32>
// CHECK-NEXT:    %[[N:.*]] = arith.negf %[[R]] : tensor<2x1xf32>
// CHECK-NEXT:    %[[E:.*]] = tg.expand %[[N]] : tensor<2x1xf32> -> tensor<2x4xf32>
// CHECK-NEXT:    func.return %[[E]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @shrinks_rise(%x: tensor<6x4xf32>) -> tensor<2x4xf32> {
    %r = tg.reduce add %x [1] : tensor<6x4xf32> -> tensor<6x1xf32>
    %n = arith.negf %r : tensor<6x1xf32>
    %e = tg.expand %n : tensor<6x1xf32> -> tensor<6x4xf32>
    %s = tg.shrink %e [[2, 4], [0, 4]] : tensor<6x4xf32> -> tensor<2x4xf32>
    func.return %s : tensor<2x4xf32>
  }
}

// -----

// A shrink does not rise through an op with another use: that would compute lanes twice.
// CHECK-LABEL: func.func @shared_value_is_not_duplicated(
// CHECK-SAME:      %[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[N:.*]] = arith.negf %[[X]] : tensor<4xf32>
// CHECK-NEXT:    %[[S:.*]] = tg.shrink %[[N]] {{\[}}[0, 2]] : tensor<4xf32> -> tensor<2xf32>
// CHECK-NEXT:    func.return %[[N]], %[[S]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @shared_value_is_not_duplicated(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xf32>) {
    %n = arith.negf %x : tensor<4xf32>
    %s = tg.shrink %n [[0, 2]] : tensor<4xf32> -> tensor<2xf32>
    func.return %n, %s : tensor<4xf32>, tensor<2xf32>
  }
}

// -----

// ElementwiseOfDevicePad, ReshapeOfDevicePad: at the SPMD level the window moves with d (SSA
// bounds); operands padded with the same bounds, and splat constants, compute on the window
// (W5's relu on each device's columns), and a reshape of unit axes keeps the pad below it.
// CHECK-LABEL: func.func @elementwise_of_device_pad(
// CHECK-SAME:      %[[X:.*]]: tensor<4x1xf32>, %[[Y:.*]]: tensor<4x1xf32>)
// CHECK:         %[[R:.*]] = tg.reshape %[[X]] : tensor<4x1xf32> -> tensor<4xf32>
// CHECK:         %[[S:.*]] = tg.reshape %[[Y]] : tensor<4x1xf32> -> tensor<4xf32>
// CHECK:         %[[C:.*]] = arith.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT:    %[[M:.*]] = arith.maximumf %[[R]], %[[C]] : tensor<4xf32>
// CHECK-NEXT:    %[[A:.*]] = arith.addf %[[M]], %[[S]] : tensor<4xf32>
// CHECK-NEXT:    %[[P:.*]] = tg.pad %[[A]] {{\[}}[%{{.*}}, %{{.*}}]] invalid : tensor<4xf32> -> tensor<8xf32>
// CHECK-NEXT:    func.return %[[P]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @elementwise_of_device_pad(%x: tensor<4x1xf32>, %y: tensor<4x1xf32>) -> tensor<8xf32> {
    %dn = devidx.device_num : index
    %c2 = arith.constant 2 : index
    %d = arith.remsi %dn, %c2 : index
    %c4 = arith.constant 4 : index
    %lo = arith.muli %d, %c4 : index
    %c1 = arith.constant 1 : index
    %e = arith.subi %c1, %d : index
    %hi = arith.muli %e, %c4 : index
    %px = tg.pad %x [[%lo, %hi], [0, 0]] invalid : tensor<4x1xf32> -> tensor<8x1xf32>
    %py = tg.pad %y [[%lo, %hi], [0, 0]] invalid : tensor<4x1xf32> -> tensor<8x1xf32>
    %rx = tg.reshape %px : tensor<8x1xf32> -> tensor<8xf32>
    %ry = tg.reshape %py : tensor<8x1xf32> -> tensor<8xf32>
    %zero = arith.constant dense<0.0> : tensor<8xf32>
    %m = arith.maximumf %rx, %zero : tensor<8xf32>
    %a = arith.addf %m, %ry : tensor<8xf32>
    func.return %a : tensor<8xf32>
  }
}

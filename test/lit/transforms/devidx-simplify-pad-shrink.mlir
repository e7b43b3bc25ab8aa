// devidx-simplify: pad and shrink folding (pad_shrink_folding.py).
// test/transforms/test_devidx_simplify.py runs every chunk in the interpreter before and after.
// RUN: multi-opt %s --split-input-file -p devidx-simplify | filecheck %s

// ConstantBoundsBecomeStatic: bounds that fold to constants become static bounds.
// On one device d = 0, so the pad is [[0, 2]]; d-dependent bounds stay SSA values otherwise.
// CHECK-LABEL: func.func @constant_bounds_become_static(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3xf32>)
// The static shrink of the static pad then composes (ShrinkOfPadComposes).
// CHECK-NEXT:    %[[P:.*]] = tg.pad %[[X]] [[0, 2], [1, 0]] invalid : tensor<2x3xf32> -> tensor<4x4xf32>
// CHECK-NEXT:    %[[S:.*]] = tg.shrink %[[X]] [[1, 2], [0, 3]] : tensor<2x3xf32> -> tensor<1x3xf32>
// CHECK-NEXT:    %[[SP:.*]] = tg.pad %[[S]] [[0, 1], [1, 0]] invalid : tensor<1x3xf32> -> tensor<2x4xf32>
// CHECK-NEXT:    func.return %[[P]], %[[SP]]
module attributes {multi.devices = ["CPU:0"]} {
  func.func @constant_bounds_become_static(%x: tensor<2x3xf32>) -> (tensor<4x4xf32>, tensor<2x4xf32>) {
    %dn = devidx.device_num : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %d = arith.remsi %dn, %c3 : index
    %hi = arith.subi %c2, %d : index
    %p = tg.pad %x [[%d, %hi], [%c1, 0]] invalid : tensor<2x3xf32> -> tensor<4x4xf32>
    %s = tg.shrink %p [[%c1, %c3], [0, 4]] : tensor<4x4xf32> -> tensor<2x4xf32>
    func.return %p, %s : tensor<4x4xf32>, tensor<2x4xf32>
  }
}

// -----

// PadWithZeroBoundsIsIdentity, ShrinkOfFullRangeIsIdentity.
// CHECK-LABEL: func.func @identity_pad_and_shrink(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    func.return %[[X]], %[[X]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @identity_pad_and_shrink(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
    %p = tg.pad %x [[0, 0], [0, 0]] value 1.0 : tensor<2x3xf32> -> tensor<2x3xf32>
    %s = tg.shrink %x [[0, 2], [0, 3]] : tensor<2x3xf32> -> tensor<2x3xf32>
    func.return %p, %s : tensor<2x3xf32>, tensor<2x3xf32>
  }
}

// -----

// ShrinkOfPadComposes: a shrink within the original data is a shrink of the data; a shrink
// within the padding is Invalid (returned: zeros) or the fill value; a shrink across the edge
// is pad(shrink(x)) with the remaining padding.
// CHECK-LABEL: func.func @shrink_of_pad_composes(
// CHECK-SAME:      %[[X:.*]]: tensor<4x3xf32>)
// CHECK-NEXT:    %[[IN:.*]] = tg.shrink %[[X]] [[1, 3], [0, 3]] : tensor<4x3xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    %[[V:.*]] = arith.constant dense<7.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT:    %[[E:.*]] = tg.shrink %[[X]] [[2, 4], [0, 3]] : tensor<4x3xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    %[[EP:.*]] = tg.pad %[[E]] [[0, 1], [0, 0]] invalid : tensor<2x3xf32> -> tensor<3x3xf32>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[IN]], %[[Z]], %[[V]], %[[EP]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @shrink_of_pad_composes(%x: tensor<4x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x3xf32>) {
    %p = tg.pad %x [[2, 3], [0, 0]] invalid : tensor<4x3xf32> -> tensor<9x3xf32>
    %in = tg.shrink %p [[3, 5], [0, 3]] : tensor<9x3xf32> -> tensor<2x3xf32>
    %pad = tg.shrink %p [[6, 8], [0, 3]] : tensor<9x3xf32> -> tensor<2x3xf32>
    %v = tg.pad %x [[2, 3], [0, 0]] value 7.0 : tensor<4x3xf32> -> tensor<9x3xf32>
    %vpad = tg.shrink %v [[0, 2], [0, 3]] : tensor<9x3xf32> -> tensor<2x3xf32>
    %edge = tg.shrink %p [[4, 7], [0, 3]] : tensor<9x3xf32> -> tensor<3x3xf32>
    func.return %in, %pad, %vpad, %edge : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<3x3xf32>
  }
}

// -----

// ShrinkOfShrinkComposes.
// CHECK-LABEL: func.func @shrink_of_shrink_composes(
// CHECK-SAME:      %[[X:.*]]: tensor<8x4xi32>)
// CHECK-NEXT:    %[[S:.*]] = tg.shrink %[[X]] [[3, 5], [1, 3]] : tensor<8x4xi32> -> tensor<2x2xi32>
// CHECK-NEXT:    func.return %[[S]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @shrink_of_shrink_composes(%x: tensor<8x4xi32>) -> tensor<2x2xi32> {
    %a = tg.shrink %x [[2, 7], [1, 4]] : tensor<8x4xi32> -> tensor<5x3xi32>
    %b = tg.shrink %a [[1, 3], [0, 2]] : tensor<5x3xi32> -> tensor<2x2xi32>
    func.return %b : tensor<2x2xi32>
  }
}

// -----

// PadOfPadComposes: the same fill composes (an SSA bound plus a static one is an addi);
// different fills do not. (d mod 2 is d on two devices: RemOfValueInOneBlock.)
// CHECK-LABEL: func.func @pad_of_pad_composes(
// CHECK-SAME:      %[[X:.*]]: tensor<2x2xf32>)
// CHECK-NEXT:    %[[D:.*]] = devidx.device_num : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[HI:.*]] = arith.subi %[[C1]], %[[D]] : index
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[SUM:.*]] = arith.addi %[[D]], %[[C2]] : index
// CHECK-NEXT:    %[[P:.*]] = tg.pad %[[X]] [[%[[SUM]], %[[HI]]], [1, 1]] invalid : tensor<2x2xf32> -> tensor<5x4xf32>
// CHECK-NEXT:    %[[V:.*]] = tg.pad %[[X]] [[1, 0], [0, 0]] value 1.0 : tensor<2x2xf32> -> tensor<3x2xf32>
// CHECK-NEXT:    %[[W:.*]] = tg.pad %[[V]] [[0, 1], [0, 0]] value 2.0 : tensor<3x2xf32> -> tensor<4x2xf32>
// CHECK-NEXT:    func.return %[[P]], %[[W]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @pad_of_pad_composes(%x: tensor<2x2xf32>) -> (tensor<5x4xf32>, tensor<4x2xf32>) {
    %dn = devidx.device_num : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %d = arith.remsi %dn, %c2 : index
    %hi = arith.subi %c1, %d : index
    %a = tg.pad %x [[%d, %hi], [1, 0]] invalid : tensor<2x2xf32> -> tensor<3x3xf32>
    %b = tg.pad %a [[2, 0], [0, 1]] invalid : tensor<3x3xf32> -> tensor<5x4xf32>
    %v = tg.pad %x [[1, 0], [0, 0]] value 1.0 : tensor<2x2xf32> -> tensor<3x2xf32>
    %w = tg.pad %v [[0, 1], [0, 0]] value 2.0 : tensor<3x2xf32> -> tensor<4x2xf32>
    func.return %b, %w : tensor<5x4xf32>, tensor<4x2xf32>
  }
}

// -----

// MULTI's round trip on device 1 of 2 (after specialization d = 1): global(local(x)) of rows
// [4, 7) of a 7-row tensor becomes one shrink and one pad.
// CHECK-LABEL: func.func @global_of_local_on_one_device(
// CHECK-SAME:      %[[X:.*]]: tensor<7x2xf32>)
// CHECK-NEXT:    %[[S:.*]] = tg.shrink %[[X]] [[4, 7], [0, 2]] : tensor<7x2xf32> -> tensor<3x2xf32>
// CHECK-NEXT:    %[[P:.*]] = tg.pad %[[S]] [[4, 0], [0, 0]] invalid : tensor<3x2xf32> -> tensor<7x2xf32>
// CHECK-NEXT:    func.return %[[P]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @global_of_local_on_one_device(%x: tensor<7x2xf32>) -> tensor<7x2xf32> {
    %a = tg.pad %x [[0, 1], [0, 0]] invalid : tensor<7x2xf32> -> tensor<8x2xf32>
    %l = tg.shrink %a [[4, 8], [0, 2]] : tensor<8x2xf32> -> tensor<4x2xf32>
    %b = tg.pad %l [[4, 0], [0, 0]] invalid : tensor<4x2xf32> -> tensor<8x2xf32>
    %g = tg.shrink %b [[0, 7], [0, 2]] : tensor<8x2xf32> -> tensor<7x2xf32>
    func.return %g : tensor<7x2xf32>
  }
}

// -----

// ShrinkOfPadRecoversSource: at the SPMD level a mesh block is padded to its place (rows
// [2d, 2d + 2) of 4) and shrunk back with the same symbolic bound: the shrink gives the block
// back on that axis (x itself once no axis keeps padding), whatever d is. A shrink that starts
// elsewhere, or does not cover another axis whole, is left alone.
// CHECK-LABEL: func.func @shrink_of_pad_recovers_source(
// CHECK-SAME:      %[[X:.*]]: tensor<2x3xf32>)
// CHECK:         %[[LO:.*]] = arith.muli
// CHECK:         %[[P:.*]] = tg.pad %[[X]] [[%[[LO]], %{{.*}}], [0, 1]] invalid : tensor<2x3xf32> -> tensor<4x4xf32>
// CHECK-NEXT:    %[[C:.*]] = tg.pad %[[X]] [[0, 0], [0, 1]] invalid : tensor<2x3xf32> -> tensor<2x4xf32>
// CHECK-NEXT:    %[[O:.*]] = tg.shrink %[[P]] [[1, 3], [0, 4]] : tensor<4x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT:    func.return %[[X]], %[[C]], %[[O]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @shrink_of_pad_recovers_source(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
    %dn = devidx.device_num : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %d = arith.remsi %dn, %c2 : index
    %lo = arith.muli %d, %c2 : index
    %e = arith.subi %c1, %d : index
    %hi = arith.muli %e, %c2 : index
    %p = tg.pad %x [[%lo, %hi], [0, 1]] invalid : tensor<2x3xf32> -> tensor<4x4xf32>
    %up = arith.addi %lo, %c2 : index
    %rows = tg.shrink %p [[%lo, %up], [0, 4]] : tensor<4x4xf32> -> tensor<2x4xf32>
    %both = tg.shrink %rows [[0, 2], [0, 3]] : tensor<2x4xf32> -> tensor<2x3xf32>
    %rows2 = tg.shrink %p [[%lo, %up], [0, 4]] : tensor<4x4xf32> -> tensor<2x4xf32>
    %other = tg.shrink %p [[1, 3], [0, 4]] : tensor<4x4xf32> -> tensor<2x4xf32>
    func.return %both, %rows2, %other : tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x4xf32>
  }
}

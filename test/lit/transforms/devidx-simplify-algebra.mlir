// devidx-simplify: selects with constant or equal conditions and tinygrad's constant rules
// (algebra_folding.py). test/transforms/test_devidx_simplify.py runs every chunk in the
// interpreter before and after.
// RUN: multi-opt %s --split-input-file -p devidx-simplify | filecheck %s

// SelectOfConstantCondition, WhereOfSplatCondition, SelectOfSameValues.
// CHECK-LABEL: func.func @selects_with_known_conditions(
// CHECK-SAME:      %[[C:.*]]: i1, %[[K:.*]]: tensor<3xi1>, %[[A:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK-NEXT:    func.return %[[A]], %[[B]], %[[A]], %[[B]], %[[A]], %[[B]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @selects_with_known_conditions(%c: i1, %k: tensor<3xi1>, %a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
    %t = arith.constant true
    %f = arith.constant false
    %s1 = arith.select %t, %a, %b : tensor<3xf32>
    %s2 = arith.select %f, %a, %b : tensor<3xf32>
    %kt = arith.constant dense<true> : tensor<3xi1>
    %kf = arith.constant dense<false> : tensor<3xi1>
    %w1 = tg.where %kt, %a, %b : tensor<3xi1>, tensor<3xf32>
    %w2 = tg.where %kf, %a, %b : tensor<3xi1>, tensor<3xf32>
    %s3 = arith.select %c, %a, %a : tensor<3xf32>
    %w3 = tg.where %k, %b, %b : tensor<3xi1>, tensor<3xf32>
    func.return %s1, %s2, %w1, %w2, %s3, %w3 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }
}

// -----

// AddZeroIsIdentity, SubZeroIsIdentity, MulOneIsIdentity on float and integer tensors and
// on index scalars (0 + x, x - 0, 1 * x); x - 0 keeps a non-zero left operand.
// CHECK-LABEL: func.func @identity_constants(
// CHECK-SAME:      %[[X:.*]]: tensor<3xf32>, %[[I:.*]]: tensor<3xi32>, %[[N:.*]]: index)
// CHECK-NEXT:    %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-NEXT:    %[[NEG:.*]] = arith.subf %[[Z]], %[[X]] : tensor<3xf32>
// CHECK-NEXT:    func.return %[[X]], %[[X]], %[[X]], %[[I]], %[[I]], %[[I]], %[[N]], %[[NEG]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @identity_constants(%x: tensor<3xf32>, %i: tensor<3xi32>, %n: index) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, index, tensor<3xf32>) {
    %z = arith.constant dense<0.0> : tensor<3xf32>
    %nz = arith.constant dense<-0.0> : tensor<3xf32>
    %one = arith.constant dense<1.0> : tensor<3xf32>
    %a = arith.addf %z, %x : tensor<3xf32>
    %s = arith.subf %x, %nz : tensor<3xf32>
    %m = arith.mulf %x, %one : tensor<3xf32>
    %zi = arith.constant dense<0> : tensor<3xi32>
    %onei = arith.constant dense<1> : tensor<3xi32>
    %ai = arith.addi %i, %zi : tensor<3xi32>
    %si = arith.subi %i, %zi : tensor<3xi32>
    %mi = arith.muli %onei, %i : tensor<3xi32>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %an = arith.addi %c0, %n : index
    %sn = arith.subi %an, %c0 : index
    %mn = arith.muli %c1, %sn : index
    %neg = arith.subf %z, %x : tensor<3xf32>
    func.return %a, %s, %m, %ai, %si, %mi, %mn, %neg : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, index, tensor<3xf32>
  }
}

// -----

// IntMulZeroIsZero: x * 0 is 0 for integers (scalars and splats), but not for floats (NaN * 0
// is NaN) and not when x may hold Invalid lanes (Invalid * 0 is Invalid). A padded x first has
// the multiply narrowed to its data lanes (invalid_windows.py), where it then folds; the max
// over the padded axis reads the padding as the identity.
// CHECK-LABEL: func.func @int_mul_zero_is_zero(
// CHECK-SAME:      %[[X:.*]]: tensor<3xf32>, %[[I:.*]]: tensor<3xi32>, %[[C:.*]]: i1)
// CHECK-NEXT:    %[[ZF:.*]] = arith.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-NEXT:    %[[F:.*]] = arith.mulf %[[X]], %[[ZF]] : tensor<3xf32>
// CHECK-NEXT:    %[[M:.*]] = arith.constant dense<0> : tensor<3xi32>
// CHECK-NEXT:    %[[INV:.*]] = devidx.invalid : tensor<3xi32>
// CHECK-NEXT:    %[[S:.*]] = arith.select %[[C]], %[[M]], %[[INV]] : tensor<3xi32>
// CHECK-NEXT:    %[[Z2:.*]] = arith.constant dense<0> : tensor<2xi32>
// CHECK-NEXT:    %[[R:.*]] = tg.reduce max %[[Z2]] [0]
// CHECK-NEXT:    %[[N:.*]] = arith.constant 0 : index
// CHECK-NEXT:    func.return %[[F]], %[[S]], %[[R]], %[[N]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @int_mul_zero_is_zero(%x: tensor<3xf32>, %i: tensor<3xi32>, %c: i1) -> (tensor<3xf32>, tensor<3xi32>, tensor<1xi32>, index) {
    %zf = arith.constant dense<0.0> : tensor<3xf32>
    %zi = arith.constant dense<0> : tensor<3xi32>
    %inv = devidx.invalid : tensor<3xi32>
    %f = arith.mulf %x, %zf : tensor<3xf32>
    %s = arith.select %c, %i, %inv : tensor<3xi32>
    %sm = arith.muli %s, %zi : tensor<3xi32>
    %p = tg.pad %i [[1, 0]] invalid : tensor<3xi32> -> tensor<4xi32>
    %ps = tg.shrink %p [[0, 3]] : tensor<4xi32> -> tensor<3xi32>
    %pm = arith.muli %ps, %zi : tensor<3xi32>
    %r = tg.reduce max %pm [0] : tensor<3xi32> -> tensor<1xi32>
    %d = devidx.device_num : index
    %c0 = arith.constant 0 : index
    %n = arith.muli %d, %c0 : index
    func.return %f, %sm, %r, %n : tensor<3xf32>, tensor<3xi32>, tensor<1xi32>, index
  }
}

// -----

// DoubleNegationCancels.
// CHECK-LABEL: func.func @double_negation_cancels(
// CHECK-SAME:      %[[X:.*]]: tensor<3xf32>)
// CHECK-NEXT:    %[[N:.*]] = arith.negf %[[X]] : tensor<3xf32>
// CHECK-NEXT:    func.return %[[X]], %[[N]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @double_negation_cancels(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
    %n = arith.negf %x : tensor<3xf32>
    %nn = arith.negf %n : tensor<3xf32>
    %nnn = arith.negf %nn : tensor<3xf32>
    func.return %nn, %nnn : tensor<3xf32>, tensor<3xf32>
  }
}

// devidx-simplify: the Invalid rules of SPEC §4 (invalid_rules.py), one chunk per pattern.
// test/transforms/test_devidx_simplify.py runs every chunk in the interpreter before and after.
// RUN: multi-opt %s --split-input-file -p devidx-simplify | filecheck %s

// Rule 1 (ElementwiseOfSelectWithInvalid): the select moves past the elementwise op.
// CHECK-LABEL: func.func @elementwise_of_select_with_invalid(
// CHECK-SAME:      %[[C:.*]]: i1, %[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[E:.*]] = arith.addf %[[X]], %[[Y]] : tensor<4xf32>
// CHECK-NEXT:    %[[I:.*]] = devidx.invalid : tensor<4xf32>
// CHECK-NEXT:    %[[S:.*]] = arith.select %[[C]], %[[E]], %[[I]] : tensor<4xf32>
// CHECK-NEXT:    func.return %[[S]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @elementwise_of_select_with_invalid(%c: i1, %x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
    %inv = devidx.invalid : tensor<4xf32>
    %s = arith.select %c, %x, %inv : tensor<4xf32>
    %e = arith.addf %s, %y : tensor<4xf32>
    func.return %e : tensor<4xf32>
  }
}

// -----

// Rule 1 with tg.where, the Invalid arm first, and ops that change the element type
// (tg.cmp, tg.cast): the condition tensor stays, Invalid gets the result's type.
// CHECK-LABEL: func.func @elementwise_of_where_with_invalid(
// CHECK-SAME:      %[[C:.*]]: tensor<4xi1>, %[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[N:.*]] = math.exp %[[X]] : tensor<4xf32>
// CHECK-NEXT:    %[[K:.*]] = tg.cmp lt %[[N]], %[[X]] : tensor<4xf32> -> tensor<4xi1>
// CHECK-NEXT:    %[[T:.*]] = tg.cast %[[K]] : tensor<4xi1> -> tensor<4xi32>
// CHECK-NEXT:    %[[I:.*]] = devidx.invalid : tensor<4xi32>
// CHECK-NEXT:    %[[W:.*]] = tg.where %[[C]], %[[I]], %[[T]] : tensor<4xi1>, tensor<4xi32>
// CHECK-NEXT:    func.return %[[W]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @elementwise_of_where_with_invalid(%c: tensor<4xi1>, %x: tensor<4xf32>) -> tensor<4xi32> {
    %inv = devidx.invalid : tensor<4xf32>
    %w = tg.where %c, %inv, %x : tensor<4xi1>, tensor<4xf32>
    %e = math.exp %w : tensor<4xf32>
    %k = tg.cmp lt %e, %x : tensor<4xf32> -> tensor<4xi1>
    %t = tg.cast %k : tensor<4xi1> -> tensor<4xi32>
    func.return %t : tensor<4xi32>
  }
}

// -----

// tg.where is not an elementwise f of rule 1: Invalid in its unselected arm does not poison it.
// CHECK-LABEL: func.func @where_is_not_poisoned(
// CHECK-NEXT:    devidx.invalid
// CHECK-NEXT:    arith.select
// CHECK-NEXT:    tg.where
// CHECK-NEXT:    func.return
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @where_is_not_poisoned(%c: i1, %k: tensor<4xi1>, %x: tensor<4xf32>) -> tensor<4xf32> {
    %inv = devidx.invalid : tensor<4xf32>
    %s = arith.select %c, %x, %inv : tensor<4xf32>
    %w = tg.where %k, %x, %s : tensor<4xi1>, tensor<4xf32>
    func.return %w : tensor<4xf32>
  }
}

// -----

// ElementwiseOfInvalidIsInvalid: f(inv, y) is Invalid; returned, it is stored as zeros.
// CHECK-LABEL: func.func @elementwise_of_invalid_is_invalid(
// CHECK-NEXT:    %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT:    func.return %[[Z]] : tensor<4xf32>
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @elementwise_of_invalid_is_invalid(%y: tensor<4xf32>) -> tensor<4xf32> {
    %inv = devidx.invalid : tensor<4xf32>
    %e = arith.mulf %inv, %y : tensor<4xf32>
    %n = arith.negf %e : tensor<4xf32>
    func.return %n : tensor<4xf32>
  }
}

// -----

// Rule 2 (ReduceOfInvalidUsesIdentity): the Invalid arm becomes the reduction's identity,
// as a dense splat of the select's own type: add 0, mul 1, max -inf (floats) or the signed
// minimum (ints).
// CHECK-LABEL: func.func @reduce_of_invalid_uses_identity(
// CHECK-SAME:      %[[K:.*]]: tensor<4x3xi1>, %[[X:.*]]: tensor<4x3xf32>, %[[I:.*]]: tensor<4x3xi32>, %[[H:.*]]: tensor<4x3xf16>)
// CHECK-NEXT:    %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<4x3xf32>
// CHECK-NEXT:    %[[W0:.*]] = tg.where %[[K]], %[[X]], %[[Z]] : tensor<4x3xi1>, tensor<4x3xf32>
// CHECK-NEXT:    %[[A:.*]] = tg.reduce add %[[W0]] [0]
// CHECK-NEXT:    %[[O:.*]] = arith.constant dense<1.000000e+00> : tensor<4x3xf32>
// CHECK-NEXT:    %[[W1:.*]] = tg.where %[[K]], %[[X]], %[[O]] : tensor<4x3xi1>, tensor<4x3xf32>
// CHECK-NEXT:    %[[M:.*]] = tg.reduce mul %[[W1]] [0]
// CHECK-NEXT:    %[[NI:.*]] = arith.constant dense<0xff800000> : tensor<4x3xf32>
// CHECK-NEXT:    %[[W2:.*]] = tg.where %[[K]], %[[NI]], %[[X]] : tensor<4x3xi1>, tensor<4x3xf32>
// CHECK-NEXT:    %[[X2:.*]] = tg.reduce max %[[W2]] [1]
// CHECK-NEXT:    %[[IM:.*]] = arith.constant dense<-2147483648> : tensor<4x3xi32>
// CHECK-NEXT:    %[[W3:.*]] = tg.where %[[K]], %[[I]], %[[IM]] : tensor<4x3xi1>, tensor<4x3xi32>
// CHECK-NEXT:    %[[X3:.*]] = tg.reduce max %[[W3]] [0, 1]
// CHECK-NEXT:    %[[HM:.*]] = arith.constant dense<0xfc00> : tensor<4x3xf16>
// CHECK-NEXT:    %[[W4:.*]] = tg.where %[[K]], %[[H]], %[[HM]] : tensor<4x3xi1>, tensor<4x3xf16>
// CHECK-NEXT:    %[[X4:.*]] = tg.reduce max %[[W4]] [0]
// CHECK-NEXT:    func.return %[[A]], %[[M]], %[[X2]], %[[X3]], %[[X4]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @reduce_of_invalid_uses_identity(%k: tensor<4x3xi1>, %x: tensor<4x3xf32>, %i: tensor<4x3xi32>, %h: tensor<4x3xf16>) -> (tensor<1x3xf32>, tensor<1x3xf32>, tensor<4x1xf32>, tensor<1x1xi32>, tensor<1x3xf16>) {
    %inv = devidx.invalid : tensor<4x3xf32>
    %w = tg.where %k, %x, %inv : tensor<4x3xi1>, tensor<4x3xf32>
    %a = tg.reduce add %w [0] : tensor<4x3xf32> -> tensor<1x3xf32>
    %m = tg.reduce mul %w [0] : tensor<4x3xf32> -> tensor<1x3xf32>
    %w2 = tg.where %k, %inv, %x : tensor<4x3xi1>, tensor<4x3xf32>
    %x2 = tg.reduce max %w2 [1] : tensor<4x3xf32> -> tensor<4x1xf32>
    %invi = devidx.invalid : tensor<4x3xi32>
    %w3 = tg.where %k, %i, %invi : tensor<4x3xi1>, tensor<4x3xi32>
    %x3 = tg.reduce max %w3 [0, 1] : tensor<4x3xi32> -> tensor<1x1xi32>
    %invh = devidx.invalid : tensor<4x3xf16>
    %w4 = tg.where %k, %h, %invh : tensor<4x3xi1>, tensor<4x3xf16>
    %x4 = tg.reduce max %w4 [0] : tensor<4x3xf16> -> tensor<1x3xf16>
    func.return %a, %m, %x2, %x3, %x4 : tensor<1x3xf32>, tensor<1x3xf32>, tensor<4x1xf32>, tensor<1x1xi32>, tensor<1x3xf16>
  }
}

// -----

// Rule 2 with a scalar condition (arith.select): the same rewrite; a false condition makes
// the whole reduced range Invalid, and that reduces to the identity too.
// CHECK-LABEL: func.func @reduce_of_select_with_invalid(
// CHECK-SAME:      %[[C:.*]]: i1, %[[X:.*]]: tensor<4x3xf32>)
// CHECK-NEXT:    %[[NI:.*]] = arith.constant dense<0xff800000> : tensor<4x3xf32>
// CHECK-NEXT:    %[[S:.*]] = arith.select %[[C]], %[[X]], %[[NI]] : tensor<4x3xf32>
// CHECK-NEXT:    %[[R:.*]] = tg.reduce max %[[S]] [0]
// CHECK-NEXT:    func.return %[[R]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @reduce_of_select_with_invalid(%c: i1, %x: tensor<4x3xf32>) -> tensor<1x3xf32> {
    %inv = devidx.invalid : tensor<4x3xf32>
    %s = arith.select %c, %x, %inv : tensor<4x3xf32>
    %r = tg.reduce max %s [0] : tensor<4x3xf32> -> tensor<1x3xf32>
    func.return %r : tensor<1x3xf32>
  }
}

// -----

// ReduceOfAllInvalidIsIdentity: a reduction of an all-Invalid value is the identity.
// CHECK-LABEL: func.func @reduce_of_all_invalid_is_identity(
// CHECK-NEXT:    %[[R:.*]] = arith.constant dense<1> : tensor<1x3xi8>
// CHECK-NEXT:    func.return %[[R]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @reduce_of_all_invalid_is_identity() -> tensor<1x3xi8> {
    %inv = devidx.invalid : tensor<4x3xi8>
    %r = tg.reduce mul %inv [0] : tensor<4x3xi8> -> tensor<1x3xi8>
    func.return %r : tensor<1x3xi8>
  }
}

// -----

// Rule 3 (ContiguousOfInvalidIsZero): a materialized Invalid reads back as 0.
// CHECK-LABEL: func.func @contiguous_of_invalid_is_zero(
// CHECK-NEXT:    %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<2x2xf32>
// CHECK-NEXT:    %[[E:.*]] = math.exp %[[Z]] : tensor<2x2xf32>
// CHECK-NEXT:    func.return %[[E]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @contiguous_of_invalid_is_zero() -> tensor<2x2xf32> {
    %inv = devidx.invalid : tensor<2x2xf32>
    %c = tg.contiguous %inv : tensor<2x2xf32> -> tensor<2x2xf32>
    %e = math.exp %c : tensor<2x2xf32>
    func.return %e : tensor<2x2xf32>
  }
}

// -----

// Rule 3 (FetchOfInvalidIsZero): fetching an all-Invalid value gives zeros on every device.
// CHECK-LABEL: func.func @fetch_of_invalid_is_zero(
// CHECK-NEXT:    %[[Z:.*]] = arith.constant dense<0> : tensor<3xi32>
// CHECK-NEXT:    func.return %[[Z]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @fetch_of_invalid_is_zero() -> tensor<3xi32> {
    %d = devidx.device_num : index
    %inv = devidx.invalid : tensor<3xi32>
    %f = devidx.fetch %inv from %d : tensor<3xi32>
    func.return %f : tensor<3xi32>
  }
}

// -----

// Rule 3 (SendOfInvalidSendsZero, ReturnOfInvalidReturnsZero): a send and a function result
// store their value; here in a specialized module (one nested module per device).
// CHECK-LABEL: func.func @send_and_return_of_invalid(
// CHECK-NEXT:    %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-NEXT:    devidx.send %[[Z]] to 1 channel 4 : tensor<3xf32>
// CHECK-NEXT:    %[[R:.*]] = arith.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-NEXT:    func.return %[[R]], %[[R]]
// CHECK-LABEL: func.func @send_and_return_of_invalid(
// CHECK-NEXT:    %[[V:.*]] = devidx.recv from 0 channel 4 : tensor<3xf32>
// CHECK-NEXT:    func.return %[[V]], %[[V]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  builtin.module @device_0 attributes {devidx.device = 0 : i64} {
    func.func @send_and_return_of_invalid() -> (tensor<3xf32>, tensor<3xf32>) {
      %inv = devidx.invalid : tensor<3xf32>
      devidx.send %inv to 1 channel 4 : tensor<3xf32>
      func.return %inv, %inv : tensor<3xf32>, tensor<3xf32>
    }
  }
  builtin.module @device_1 attributes {devidx.device = 1 : i64} {
    func.func @send_and_return_of_invalid() -> (tensor<3xf32>, tensor<3xf32>) {
      %r = devidx.recv from 0 channel 4 : tensor<3xf32>
      func.return %r, %r : tensor<3xf32>, tensor<3xf32>
    }
  }
}

// -----

// Rule 4 (PadOfInvalidIsInvalid, ShrinkOfInvalidIsInvalid, MovementOfInvalidIsInvalid): moving
// Invalid gives Invalid; a pad with a fill value is not all Invalid (its padding is the fill).
// CHECK-LABEL: func.func @movement_of_invalid(
// CHECK-NEXT:    %[[I:.*]] = devidx.invalid : tensor<4x2xf32>
// CHECK-NEXT:    %[[V:.*]] = tg.pad %[[I]] [[1, 1], [0, 0]] value 2.0 : tensor<4x2xf32> -> tensor<6x2xf32>
// CHECK-NEXT:    %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<6x2xf32>
// CHECK-NEXT:    func.return %[[V]], %[[Z]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @movement_of_invalid() -> (tensor<6x2xf32>, tensor<6x2xf32>) {
    %d = devidx.device_num : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c6 = arith.constant 6 : index
    %lo = arith.remsi %d, %c2 : index
    %hi = arith.subi %c4, %lo : index
    %end = arith.addi %lo, %c6 : index
    %inv = devidx.invalid : tensor<4x2xf32>
    %v = tg.pad %inv [[1, 1], [0, 0]] value 2.0 : tensor<4x2xf32> -> tensor<6x2xf32>
    %p = tg.pad %inv [[%lo, %hi], [0, 0]] invalid : tensor<4x2xf32> -> tensor<8x2xf32>
    %s = tg.shrink %p [[%lo, %end], [0, 2]] : tensor<8x2xf32> -> tensor<6x2xf32>
    %r = tg.reshape %s : tensor<6x2xf32> -> tensor<12xf32>
    %e = tg.reshape %r : tensor<12xf32> -> tensor<12x1xf32>
    %x = tg.expand %e : tensor<12x1xf32> -> tensor<12x3xf32>
    %t = tg.permute %x [1, 0] : tensor<12x3xf32> -> tensor<3x12xf32>
    %f = tg.flip %t [1] : tensor<3x12xf32>
    %b = tg.shrink %f [[0, 1], [0, 12]] : tensor<3x12xf32> -> tensor<1x12xf32>
    %o = tg.reshape %b : tensor<1x12xf32> -> tensor<6x2xf32>
    func.return %v, %o : tensor<6x2xf32>, tensor<6x2xf32>
  }
}

// -----

// Rule 5 (SelectOfSameCondition): an inner select on the same condition is decided.
// CHECK-LABEL: func.func @select_of_same_condition(
// CHECK-SAME:      %[[C:.*]]: i1, %[[K:.*]]: tensor<4xi1>, %[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %[[E:.*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[S1:.*]] = arith.select %[[C]], %[[A]], %[[E]] : tensor<4xf32>
// CHECK-NEXT:    %[[S2:.*]] = arith.select %[[C]], %[[E]], %[[B]] : tensor<4xf32>
// CHECK-NEXT:    %[[W1:.*]] = tg.where %[[K]], %[[A]], %[[E]] : tensor<4xi1>, tensor<4xf32>
// CHECK-NEXT:    %[[W2:.*]] = tg.where %[[K]], %[[E]], %[[B]] : tensor<4xi1>, tensor<4xf32>
// CHECK-NEXT:    func.return %[[S1]], %[[S2]], %[[W1]], %[[W2]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @select_of_same_condition(%c: i1, %k: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>, %e: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
    %in = arith.select %c, %a, %b : tensor<4xf32>
    %s1 = arith.select %c, %in, %e : tensor<4xf32>
    %s2 = arith.select %c, %e, %in : tensor<4xf32>
    %win = tg.where %k, %a, %b : tensor<4xi1>, tensor<4xf32>
    %w1 = tg.where %k, %win, %e : tensor<4xi1>, tensor<4xf32>
    %w2 = tg.where %k, %e, %win : tensor<4xi1>, tensor<4xf32>
    func.return %s1, %s2, %w1, %w2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
}

// -----

// Rule 6 (IndexOfStackWithConstant): a constant index picks the entry; out of range is Invalid
// (returned: zeros); a symbolic d stays.
// CHECK-LABEL: func.func @index_of_stack_with_constant(
// CHECK-SAME:      %[[A:.*]]: tensor<2xf32>, %[[B:.*]]: tensor<2xf32>)
// CHECK-NEXT:    %[[D:.*]] = devidx.device_num : index
// CHECK-NEXT:    %[[ST:.*]] = devidx.stack %[[A]], %[[B]]
// CHECK-NEXT:    %[[IX:.*]] = devidx.index %[[ST]][%[[D]]]
// CHECK-NEXT:    %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK-NEXT:    func.return %[[B]], %[[Z]], %[[IX]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @index_of_stack_with_constant(%a: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
    %d = devidx.device_num : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %st = devidx.stack %a, %b : tensor<2xf32>, tensor<2xf32> -> tensor<2x2xf32>
    %i1 = devidx.index %st[%c1] : tensor<2x2xf32> -> tensor<2xf32>
    %i2 = devidx.index %st[%c2] : tensor<2x2xf32> -> tensor<2xf32>
    %id = devidx.index %st[%d] : tensor<2x2xf32> -> tensor<2xf32>
    func.return %i1, %i2, %id : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  }
}

// -----

// IndexOfStackWithConstant with a range: d + 2 is never below 2, past a 2-entry stack.
// IndexOfInvalidIsInvalid: indexing Invalid is Invalid.
// CHECK-LABEL: func.func @index_out_of_range_and_of_invalid(
// CHECK-NEXT:    %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:.*]] = arith.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK-NEXT:    func.return %[[Z]], %[[Y]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @index_out_of_range_and_of_invalid(%a: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %d = devidx.device_num : index
    %c2 = arith.constant 2 : index
    %p = arith.addi %d, %c2 : index
    %st = devidx.stack %a, %b : tensor<2xf32>, tensor<2xf32> -> tensor<2x2xf32>
    %i = devidx.index %st[%p] : tensor<2x2xf32> -> tensor<2xf32>
    %inv = devidx.invalid : tensor<2x2xf32>
    %j = devidx.index %inv[%d] : tensor<2x2xf32> -> tensor<2xf32>
    func.return %i, %j : tensor<2xf32>, tensor<2xf32>
  }
}

// -----

// The motivating case: an mselect on a device that d can never be (d == 5 with 2 devices)
// leaves nothing to compute.
// CHECK-LABEL: func.func @never_selected_is_gone(
// CHECK-NEXT:    %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT:    func.return %[[Z]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @never_selected_is_gone(%x: tensor<4xf32>) -> tensor<4xf32> {
    %d = devidx.device_num : index
    %c5 = arith.constant 5 : index
    %never = arith.cmpi eq, %d, %c5 : index
    %inv = devidx.invalid : tensor<4xf32>
    %y = arith.select %never, %x, %inv : tensor<4xf32>
    %z = math.exp %y : tensor<4xf32>
    func.return %z : tensor<4xf32>
  }
}

// -----

// Rule 1 (ElementwiseOfSelectWithInvalid) with tg.threefry: Invalid in either operand poisons
// it; the select moves past it.
// CHECK-LABEL: func.func @threefry_of_select_with_invalid(
// CHECK-SAME:      %[[C:.*]]: i1, %[[X:.*]]: tensor<4xi64>, %[[K:.*]]: tensor<4xi64>)
// CHECK-NEXT:    %[[R:.*]] = tg.threefry %[[X]], %[[K]] : tensor<4xi64>
// CHECK-NEXT:    %[[I:.*]] = devidx.invalid : tensor<4xi64>
// CHECK-NEXT:    %[[S:.*]] = arith.select %[[C]], %[[R]], %[[I]] : tensor<4xi64>
// CHECK-NEXT:    func.return %[[S]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @threefry_of_select_with_invalid(%c: i1, %x: tensor<4xi64>, %k: tensor<4xi64>) -> tensor<4xi64> {
    %inv = devidx.invalid : tensor<4xi64>
    %s = arith.select %c, %k, %inv : tensor<4xi64>
    %r = tg.threefry %x, %s : tensor<4xi64>
    func.return %r : tensor<4xi64>
  }
}

// devidx-simplify: folding of index arithmetic with d in [0, N) (index_folding.py).
// test/transforms/test_devidx_simplify.py runs every chunk in the interpreter before and after.
// RUN: multi-opt %s --split-input-file -p devidx-simplify | filecheck %s

// ConstantFoldIntegerArithmetic: every integer binary op on constants (C-style division and
// remainder: -7 / 2 = -3, -7 rem 2 = -1, -7 floordiv 2 = -4); division by zero stays.
// CHECK-LABEL: func.func @constant_fold_integer_arithmetic(
// CHECK-DAG:     %[[C7:.*]] = arith.constant 7 : index
// CHECK-DAG:     %[[Z:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[DZ:.*]] = arith.divsi %[[C7]], %[[Z]] : index
// CHECK-DAG:     %[[MX:.*]] = arith.constant 7 : index
// CHECK-DAG:     %[[A:.*]] = arith.constant 9 : index
// CHECK-DAG:     %[[S:.*]] = arith.constant 5 : index
// CHECK-DAG:     %[[M:.*]] = arith.constant 14 : index
// CHECK-DAG:     %[[D:.*]] = arith.constant -3 : index
// CHECK-DAG:     %[[R:.*]] = arith.constant -1 : index
// CHECK-DAG:     %[[F:.*]] = arith.constant -4 : index
// CHECK-DAG:     %[[MN:.*]] = arith.constant -7 : index
// CHECK-DAG:     %[[W:.*]] = arith.constant -128 : i8
// CHECK:         func.return %[[A]], %[[S]], %[[M]], %[[D]], %[[R]], %[[F]], %[[MN]], %[[MX]], %[[DZ]], %[[W]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @constant_fold_integer_arithmetic() -> (index, index, index, index, index, index, index, index, index, i8) {
    %c2 = arith.constant 2 : index
    %c7 = arith.constant 7 : index
    %cm7 = arith.constant -7 : index
    %c0 = arith.constant 0 : index
    %a = arith.addi %c2, %c7 : index
    %s = arith.subi %c7, %c2 : index
    %m = arith.muli %c2, %c7 : index
    %d = arith.divsi %cm7, %c2 : index
    %r = arith.remsi %cm7, %c2 : index
    %f = arith.floordivsi %cm7, %c2 : index
    %mn = arith.minsi %cm7, %c2 : index
    %mx = arith.maxsi %c2, %c7 : index
    %dz = arith.divsi %c7, %c0 : index
    %b127 = arith.constant 127 : i8
    %b1 = arith.constant 1 : i8
    %w = arith.addi %b127, %b1 : i8
    func.return %a, %s, %m, %d, %r, %f, %mn, %mx, %dz, %w : index, index, index, index, index, index, index, index, index, i8
  }
}

// -----

// CmpiDecidedByRanges: d in [0, 2) against constants outside that range, and constants against
// constants (unsigned predicates read the bits unsigned: -1 ult 0 is false).
// CHECK-LABEL: func.func @cmpi_decided_by_ranges(
// CHECK-NEXT:    %[[D:.*]] = devidx.device_num : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[T:.*]] = arith.constant true
// CHECK-NEXT:    %[[F:.*]] = arith.constant false
// CHECK-NEXT:    %[[F2:.*]] = arith.constant false
// CHECK-NEXT:    %[[T2:.*]] = arith.constant true
// CHECK-NEXT:    %[[F3:.*]] = arith.constant false
// CHECK-NEXT:    %[[OPEN:.*]] = arith.cmpi slt, %[[D]], %[[C1]] : index
// CHECK-NEXT:    func.return %[[T]], %[[F]], %[[F2]], %[[T2]], %[[F3]], %[[OPEN]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @cmpi_decided_by_ranges() -> (i1, i1, i1, i1, i1, i1) {
    %d = devidx.device_num : index
    %c2 = arith.constant 2 : index
    %c5 = arith.constant 5 : index
    %c0 = arith.constant 0 : index
    %cm1 = arith.constant -1 : index
    %c1 = arith.constant 1 : index
    %lt = arith.cmpi slt, %d, %c2 : index
    %eq = arith.cmpi eq, %d, %c5 : index
    %neg = arith.cmpi slt, %d, %c0 : index
    %ge = arith.cmpi uge, %d, %c0 : index
    %u = arith.cmpi ult, %cm1, %c0 : index
    %open = arith.cmpi slt, %d, %c1 : index
    func.return %lt, %eq, %neg, %ge, %u, %open : i1, i1, i1, i1, i1, i1
  }
}

// -----

// IndexWithSinglePointRange: on one device d is 0.
// CHECK-LABEL: func.func @index_with_single_point_range(
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0 : index
// CHECK-NEXT:    func.return %[[Z]]
module attributes {multi.devices = ["CPU:0"]} {
  func.func @index_with_single_point_range() -> index {
    %d = devidx.device_num : index
    func.return %d : index
  }
}

// -----

// RemOfValueInOneBlock: (d + 0) mod N = d, d mod N = d, (d + N) mod N = d; (d + 1) mod N stays.
// AddOfAddConstantsFolds: (d + 2) - 2 = d.
// CHECK-LABEL: func.func @rem_of_value_in_one_block(
// CHECK-NEXT:    %[[D:.*]] = devidx.device_num : index
// CHECK-NEXT:    %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[S:.*]] = arith.addi %[[D]], %[[C1]] : index
// CHECK-NEXT:    %[[R:.*]] = arith.remsi %[[S]], %[[C2]] : index
// CHECK-NEXT:    func.return %[[D]], %[[D]], %[[D]], %[[R]], %[[D]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @rem_of_value_in_one_block() -> (index, index, index, index, index) {
    %d = devidx.device_num : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %a0 = arith.addi %d, %c0 : index
    %r0 = arith.remsi %a0, %c2 : index
    %r1 = arith.remsi %d, %c2 : index
    %a2 = arith.addi %d, %c2 : index
    %r2 = arith.remsi %a2, %c2 : index
    %a1 = arith.addi %d, %c1 : index
    %r3 = arith.remsi %a1, %c2 : index
    %back = arith.subi %a2, %c2 : index
    func.return %r0, %r1, %r2, %r3, %back : index, index, index, index, index
  }
}

// -----

// DivOfValueInOneBlock: d / N = 0 and d floordiv N = 0; (d + 3) / 2 stays (1 on device 0, 2 on device 1).
// CHECK-LABEL: func.func @div_of_value_in_one_block(
// CHECK-NEXT:    %[[D:.*]] = devidx.device_num : index
// CHECK-NEXT:    %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT:    %[[Z0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[Z1:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[A:.*]] = arith.addi %[[D]], %[[C3]] : index
// CHECK-NEXT:    %[[Q:.*]] = arith.divsi %[[A]], %[[C2]] : index
// CHECK-NEXT:    func.return %[[Z0]], %[[Z1]], %[[Q]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @div_of_value_in_one_block() -> (index, index, index) {
    %d = devidx.device_num : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %q0 = arith.divsi %d, %c2 : index
    %q1 = arith.floordivsi %d, %c2 : index
    %a = arith.addi %d, %c3 : index
    %q2 = arith.divsi %a, %c2 : index
    func.return %q0, %q1, %q2 : index, index, index
  }
}

// -----

// MinMaxDecidedByRanges: min(d, N) = d, max(d, 0) = d, max(d, N + 3) = N + 3.
// CHECK-LABEL: func.func @min_max_decided_by_ranges(
// CHECK-NEXT:    %[[D:.*]] = devidx.device_num : index
// CHECK-NEXT:    %[[C5:.*]] = arith.constant 5 : index
// CHECK-NEXT:    func.return %[[D]], %[[D]], %[[C5]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @min_max_decided_by_ranges() -> (index, index, index) {
    %d = devidx.device_num : index
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c5 = arith.constant 5 : index
    %a = arith.minsi %d, %c2 : index
    %b = arith.maxsi %c0, %d : index
    %c = arith.maxsi %d, %c5 : index
    func.return %a, %b, %c : index, index, index
  }
}

// -----

// A select on d that folds: select(d < N, d, 7) = d.
// CHECK-LABEL: func.func @select_on_decided_condition(
// CHECK-NEXT:    %[[D:.*]] = devidx.device_num : index
// CHECK-NEXT:    func.return %[[D]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @select_on_decided_condition() -> index {
    %d = devidx.device_num : index
    %c2 = arith.constant 2 : index
    %c7 = arith.constant 7 : index
    %in = arith.cmpi slt, %d, %c2 : index
    %s = arith.select %in, %d, %c7 : index
    func.return %s : index
  }
}

// -----

// ConstantFoldIntegerArithmetic, unsigned: divui and remui read the constants as unsigned values
// of the type's width (-7 : i32 is 4294967289: / 2 = 2147483644, rem 2 = 1; -1 : i8 is 255:
// rem 10 = 5); division by zero stays.
// CHECK-LABEL: func.func @constant_fold_unsigned_division(
// CHECK-DAG:     %[[C7:.*]] = arith.constant 7 : i32
// CHECK-DAG:     %[[Z:.*]] = arith.constant 0 : i32
// CHECK-DAG:     %[[DZ:.*]] = arith.divui %[[C7]], %[[Z]] : i32
// CHECK-DAG:     %[[RZ:.*]] = arith.remui %[[C7]], %[[Z]] : i32
// CHECK-DAG:     %[[D:.*]] = arith.constant 2147483644 : i32
// CHECK-DAG:     %[[R:.*]] = arith.constant 1 : i32
// CHECK-DAG:     %[[B:.*]] = arith.constant 5 : i8
// CHECK-DAG:     %[[I:.*]] = arith.constant 3 : index
// CHECK:         func.return %[[D]], %[[R]], %[[B]], %[[DZ]], %[[RZ]], %[[I]]
module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  func.func @constant_fold_unsigned_division() -> (i32, i32, i8, i32, i32, index) {
    %cm7 = arith.constant -7 : i32
    %c2 = arith.constant 2 : i32
    %c7 = arith.constant 7 : i32
    %c0 = arith.constant 0 : i32
    %d = arith.divui %cm7, %c2 : i32
    %r = arith.remui %cm7, %c2 : i32
    %bm1 = arith.constant -1 : i8
    %b10 = arith.constant 10 : i8
    %b = arith.remui %bm1, %b10 : i8
    %dz = arith.divui %c7, %c0 : i32
    %rz = arith.remui %c7, %c0 : i32
    %i7 = arith.constant 7 : index
    %i2 = arith.constant 2 : index
    %i = arith.divui %i7, %i2 : index
    func.return %d, %r, %b, %dz, %rz, %i : i32, i32, i8, i32, i32, index
  }
}

// -----

// LookupOfConstantFolds: a lookup of a constant index (d once specialize-devices has folded
// it) is that entry; a lookup whose reachable entries are one value (d on one device) is that
// value; a lookup of d on several devices stays.
// CHECK-LABEL: func.func @lookup_of_constant_folds(
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG:     %[[D:.*]] = devidx.device_num : index
// CHECK-DAG:     %[[K:.*]] = devidx.lookup %[[D]] in [2, 0, 3] : index
// CHECK:         func.return %[[C3]], %[[K]], %[[C0]]
module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2"]} {
  func.func @lookup_of_constant_folds() -> (index, index, index) {
    %c2 = arith.constant 2 : index
    %a = devidx.lookup %c2 in [2, 0, 3] : index
    %d = devidx.device_num : index
    %m = arith.minsi %d, %c2 : index
    %k = devidx.lookup %m in [2, 0, 3] : index
    %c1 = arith.constant 1 : index
    %s = arith.minsi %d, %c1 : index
    %e = arith.addi %s, %c1 : index
    %z = devidx.lookup %e in [5, 0, 0] : index
    func.return %a, %k, %z : index, index, index
  }
}

// RUN: multi-opt %s | multi-opt | filecheck %s

// devidx.device_num: this device's number d in [0, N) of the module's `multi.devices`.

builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  // CHECK:       builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"]} {
  // CHECK-LABEL:   func.func @d() -> index {
  // CHECK-NEXT:      %[[DN:.*]] = devidx.device_num : index
  // CHECK-NEXT:      func.return %[[DN]] : index
  func.func @d() -> index {
    %dn = devidx.device_num : index
    func.return %dn : index
  }

  // Index arithmetic on d is standard arith: the next device in a ring.
  // CHECK-LABEL:   func.func @next() -> index {
  // CHECK-NEXT:      %[[DN:.*]] = devidx.device_num : index
  // CHECK-NEXT:      %[[C1:.*]] = arith.constant 1 : index
  // CHECK-NEXT:      %[[C2:.*]] = arith.constant 2 : index
  // CHECK-NEXT:      %[[S:.*]] = arith.addi %[[DN]], %[[C1]] : index
  // CHECK-NEXT:      %[[R:.*]] = arith.remui %[[S]], %[[C2]] : index
  // CHECK-NEXT:      func.return %[[R]] : index
  func.func @next() -> index {
    %dn = devidx.device_num : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %s = arith.addi %dn, %c1 : index
    %r = arith.remui %s, %c2 : index
    func.return %r : index
  }

  // A condition on d with arith.cmpi and a scalar arith.select.
  // CHECK-LABEL:   func.func @is_first(
  // CHECK-SAME:        %[[A:.*]]: index, %[[B:.*]]: index) -> index {
  // CHECK-NEXT:      %[[DN:.*]] = devidx.device_num : index
  // CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : index
  // CHECK-NEXT:      %[[EQ:.*]] = arith.cmpi eq, %[[DN]], %[[C0]] : index
  // CHECK-NEXT:      %[[SEL:.*]] = arith.select %[[EQ]], %[[A]], %[[B]] : index
  // CHECK-NEXT:      func.return %[[SEL]] : index
  func.func @is_first(%a: index, %b: index) -> index {
    %dn = devidx.device_num : index
    %c0 = arith.constant 0 : index
    %eq = arith.cmpi eq, %dn, %c0 : index
    %sel = arith.select %eq, %a, %b : index
    func.return %sel : index
  }
}

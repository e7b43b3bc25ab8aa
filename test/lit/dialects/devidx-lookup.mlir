// RUN: multi-opt %s | multi-opt | filecheck %s

// devidx.lookup: entry %i of a constant table (SPMD mode's position of d in a permuted
// device list, and subset membership, in one op whatever N is).

// CHECK-LABEL: func.func @position(
// CHECK-NEXT:    %[[D:.*]] = devidx.device_num : index
// CHECK-NEXT:    %[[K:.*]] = devidx.lookup %[[D]] in [2, 0, 3, 1] : index
// CHECK-NEXT:    %[[M:.*]] = devidx.lookup %[[K]] in [0, 1, 1, 0] {note = "member"} : index
// CHECK-NEXT:    func.return %[[M]] : index
func.func @position() -> index {
  %d = devidx.device_num : index
  %k = devidx.lookup %d in [2, 0, 3, 1] : index
  %m = devidx.lookup %k in [0, 1, 1, 0] {note = "member"} : index
  func.return %m : index
}

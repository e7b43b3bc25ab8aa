// A matmul on a 2x2 device mesh (SPEC §1.1), JAX's `P("x", "y")` layout of the result.
//
// numpy:  C = A @ B                        A (7, 6), B (6, 10), C (7, 10)
//   A  rows over mesh dim 0, replicated along mesh dim 1   (logical input: A, (7, 6))
//   B  columns over mesh dim 1, replicated along mesh dim 0 (logical input: B, (6, 10))
//   C  rows over mesh dim 0, columns over mesh dim 1        (logical output: C, (7, 10))
//   G  C all-gathered: the full C on every device           (logical output: (4, 7, 10))
//
// The devices CPU:0..3 sit row-major on the mesh: CPU:k has coordinates (k / 2, k mod 2).
// Rows of A are uneven: 4 and 3 (§1's ceil rule). The product (M, N, K) = (7, 10, 6) takes
// A's rows on axis 0 and B's columns on axis 1; each operand joins it through a mesh-to-mesh
// `multi.copy` that moves nothing (every device already holds the block it keeps: A is
// replicated along mesh dim 1, B along mesh dim 0). `tg.reduce add` over K, which no mesh dim
// splits, is local; the last copy is the all-gather (each device fetches the three blocks it
// lacks).
#a = #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, none]>
#b = #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [none, 1]>
#bt = #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [none, 0]>
#c = #multi.shard<["CPU:0", "CPU:1", "CPU:2", "CPU:3"], mesh = [2, 2], axes = [0, 1]>
#on = #multi.on<["CPU:0", "CPU:1", "CPU:2", "CPU:3"]>
module attributes {multi.devices = ["CPU:0", "CPU:1", "CPU:2", "CPU:3"]} {
  func.func @main(%a: tensor<7x6xf32, #a>, %b: tensor<6x10xf32, #b>)
      -> (tensor<7x10xf32, #c>, tensor<7x10xf32, #on>) {
    // A (M, K) -> (M, N, K), rows over mesh dim 0
    %ar = tg.reshape %a : tensor<7x6xf32, #a> -> tensor<7x1x6xf32, #a>
    %ae = tg.expand %ar : tensor<7x1x6xf32, #a> -> tensor<7x10x6xf32, #a>
    %as = multi.copy %ae : tensor<7x10x6xf32, #a> -> tensor<7x10x6xf32, #c>
    // B (K, N) -> (M, N, K), columns over mesh dim 1
    %bt = tg.permute %b [1, 0] : tensor<6x10xf32, #b> -> tensor<10x6xf32, #bt>
    %br = tg.reshape %bt : tensor<10x6xf32, #bt> -> tensor<1x10x6xf32, #b>
    %be = tg.expand %br : tensor<1x10x6xf32, #b> -> tensor<7x10x6xf32, #b>
    %bs = multi.copy %be : tensor<7x10x6xf32, #b> -> tensor<7x10x6xf32, #c>
    // C = sum over K of A * B: local to every device's block
    %p = arith.mulf %as, %bs : tensor<7x10x6xf32, #c>
    %s = tg.reduce add %p [2] : tensor<7x10x6xf32, #c> -> tensor<7x10x1xf32, #c>
    %cm = tg.reshape %s : tensor<7x10x1xf32, #c> -> tensor<7x10xf32, #c>
    // the all-gather
    %g = multi.copy %cm : tensor<7x10xf32, #c> -> tensor<7x10xf32, #on>
    func.return %cm, %g : tensor<7x10xf32, #c>, tensor<7x10xf32, #on>
  }
}

// More programs for --dtensor-compile, each verified on every rank against
// the global program (test/examples/compile.test).
//
//   dtensor-run examples/compile/more_programs.mlir --all-entries --verify --pipeline dtensor-compile --report

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// The MLP with a sequence-sharded output: the row-parallel partial sums are
// reduced straight into row shards, one reduce_scatter.
func.func @mlp_sequence_parallel(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<8x16xf32, #dtensor.spec<@mesh, [R, R]>>,
    %w1: tensor<16x32xf32, #dtensor.spec<@mesh, [R, S(1)]>>,
    %w2: tensor<32x16xf32, #dtensor.spec<@mesh, [R, S(0)]>>)
    -> tensor<8x16xf32, #dtensor.spec<@mesh, [R, S(0)]>> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x32xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<8x16xf32, #dtensor.spec<@mesh, [R, R]>>, tensor<16x32xf32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%z1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<8x32xf32>) outs(%e1 : tensor<8x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.tanh %v : f32
    linalg.yield %t : f32
  } -> tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%g, %w2 : tensor<8x32xf32>, tensor<32x16xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%z2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %yd = dtensor.distribute_tensor %y, %m : tensor<8x16xf32>, !dtensor.device_mesh<@mesh> -> tensor<8x16xf32, #dtensor.spec<@mesh, [R, S(0)]>>
  return %yd : tensor<8x16xf32, #dtensor.spec<@mesh, [R, S(0)]>>
}

// Uneven batch (7 rows over dp: 4 | 3) through matmul and element-wise ops:
// no communication at all.
func.func @uneven_batch(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<7x8xf32, #dtensor.spec<@mesh, [S(0), R]>>,
    %w: tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>)
    -> tensor<7x8xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<7x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<7x8xf32>) -> tensor<7x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<7x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, R]>>) outs(%z : tensor<7x8xf32>) -> tensor<7x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<7x8xf32>) outs(%e : tensor<7x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %zz = arith.constant 0.0 : f32
    %relu = arith.maximumf %v, %zz : f32
    linalg.yield %relu : f32
  } -> tensor<7x8xf32>
  %rd = dtensor.distribute_tensor %r, %m : tensor<7x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<7x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %rd : tensor<7x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// Row sums over a column-sharded tensor stay Partial through an add, and
// are reduced once at the end.
func.func @partial_sum_then_add(%m: !dtensor.device_mesh<@mesh>,
    %a: tensor<8x6xf32, #dtensor.spec<@mesh, [R, S(1)]>>,
    %b: tensor<8x6xf32, #dtensor.spec<@mesh, [R, S(1)]>>)
    -> tensor<8xf32, #dtensor.spec<@mesh, [R, R]>> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %sa = linalg.reduce ins(%a : tensor<8x6xf32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%z : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %sb = linalg.reduce ins(%b : tensor<8x6xf32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%z : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %e1 = tensor.empty() : tensor<8xf32>
  %sum = linalg.map { arith.addf } ins(%sa, %sb : tensor<8xf32>, tensor<8xf32>) outs(%e1 : tensor<8xf32>)
  %d = dtensor.distribute_tensor %sum, %m : tensor<8xf32>, !dtensor.device_mesh<@mesh> -> tensor<8xf32, #dtensor.spec<@mesh, [R, R]>>
  return %d : tensor<8xf32, #dtensor.spec<@mesh, [R, R]>>
}

// A residual block: y = x + tanh(x W1) W2, with the activation written as
// element-wise math on tensors and the residual add as linalg.map. The
// row-parallel partial sums are reduced once, before the add.
func.func @residual(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>,
    %w1: tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>,
    %w2: tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>)
    -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %t = math.tanh %h : tensor<4x8xf32>
  %y = linalg.matmul ins(%t, %w2 : tensor<4x8xf32>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = linalg.map { arith.addf } ins(%y, %x : tensor<4x8xf32>, tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>) outs(%e : tensor<4x8xf32>)
  %rd = dtensor.distribute_tensor %r, %m : tensor<4x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %rd : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
}

// Two residual blocks back to back. Each block's row-parallel partial sums
// meet the residual add, whose result feeds the next block's column-parallel
// matmul. Choosing the add alone would leave Partial the cheapest way (a
// reduce_scatter) and then all_gather for the next matmul: two collectives
// per block. Propagation's lookahead sees that the matmul needs the sum
// whole and reduces once per block with an all_reduce, as DTensor does.
func.func @two_blocks(%m: !dtensor.device_mesh<@mesh>,
    %x: tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>,
    %w1: tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>,
    %w2: tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>,
    %w3: tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>,
    %w4: tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>)
    -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %h1 = linalg.matmul ins(%x, %w1 : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %t1 = math.tanh %h1 : tensor<4x8xf32>
  %y1 = linalg.matmul ins(%t1, %w2 : tensor<4x8xf32>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r1 = linalg.map { arith.addf } ins(%y1, %x : tensor<4x8xf32>, tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>) outs(%e : tensor<4x8xf32>)
  %h2 = linalg.matmul ins(%r1, %w3 : tensor<4x8xf32>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(1)]>>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %t2 = math.tanh %h2 : tensor<4x8xf32>
  %y2 = linalg.matmul ins(%t2, %w4 : tensor<4x8xf32>, tensor<8x8xf32, #dtensor.spec<@mesh, [R, S(0)]>>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r2 = linalg.map { arith.addf } ins(%y2, %r1 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>)
  %rd = dtensor.distribute_tensor %r2, %m : tensor<4x8xf32>, !dtensor.device_mesh<@mesh> -> tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
  return %rd : tensor<4x8xf32, #dtensor.spec<@mesh, [S(0), R]>>
}
